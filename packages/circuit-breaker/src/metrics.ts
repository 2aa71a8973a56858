import { Outcome } from './outcome.js';
import { CountWindow } from './windows/count-window.js';
import { TimeWindow } from './windows/time-window.js';
import type { SlidingWindow, WindowTotals } from './windows/window.js';

/**
 * A snapshot of a breaker's metrics: a fresh plain object on every read of `breaker.metrics`.
 *
 * @example
 * ```ts
 * const { failureRate, slowCallRate, numberOfNotPermittedCalls } = breaker.metrics;
 * ```
 */
export interface CircuitBreakerMetrics {
  /** Percentage of failed calls in the window, in [0, 100]; −1 below the minimum number of calls. */
  readonly failureRate: number;
  /** Percentage of slow calls in the window, in [0, 100]; −1 below the minimum number of calls. */
  readonly slowCallRate: number;
  readonly numberOfBufferedCalls: number;
  readonly numberOfFailedCalls: number;
  readonly numberOfSuccessfulCalls: number;
  readonly numberOfSlowCalls: number;
  readonly numberOfSlowSuccessfulCalls: number;
  readonly numberOfSlowFailedCalls: number;
  /** Calls refused since the current metrics started (they carry over from CLOSED into OPEN). */
  readonly numberOfNotPermittedCalls: number;
}

/** Which thresholds a recorded outcome left exceeded: bit flags. */
export type Exceeded = number;
/** The failure rate reached its threshold. */
export const FAILURE_EXCEEDED = 1;
/** The slow-call rate reached its threshold. */
export const SLOW_EXCEEDED = 2;
/** Fewer calls than the minimum: rates are −1 and nothing may transition. */
export const BELOW_MINIMUM = -1;

/** The thresholds a window is judged by. */
export interface Thresholds {
  readonly minimumNumberOfCalls: number;
  readonly failureRateThreshold: number;
  readonly slowCallRateThreshold: number;
}

/** Failure rate of totals in percent, or −1 below `minimum` calls. */
export function failureRate(totals: WindowTotals, minimum: number): number {
  return totals.calls === 0 || totals.calls < minimum ? -1 : (totals.failed * 100) / totals.calls;
}

/** Slow-call rate of totals in percent, or −1 below `minimum` calls. */
export function slowCallRate(totals: WindowTotals, minimum: number): number {
  return totals.calls === 0 || totals.calls < minimum ? -1 : (totals.slow * 100) / totals.calls;
}

/**
 * The verdict on a window: {@link BELOW_MINIMUM}, 0 (below both thresholds), or the
 * {@link FAILURE_EXCEEDED} / {@link SLOW_EXCEEDED} bits. Thresholds are reached at `>=`.
 */
export function judge(totals: WindowTotals, t: Thresholds): Exceeded {
  const failure = failureRate(totals, t.minimumNumberOfCalls);
  if (failure === -1) return BELOW_MINIMUM;
  const slow = slowCallRate(totals, t.minimumNumberOfCalls);
  return (failure >= t.failureRateThreshold ? FAILURE_EXCEEDED : 0) | (slow >= t.slowCallRateThreshold ? SLOW_EXCEEDED : 0);
}

/**
 * The metrics of one breaker state: its window, the thresholds it is judged by (the effective
 * minimum already applied) and the count of refused calls.
 */
export class StateMetrics {
  numberOfNotPermittedCalls = 0;
  /**
   * The window's {@link SlidingWindow.epoch} when the last verdict was 0 (both rates judged, both
   * below their thresholds); NaN when it was anything else. A SUCCESS recorded in that same epoch
   * cannot change such a verdict, so the success path skips working it out again.
   */
  #belowThresholdsInEpoch = NaN;

  constructor(
    readonly window: SlidingWindow,
    readonly thresholds: Thresholds,
    /** Whether these are HALF_OPEN's trial metrics (an OPEN keeps them after failed trials). */
    readonly trials = false,
  ) {}

  /** Records an outcome and returns the verdict on the window after it. */
  record(outcome: Outcome, now: number): Exceeded {
    const window = this.window;
    window.record(outcome, now);
    if (outcome === Outcome.SUCCESS && this.#belowThresholdsInEpoch === window.epoch) return 0;
    const verdict = judge(window, this.thresholds);
    this.#belowThresholdsInEpoch = verdict === 0 ? window.epoch : NaN;
    return verdict;
  }

  /** A plain snapshot at `now`. */
  snapshot(now: number): CircuitBreakerMetrics {
    const w = this.window.at(now);
    const min = this.thresholds.minimumNumberOfCalls;
    return {
      failureRate: failureRate(w, min),
      slowCallRate: slowCallRate(w, min),
      numberOfBufferedCalls: w.calls,
      numberOfFailedCalls: w.failed,
      numberOfSuccessfulCalls: w.calls - w.failed,
      numberOfSlowCalls: w.slow,
      numberOfSlowSuccessfulCalls: w.slow - w.slowFailed,
      numberOfSlowFailedCalls: w.slowFailed,
      numberOfNotPermittedCalls: this.numberOfNotPermittedCalls,
    };
  }
}

/** The window settings of a breaker, resolved. */
export interface WindowSettings extends Omit<Thresholds, 'minimumNumberOfCalls'> {
  readonly slidingWindowType: 'COUNT_BASED' | 'TIME_BASED';
  readonly slidingWindowSize: number;
  readonly minimumNumberOfCalls: number;
}

/**
 * Fresh metrics for CLOSED (and METRICS_ONLY, DISABLED, FORCED_OPEN): the configured window,
 * with the effective minimum `min(minimumNumberOfCalls, slidingWindowSize)` for COUNT_BASED and
 * `minimumNumberOfCalls` for TIME_BASED.
 */
export function closedMetrics(s: WindowSettings, now: number): StateMetrics {
  const countBased = s.slidingWindowType === 'COUNT_BASED';
  const window = countBased ? new CountWindow(s.slidingWindowSize) : new TimeWindow(s.slidingWindowSize, now);
  const minimumNumberOfCalls = countBased ? Math.min(s.minimumNumberOfCalls, s.slidingWindowSize) : s.minimumNumberOfCalls;
  return new StateMetrics(window, { ...s, minimumNumberOfCalls });
}

/**
 * Fresh metrics for HALF_OPEN: a COUNT_BASED window of `permitted` calls, deciding once
 * `min(minimumNumberOfCalls, permitted)` are recorded.
 */
export function halfOpenMetrics(s: WindowSettings, permitted: number): StateMetrics {
  return new StateMetrics(new CountWindow(permitted), { ...s, minimumNumberOfCalls: Math.min(s.minimumNumberOfCalls, permitted) }, true);
}
