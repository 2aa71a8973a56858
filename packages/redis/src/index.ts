// @breakwater/redis: Breakwater beyond one process (contract: docs/scale-out.md).
export { RedisRateLimiter } from './rate-limiter/redis-rate-limiter.js';
export { REDIS_RATE_LIMITER_OPTIONS, type OnStoreError, type RedisRateLimiterConfig, type ResolvedRedisRateLimiterConfig } from './rate-limiter/config.js';
export type { RedisRateLimiterEvents, RedisRateLimiterMetrics, StoreMode } from './rate-limiter/events.js';
export { StoreUnavailableError } from './rate-limiter/errors.js';
export { MAX_WAIT_MS, maxPermits, RATE_LIMITER_SCRIPT, RATE_LIMITER_SCRIPT_SHA } from './rate-limiter/script.js';
export type { ScriptClient } from './script-runner.js';
export { componentKey, hexName, rateLimiterKey } from './keys.js';
export { RequestNotPermittedError } from '@breakwater/core';
export { RedisBreakerSync } from './breaker-sync/redis-breaker-sync.js';
export type { BreakerSyncClient, BreakerSyncSubscriber, RedisBreakerSyncOptions } from './breaker-sync/config.js';
export type { RedisBreakerSyncEvents } from './breaker-sync/events.js';
