import type { OnStoreError } from './config.js';

/**
 * Events of a {@link RedisRateLimiter} (each also carries `type`, `name` and `at`).
 *
 * - `successfulAcquire`: a caller got `permits` after `waitMs`; `cycle` is the cycle they belong
 *   to as Redis counted it (from the Unix epoch), or -1 when a fallback granted them.
 * - `failedAcquire`: a caller was refused `permits`; `waitMs` is the wait it would have needed.
 * - `drained`: `drainPermissions()` took the `permits` left in the cycle.
 * - `storeError`: Redis stopped answering; `mode` is what takes over. Once per outage, not per call.
 * - `storeRecovered`: Redis answers again after `downtimeMs`.
 * - `storeStateLost`: the limiter's key was lost mid-use (evicted under `maxmemory`, deleted,
 *   flushed) and created again with `cycle` — and every cycle this instance had seen reserved —
 *   counted as taken. Once per loss per instance that notices it.
 *
 * @example
 * ```ts
 * limiter.on('storeError', (e) => log.warn(`${e.name}: redis down (${String(e.error)}), now ${e.mode}`));
 * ```
 */
export type RedisRateLimiterEvents = {
  successfulAcquire: { readonly permits: number; readonly waitMs: number; readonly cycle: number };
  failedAcquire: { readonly permits: number; readonly waitMs: number };
  drained: { readonly permits: number };
  storeError: { readonly error: unknown; readonly mode: OnStoreError };
  storeRecovered: { readonly downtimeMs: number };
  storeStateLost: { readonly cycle: number };
};

/** The event types a RedisRateLimiter publishes. */
export const REDIS_RATE_LIMITER_EVENT_TYPES: readonly (keyof RedisRateLimiterEvents)[] = [
  'successfulAcquire',
  'failedAcquire',
  'drained',
  'storeError',
  'storeRecovered',
  'storeStateLost',
];

/**
 * Which decides the calls now: Redis, or the `onStoreError` fallback while Redis is unavailable.
 *
 * @example
 * ```ts
 * if (limiter.metrics.store !== 'redis') alert('rate limit not shared');
 * ```
 */
export type StoreMode = 'redis' | OnStoreError;

/**
 * A snapshot of a RedisRateLimiter. With `store: 'redis'` the figures are those of the last
 * answer Redis gave this instance (`fetchMetrics()` asks it afresh); while a `'local'` fallback
 * decides they are the local limiter's.
 *
 * @example
 * ```ts
 * const { availablePermissions, store } = limiter.metrics;
 * ```
 */
export interface RedisRateLimiterMetrics {
  /** Permissions left in the cycle; negative when later cycles are reserved. */
  readonly availablePermissions: number;
  /** Calls of this instance waiting (on its clock) for their reserved permits. */
  readonly numberOfWaitingCalls: number;
  /** How long a caller asking for one permit would wait, ms. */
  readonly waitMs: number;
  /** The cycle, counted from the Unix epoch (Redis `TIME`); -1 before the first answer. */
  readonly cycle: number;
  /** What decides calls now. */
  readonly store: StoreMode;
  /** How many times this instance found the key lost mid-use (`storeStateLost` events): 0 on a Redis that keeps its keys. */
  readonly storeStateLost: number;
}
