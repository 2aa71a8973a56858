export { TimeLimiter } from './time-limiter.js';
export { TimeLimiterRegistry } from './registry.js';
export type { ResolvedTimeLimiterConfig, TimeLimiterConfig } from './config.js';
export { TIME_LIMITER_OPTIONS } from './config.js';
export type { TimeLimiterEvents, TimeLimiterMetrics } from './events.js';
export { TimeoutError } from '@breakwater/core';
