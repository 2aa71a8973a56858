export { RateLimiter } from './rate-limiter.js';
export { weightedPolicy, type RateLimiterPolicy } from './weighted-policy.js';
export type { SharedRateLimiter, SharedRateLimiterFactory, SharedRateLimiterHandle, SharedRateLimiterOptions } from './shared.js';
export { RateLimiterRegistry } from './registry.js';
export type { CallOutcome, RateLimiterConfig, ResolvedRateLimiterConfig } from './config.js';
export { RATE_LIMITER_OPTIONS } from './config.js';
export type { RateLimiterEvents, RateLimiterMetrics } from './events.js';
export { initialState, isReserved, nextState, type RateLimiterState } from './state.js';
export { RequestNotPermittedError } from '@breakwater/core';
