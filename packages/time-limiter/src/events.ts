/**
 * The events of a time limiter, by type (each also carries `type`, `name` and `at`).
 *
 * @example
 * ```ts
 * limiter.on('timeout', (e) => log(`${e.name} gave up after ${e.timeoutMs} ms`));
 * limiter.on('*', (e) => log(e.type));
 * ```
 */
export type TimeLimiterEvents = {
  /** The call settled with a value before the time-out. */
  success: { readonly elapsed: number };
  /** The call ran out of time (`elapsed` is the time taken, `timeoutMs` the limit). */
  timeout: { readonly elapsed: number; readonly timeoutMs: number };
  /**
   * The call failed before the time-out: it threw or rejected, or the caller's signal aborted it
   * (then `error` is the signal's reason).
   */
  error: { readonly error: unknown; readonly elapsed: number };
};

/**
 * A snapshot of a time limiter's counters since it was created.
 *
 * @example
 * ```ts
 * const { numberOfTimeouts, numberOfSuccessfulCalls } = limiter.metrics;
 * ```
 */
export interface TimeLimiterMetrics {
  /** Calls that settled with a value in time. */
  readonly numberOfSuccessfulCalls: number;
  /** Calls that threw or rejected in time, or that their caller aborted. */
  readonly numberOfFailedCalls: number;
  /** Calls that timed out. */
  readonly numberOfTimeouts: number;
}

/** Every event type a time limiter publishes: `on` refuses any other (with a "did you mean"). */
export const TIME_LIMITER_EVENT_TYPES: readonly (keyof TimeLimiterEvents)[] = ['success', 'timeout', 'error'];
