// @breakwater/adaptive: limits that find themselves (contract: docs/adaptive.md).
export { AdaptiveLimiter } from './adaptive-limiter.js';
export type { AdaptiveCallOptions } from './call-options.js';
export { AdaptiveThrottle, type AdaptiveThrottleToken } from './adaptive-throttle.js';
export { AdaptiveLimiterRegistry, AdaptiveThrottleRegistry } from './registry.js';
export { ADAPTIVE_LIMITER_OPTIONS, type AdaptiveLimiterConfig, type ResolvedAdaptiveLimiterConfig } from './config.js';
export { ADAPTIVE_THROTTLE_OPTIONS, type AdaptiveThrottleConfig, type ResolvedAdaptiveThrottleConfig } from './throttle-config.js';
export type {
  AdaptiveLimiterEvents,
  AdaptiveLimiterMetrics,
  AdaptivePartitionMetrics,
  AdaptiveThrottleEvents,
  AdaptiveThrottleMetrics,
} from './events.js';
export type { AdaptiveToken } from './token.js';
export type { AdaptiveCallKind, AdaptiveCallObserver } from './call-observers.js';
export type { AdaptivePartitionPolicy } from './partition-view.js';
export type { AlgorithmName, WindowOptions } from './named-algorithms.js';
export { guaranteedSlots } from './partitions.js';
export {
  aimd,
  gradient2,
  vegas,
  windowed,
  type AimdOptions,
  type Gradient2Options,
  type LimitAlgorithm,
  type LimitSample,
  type VegasOptions,
  type WindowedOptions,
} from './limit/index.js';
export { RequestNotPermittedError, TimeoutError } from '@breakwater/core';
