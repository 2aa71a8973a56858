export { decorate, Pipeline, type AdaptiveLimiterLike, type RateLimiterLike, type WithAdaptiveLimiterOptions, type WithFallbackOptions } from './pipeline.js';
export {
  Fallback,
  type FallbackEvents,
  type FallbackHandler,
  type FallbackMetrics,
  type FallbackOn,
  type FallbackOptions,
} from './fallback.js';
export type { PipelineWarning, PipelineWarningCode } from './warnings.js';
export type { CallContext, ExecuteOptions, Policy, PolicyFn } from '@breakwater/core';
