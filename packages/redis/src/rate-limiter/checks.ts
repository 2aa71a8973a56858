import { ConfigReader, type Duration } from '@breakwater/core';
import { REDIS_RATE_LIMITER_OPTIONS, type RedisRateLimiterConfig } from './config.js';
import { MAX_WAIT_MS, maxPermits } from './script.js';

/** Checks a value given to `changeLimitForPeriod` / `changeTimeoutDuration`. */
export function resolveChange(name: string, key: 'limitForPeriod' | 'timeoutDuration', value: number | Duration): number {
  const read = new ConfigReader<Partial<RedisRateLimiterConfig>>('RedisRateLimiter', name, { [key]: value }, REDIS_RATE_LIMITER_OPTIONS);
  if (value === undefined) read.fail(key, key === 'limitForPeriod' ? 'an integer >= 1' : 'a duration >= 0', value, 'type');
  return key === 'limitForPeriod' ? read.number('limitForPeriod', 0, { integer: true, gte: 1 }) : read.duration('timeoutDuration', 0, { gte: 0 });
}

/**
 * Checks that a permit count can ever be granted at `limit` per `period` ms: its least wait must be
 * one the store can represent ({@link maxPermits}); else a `RangeError` naming the call and the bound.
 * (Its type and range are `checkPermits`'s of @breakwater/rate-limiter.)
 *
 * @example
 * ```ts
 * checkRepresentable(`RedisRateLimiter 'pg'`, 'acquirePermission(permits)', 1e14, 50, 500); // RangeError
 * ```
 */
export function checkRepresentable(source: string, what: string, permits: number, limit: number, period: number): void {
  if (permits <= limit) return;
  const most = maxPermits(limit, period);
  if (permits > most) {
    throw new RangeError(
      `${source}: ${what} must be at most ${most} (a wait of at most ${MAX_WAIT_MS} ms at ${limit} per ${period} ms, what the store can represent), got ${String(permits)}`,
    );
  }
}
