/**
 * The events of a retry, by type (each also carries `type`, `name` and `at`). Every call ends
 * with exactly one of `success`, `error` or `ignoredError`; each retry is announced by a
 * `retry` event before its wait.
 *
 * @example
 * ```ts
 * retry.on('retry', (e) => log(`${e.name}: attempt ${e.attempt} failed, next in ${e.waitMs} ms`));
 * retry.on('error', (e) => log(`${e.name}: gave up after ${e.attempts} attempts`, e.error));
 * ```
 */
export type RetryEvents = {
  /**
   * Attempt `attempt` failed and the next one starts in `waitMs`: `error` is what it threw, or
   * `result` the value `retryOnResult` asked to retry (exactly one of them is present).
   */
  retry: { readonly attempt: number; readonly error?: unknown; readonly result?: unknown; readonly waitMs: number };
  /** The call resolved after `attempts` attempts (1: no retry was needed). */
  success: { readonly attempts: number };
  /**
   * The call gave up after `attempts` attempts: attempts exhausted or retry budget refused (the
   * last error, or a `MaxRetriesExceededError` for a value still to be retried), caller's abort
   * (its reason), or a throwing predicate / bad interval (that error).
   */
  error: { readonly attempts: number; readonly error: unknown };
  /** The call failed with an error that is not to be retried (ignored, not matched, or a `CallNotPermittedError`). */
  ignoredError: { readonly error: unknown };
};

/**
 * A snapshot of a retry's counters since it was created. Each call is counted exactly once,
 * when it ends: "with retry attempt" means at least a second attempt was made.
 *
 * @example
 * ```ts
 * const m = retry.metrics;
 * const retriedShare = (m.numberOfSuccessfulCallsWithRetryAttempt + m.numberOfFailedCallsWithRetryAttempt) / total;
 * ```
 */
export interface RetryMetrics {
  readonly numberOfSuccessfulCallsWithoutRetryAttempt: number;
  readonly numberOfSuccessfulCallsWithRetryAttempt: number;
  readonly numberOfFailedCallsWithoutRetryAttempt: number;
  readonly numberOfFailedCallsWithRetryAttempt: number;
}

/** Every event type a retry publishes: `on` refuses any other (with a "did you mean"). */
export const RETRY_EVENT_TYPES: readonly (keyof RetryEvents)[] = ['retry', 'success', 'error', 'ignoredError'];
