import { systemClock, type Clock, type TimerHandle } from '@breakwater/core';
import { LinkedQueue, type Linked } from '@breakwater/core/internal';

/** The error of a round trip that got no answer within `commandTimeout`. */
export class CommandTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`redis did not answer within commandTimeout (${timeoutMs} ms)`);
    this.name = 'CommandTimeoutError';
  }
}

/** A round trip in flight: when it began, and how to end it as timed out. */
export interface InFlight extends Linked<InFlight> {
  readonly startedAt: number;
  readonly onTimeout: (error: CommandTimeoutError) => void;
}

/**
 * Bounds round trips to `timeoutMs` of real time without a timer per call: every round trip has
 * the same timeout, so the ones in flight are in deadline order, oldest first, and one timer —
 * armed for the oldest, re-armed when it fires — ends those that are late. A call costs a clock
 * reading and two O(1) list operations (a `setTimeout` + `clearTimeout` per call cost more, most
 * of all one call at a time, when Node creates and drops its timer list each time). The timer is
 * a background timer (systemClock's are unref'd): a round trip in flight holds the process
 * through its socket, not through this timer. The clock is `systemClock` for a real store (I/O
 * takes real time, whatever clock the limiter counts its cycles on); tests pass a VirtualClock.
 * (node-redis's own command `timeout` stops counting once a command is written, so a Redis that
 * hangs after reading would hang the call.)
 */
export class Deadlines {
  readonly #timeoutMs: number;
  readonly #inFlight = new LinkedQueue<InFlight>();
  readonly #clock: Clock;
  #timer: TimerHandle | undefined = undefined;

  constructor(timeoutMs: number, clock: Clock = systemClock) {
    this.#timeoutMs = timeoutMs;
    this.#clock = clock;
  }

  /**
   * Starts timing a round trip that began at `startedAt` (the clock's time, no later than any
   * earlier start's): `onTimeout` runs if it has not {@link end}ed within `timeoutMs` of it.
   */
  start(onTimeout: (error: CommandTimeoutError) => void, startedAt = this.#clock.now()): InFlight {
    const entry: InFlight = { prev: null, next: null, linked: false, startedAt, onTimeout };
    this.#inFlight.push(entry);
    if (this.#timer === undefined) this.#arm(this.#timeoutMs);
    return entry;
  }

  /** The clock's time: what {@link start} takes as `startedAt`. */
  now(): number {
    return this.#clock.now();
  }

  /** Ends a round trip; false when it had already timed out (its outcome is then ignored). */
  end(entry: InFlight): boolean {
    return this.#inFlight.remove(entry);
  }

  /** `promise`, or a rejection with {@link CommandTimeoutError} once it has taken `timeoutMs`. */
  bound<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry = this.start(reject);
      promise.then(
        (value) => this.end(entry) && resolve(value),
        (error: unknown) => this.end(entry) && reject(error),
      );
    });
  }

  #arm(ms: number): void {
    this.#timer = this.#clock.setTimeout(() => this.#expire(), ms);
  }

  /** Ends every round trip past its deadline; re-arms for the oldest one left. */
  #expire(): void {
    this.#timer = undefined;
    const now = this.#clock.now();
    for (let first = this.#inFlight.first; first !== null; first = this.#inFlight.first) {
      const left = first.startedAt + this.#timeoutMs - now;
      if (left > 0) return this.#arm(Math.ceil(left));
      this.#inFlight.shift();
      first.onTimeout(new CommandTimeoutError(this.#timeoutMs));
    }
  }
}
