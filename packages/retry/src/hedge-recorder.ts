import { EventPublisher } from '@breakwater/core';
import { callbackThrew } from '@breakwater/core/internal';
import type { ResolvedHedgeConfig } from './hedge-config.js';
import { HedgeDelay } from './hedge-delay.js';
import { HEDGE_EVENT_TYPES, type HedgeEvents, type HedgeMetrics } from './hedge-events.js';
import { HedgeTimer } from './hedge-timer.js';

/**
 * What the calls of one Hedge share: its config, its delay and the timer of the delays, its user callbacks contained
 * (contract: docs/conventions.md: a callback that throws is reported once and the hedge takes its
 * safe choice), and its counters and events. Every call ends through exactly one of
 * {@link ended} or {@link aborted}, which counts it once and publishes its last event.
 */
export class HedgeRecorder {
  readonly events: EventPublisher<HedgeEvents>;
  readonly delay: HedgeDelay;
  /** The one timer of the calls' delays. */
  readonly timer: HedgeTimer;
  /** `Hedge 'search'`: how messages and warnings name this hedge. */
  readonly source: string;
  #successful = 0;
  #failed = 0;
  #hedged = 0;
  #refused = 0;
  readonly #wins: number[];
  /** Attempts a call may start in all: `maxHedgedAttempts + 1`. */
  readonly maxAttempts: number;

  constructor(
    readonly name: string,
    readonly config: ResolvedHedgeConfig,
  ) {
    this.source = `Hedge '${name}'`;
    this.events = new EventPublisher<HedgeEvents>(name, config.clock, this.source, HEDGE_EVENT_TYPES);
    this.delay = new HedgeDelay(config.delay);
    this.timer = new HedgeTimer(config.clock);
    this.maxAttempts = config.maxHedgedAttempts + 1;
    this.#wins = new Array<number>(this.maxAttempts).fill(0);
  }

  // The primary's two outcome handlers of a call without a signal, built once per Hedge and lent
  // to one call at a time (as Retry lends its attempt 1's): the call that finds them free takes
  // them, and they are free again the moment its primary settles; a call that finds them in use
  // makes a pair of its own. Calls one after another allocate no closure for them.
  #lent: { afterPrimary(ok: boolean, value: unknown): unknown } | undefined;

  /** Lends the handlers to `call` if they are free. */
  lend(call: { afterPrimary(ok: boolean, value: unknown): unknown }): boolean {
    if (this.#lent !== undefined) return false;
    this.#lent = call;
    return true;
  }

  readonly onPrimaryValue = (value: unknown): unknown => {
    const call = this.#lent!;
    this.#lent = undefined;
    return call.afterPrimary(true, value);
  };

  readonly onPrimaryError = (error: unknown): unknown => {
    const call = this.#lent!;
    this.#lent = undefined;
    return call.afterPrimary(false, error);
  };

  get metrics(): HedgeMetrics {
    return {
      numberOfSuccessfulCalls: this.#successful,
      numberOfFailedCalls: this.#failed,
      numberOfHedgedAttempts: this.#hedged,
      numberOfHedgesRefusedByBudget: this.#refused,
      winsByAttempt: Object.freeze([...this.#wins]),
    };
  }

  /**
   * Whether an attempt's outcome (`ok`: resolved with `value`, else rejected with it) is a
   * failure to hedge past. Without `shouldHandle`: every error, never a result. A `shouldHandle`
   * that throws is reported once and the outcome is not handled: it wins, the caller gets it.
   */
  handles(ok: boolean, value: unknown): boolean {
    const shouldHandle = this.config.shouldHandle;
    if (shouldHandle === undefined) return !ok;
    try {
      return shouldHandle(ok ? { result: value } : { error: value }) === true;
    } catch (error) {
      callbackThrew(this.source, 'shouldHandle', shouldHandle, error, 'the outcome is not handled: it ends the call as it is');
      return false;
    }
  }

  /** Hedged attempt `attempt` is about to start: counted, `onHedging` (contained), the `hedge` event. */
  hedging(attempt: number, delayMs: number, reason: 'delay' | 'failure'): void {
    this.#hedged++;
    const onHedging = this.config.onHedging;
    if (onHedging !== undefined) {
      try {
        onHedging({ attempt, delayMs });
      } catch (error) {
        callbackThrew(this.source, 'onHedging', onHedging, error, 'the hedged attempt starts as if it had returned');
      }
    }
    if (this.events.wants('hedge')) this.events.emit('hedge', { attempt, delayMs, reason });
  }

  /** The budget refused hedged attempt `attempt`. */
  refused(attempt: number): void {
    this.#refused++;
    if (this.events.wants('hedgeRefused')) this.events.emit('hedgeRefused', { attempt });
  }

  /**
   * The caller gets attempt `winner`'s outcome after `attempts` attempts started: a success when
   * `successful`, else a failure whose `error` event carries `value`.
   */
  ended(attempts: number, winner: number, successful: boolean, value: unknown): void {
    this.#wins[winner - 1]!++;
    if (successful) {
      this.#successful++;
      if (this.events.wants('success')) this.events.emit('success', { attempts, winner });
    } else {
      this.#failed++;
      if (this.events.wants('error')) this.events.emit('error', { attempts, error: value });
    }
  }

  /** The caller aborted after `attempts` attempts started: a failed call with no winner. */
  aborted(attempts: number, reason: unknown): void {
    this.#failed++;
    if (this.events.wants('error')) this.events.emit('error', { attempts, error: reason });
  }
}
