import { TimeoutError, type Clock, type EventPublisher } from '@breakwater/core';
import { callbackThrew } from '@breakwater/core/internal';
import { CALL_KINDS, type CallObservers } from './call-observers.js';
import type { AdaptiveLimiterEvents } from './events.js';
import type { LimitFeed } from './limit-feed.js';
import type { Slots } from './slots.js';
import type { TokenOutcome } from './token.js';

/** What {@link CallEnds} works on: the limiter's parts. */
export interface CallEndsParts {
  readonly source: string;
  readonly clock: Clock;
  readonly isDrop: ((error: unknown) => boolean) | undefined;
  /** The partitions' names by lane (a lane past the last: no partition). */
  readonly names: readonly string[];
  readonly slots: Slots;
  readonly feed: LimitFeed;
  readonly events: EventPublisher<AdaptiveLimiterEvents>;
  readonly observers: CallObservers;
}

/**
 * How an adaptive limiter's call ends, written once for `execute` and for tokens: what its outcome
 * tells the algorithm ({@link judge}), and its end ({@link finish}): `callFinished` and the
 * observers, the sample (maybe a new limit: `limitChanged`), then its slot back (and to a waiter).
 */
export class CallEnds {
  // The parts read at every call's end, each one field away.
  readonly #source: string;
  readonly #clock: Clock;
  readonly #isDropOption: ((error: unknown) => boolean) | undefined;
  readonly #names: readonly string[];
  readonly #slots: Slots;
  readonly #feed: LimitFeed;
  readonly #events: EventPublisher<AdaptiveLimiterEvents>;
  readonly #observers: CallObservers;

  constructor(parts: CallEndsParts) {
    this.#source = parts.source;
    this.#clock = parts.clock;
    this.#isDropOption = parts.isDrop;
    this.#names = parts.names;
    this.#slots = parts.slots;
    this.#feed = parts.feed;
    this.#events = parts.events;
    this.#observers = parts.observers;
  }

  /** What a failed call tells: a drop (1: a `TimeoutError` or what `isDrop` accepts), else nothing (2; always after its caller aborted). */
  judge(error: unknown, signal: AbortSignal): TokenOutcome {
    return !signal.aborted && this.#isDrop(error) ? 1 : 2;
  }

  /** Ends a call of `lane` admitted at `start` with `inFlight` calls in flight: 0 a success, 1 a drop, 2 ignored. */
  finish(lane: number, start: number, inFlight: number, outcome: TokenOutcome): void {
    const now = this.#clock.now();
    const rtt = now - start;
    const didDrop = outcome === 1;
    if (this.#events.wants('callFinished')) this.#emitFinished(lane, rtt, outcome);
    const notify = this.#observers.notify;
    if (notify !== undefined) notify(CALL_KINDS[outcome]!, rtt);
    const slots = this.#slots;
    if (outcome !== 2) {
      const previous = slots.limit;
      const limit = this.#feed.sample(now, rtt, inFlight, didDrop);
      if (limit !== previous) this.#limitChanged(previous, limit);
    }
    slots.free(lane);
  }

  // The rare parts of a call's end, out of `finish` (which every call runs): the engine inlines
  // a short `finish` into the limiter's outcome handler.

  #emitFinished(lane: number, rtt: number, outcome: TokenOutcome): void {
    this.#events.emit('callFinished', { partition: this.#names[lane], rtt, didDrop: outcome === 1, ignored: outcome === 2 });
  }

  #limitChanged(previous: number, limit: number): void {
    this.#slots.setLimit(limit); // the new slots, if any, go to waiters when this one is freed (finish)
    if (this.#events.wants('limitChanged')) this.#events.emit('limitChanged', { previous, limit });
  }

  #isDrop(error: unknown): boolean {
    if (error instanceof TimeoutError) return true;
    const isDrop = this.#isDropOption;
    if (isDrop === undefined) return false;
    try {
      return isDrop(error) === true;
    } catch (thrown) {
      callbackThrew(this.#source, 'isDrop', isDrop, thrown, 'the error is not counted as a drop (no sample)');
      return false;
    }
  }
}
