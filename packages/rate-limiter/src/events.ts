/**
 * Events of a {@link RateLimiter} (each also carries `type`, `name` and `at`).
 *
 * - `successfulAcquire`: a caller got `permits`, after waiting `waitMs` (0: at once). For a
 *   waiting `acquirePermission` it fires when the wait ends; for `reservePermission` when the
 *   reservation is made.
 * - `failedAcquire`: a caller was refused `permits`; `waitMs` is the wait it would have needed.
 * - `drained`: `drainPermissions()` took the `permits` left in the cycle (0 when none were left).
 *
 * @example
 * ```ts
 * limiter.on('failedAcquire', (e: EventOf<RateLimiterEvents, 'failedAcquire'>) => log.info(`${e.name}: retry in ${e.waitMs} ms`));
 * ```
 */
export type RateLimiterEvents = {
  successfulAcquire: { readonly permits: number; readonly waitMs: number };
  failedAcquire: { readonly permits: number; readonly waitMs: number };
  drained: { readonly permits: number };
};

/** The event types a rate limiter publishes (`on` refuses any other, suggesting the closest). */
export const RATE_LIMITER_EVENT_TYPES: readonly (keyof RateLimiterEvents)[] = ['successfulAcquire', 'failedAcquire', 'drained'];

/**
 * A snapshot of a rate limiter, as of `clock.now()`.
 *
 * @example
 * ```ts
 * const { availablePermissions, waitMs } = limiter.metrics;
 * ```
 */
export interface RateLimiterMetrics {
  /** Permissions left in the current cycle; negative when later cycles are reserved. */
  readonly availablePermissions: number;
  /** Calls waiting (on a timer) for their reserved permits. */
  readonly numberOfWaitingCalls: number;
  /** How long a caller asking for one permit now would wait, ms. */
  readonly waitMs: number;
  /** The current cycle, counted from the limiter's creation. */
  readonly cycle: number;
}
