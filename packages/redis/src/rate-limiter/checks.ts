import { ConfigReader, type Duration } from '@breakwater/core';
import { REDIS_RATE_LIMITER_OPTIONS, type RedisRateLimiterConfig } from './config.js';

/** Checks a value given to `changeLimitForPeriod` / `changeTimeoutDuration`. */
export function resolveChange(name: string, key: 'limitForPeriod' | 'timeoutDuration', value: number | Duration): number {
  const read = new ConfigReader<Partial<RedisRateLimiterConfig>>('RedisRateLimiter', name, { [key]: value }, REDIS_RATE_LIMITER_OPTIONS);
  if (value === undefined) read.fail(key, key === 'limitForPeriod' ? 'an integer >= 1' : 'a duration >= 0', value, 'type');
  return key === 'limitForPeriod' ? read.number('limitForPeriod', 0, { integer: true, gte: 1 }) : read.duration('timeoutDuration', 0, { gte: 0 });
}
