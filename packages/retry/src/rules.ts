import type { Outcome } from '@breakwater/core';
import { callbackThrew, describeValue, warnOnce } from '@breakwater/core/internal';
import type { ResolvedRetryConfig } from './config.js';
import type { IntervalState } from './interval-function.js';

/**
 * The decisions of one Retry after a failed attempt — retry this error? this value? how long to
 * wait? — with every user callback of its config contained (contract: docs/conventions.md): a callback that throws is
 * reported once through `process.emitWarning`, and the rule falls back to the safe choice
 * (the call's own outcome goes to the caller; a bad wait keeps the previous one).
 */
export class RetryRules {
  /** `Retry 'pg'`: how messages and warnings name this retry. */
  readonly source: string;

  constructor(
    name: string,
    readonly config: ResolvedRetryConfig,
  ) {
    this.source = `Retry '${name}'`;
  }

  /**
   * Whether `error` is to be retried. A throwing predicate (`retryOnException`, or an error
   * class's own `instanceof` check) is contained: reported once, and the error is not retried —
   * the caller gets it as it was thrown.
   */
  isRetryable(error: unknown): boolean {
    const config = this.config;
    try {
      return config.isRetryable(error);
    } catch (thrown) {
      const option = config.retryOnException !== undefined ? 'retryOnException' : 'retryExceptions / ignoreExceptions';
      callbackThrew(
        this.source,
        option,
        config.retryOnException ?? config.isRetryable,
        thrown,
        'the error is not retried: the call ends with it, as it was thrown',
      );
      return false;
    }
  }

  /**
   * Whether `retryOnResult` (which must be set) asks to retry `value`. A throwing predicate is
   * contained: reported once, and the value is not retried — it is the call's result.
   */
  retriesResult(value: unknown): boolean {
    const retryOnResult = this.config.retryOnResult!;
    try {
      return retryOnResult(value) as boolean;
    } catch (error) {
      callbackThrew(this.source, 'retryOnResult', retryOnResult, error, 'the value is not retried: the call resolves with it');
      return false;
    }
  }

  /** `consumeResultBeforeRetryAttempt(attempt, value)`, if set; a throw is reported once and the retry goes on. */
  consumeResult(attempt: number, value: unknown): void {
    const consume = this.config.consumeResultBeforeRetryAttempt;
    if (consume === undefined) return;
    try {
      consume(attempt, value);
    } catch (error) {
      callbackThrew(this.source, 'consumeResultBeforeRetryAttempt', consume, error, 'the retry goes on as if it had returned');
    }
  }

  /**
   * The wait after failed attempt `attempt`, whose outcome was `outcome` (an error when
   * `failedWithError`, else a value to retry): a finite number of ms >= 0. An interval function
   * that throws or returns anything else (NaN, Infinity, a negative number, a non-number) is
   * reported once, and the call waits what it waited before this attempt (`waitDuration`
   * before the first wait) instead.
   */
  waitAfter(attempt: number, failedWithError: boolean, outcome: unknown, state: IntervalState): number {
    const { intervalBiFunction, intervalFunction, waitDuration } = this.config;
    let ms: unknown;
    let fn: object;
    let option: string;
    try {
      if (intervalBiFunction !== undefined) {
        fn = intervalBiFunction;
        option = 'intervalBiFunction';
        const given: Outcome = failedWithError ? { error: outcome } : { result: outcome };
        ms = intervalBiFunction(attempt, given, state);
      } else if (intervalFunction !== undefined) {
        fn = intervalFunction;
        option = 'intervalFunction';
        ms = intervalFunction(attempt, state);
      } else return waitDuration;
    } catch (error) {
      callbackThrew(this.source, option!, fn!, error, FALLBACK_WAIT);
      return fallbackWait(attempt, state, waitDuration);
    }
    if (typeof ms !== 'number' || !(ms >= 0) || ms === Infinity) {
      warnOnce(
        fn,
        `${this.source}: ${option} returned ${describeValue(ms)} for attempt ${attempt}; it must return a finite number of ms >= 0: ${FALLBACK_WAIT} (reported once)`,
        'BreakwaterCallbackWarning',
      );
      return fallbackWait(attempt, state, waitDuration);
    }
    return ms;
  }
}

const FALLBACK_WAIT = 'the retry waits as long as it did before this attempt instead (waitDuration before the first wait)';

/** The wait taken before attempt `attempt` in this call, or `waitDuration` before the first wait. */
function fallbackWait(attempt: number, state: IntervalState, waitDuration: number): number {
  return attempt > 1 ? state.previousWaitMs : waitDuration;
}
