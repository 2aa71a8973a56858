import type { Outcome } from '../outcome.js';

/**
 * The running totals of the calls a sliding window holds. A window keeps them up to date on
 * every record, so reading them is O(1).
 *
 * @example
 * ```ts
 * const { calls, failed }: WindowTotals = window.at(clock.now());
 * const failureRate = calls === 0 ? -1 : (failed * 100) / calls;
 * ```
 */
export interface WindowTotals {
  /** Calls in the window (`numberOfBufferedCalls`). */
  readonly calls: number;
  /** Calls that failed, slow or not. */
  readonly failed: number;
  /** Calls slower than the slow-call threshold, failed or not. */
  readonly slow: number;
  /** Calls both slow and failed. */
  readonly slowFailed: number;
}

/**
 * A sliding window of call outcomes: a pure data structure, no timers, no promises, no
 * allocation per call. `now` (ms on the breaker's clock) moves a time window forward before it
 * records or is read; a count window ignores it.
 *
 * @example
 * ```ts
 * const window: SlidingWindow = new TimeWindow(60, clock.now());
 * window.record(Outcome.ERROR, clock.now());
 * ```
 */
export interface SlidingWindow extends WindowTotals {
  /** Records one outcome at `now`. */
  record(outcome: Outcome, now: number): void;
  /** Moves the window to `now` (a time window drops the seconds that fell out), and returns it. */
  at(now: number): WindowTotals;
  /**
   * Changes only when calls may have left the window other than by being replaced by a newer one:
   * a time window's current second (at a new second, whole buckets fall out), a count window's
   * constant 0 (a call leaves it only as a newer one takes its place). While it stays the same,
   * recording a SUCCESS can only lower or keep both rates and never lowers the number of calls, so
   * a verdict of "below both thresholds" taken since still holds.
   */
  readonly epoch: number;
}
