import { ConfigReader, describeValue, type Duration } from '@breakwater/core';
import { REDIS_RATE_LIMITER_OPTIONS, type RedisRateLimiterConfig } from './config.js';

/** Checks a number of permits given at run time; `what` names the argument, `source` the limiter. */
export function checkPermits(source: string, what: string, permits: number): void {
  if (permits === 1) return;
  if (typeof permits !== 'number') throw new TypeError(`${source}: ${what} must be a number, got ${describeValue(permits)}`);
  if (!Number.isSafeInteger(permits) || permits < 1) throw new RangeError(`${source}: ${what} must be an integer >= 1, got ${String(permits)}`);
}

/** Checks a value given to `changeLimitForPeriod` / `changeTimeoutDuration`. */
export function resolveChange(name: string, key: 'limitForPeriod' | 'timeoutDuration', value: number | Duration): number {
  const read = new ConfigReader<Partial<RedisRateLimiterConfig>>('RedisRateLimiter', name, { [key]: value }, REDIS_RATE_LIMITER_OPTIONS);
  if (value === undefined) read.fail(key, key === 'limitForPeriod' ? 'an integer >= 1' : 'a duration >= 0', value, 'type');
  return key === 'limitForPeriod' ? read.number('limitForPeriod', 0, { integer: true, gte: 1 }) : read.duration('timeoutDuration', 0, { gte: 0 });
}
