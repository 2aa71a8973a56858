export { decorate, Pipeline, type RateLimiterLike, type WithFallbackOptions } from './pipeline.js';
export {
  Fallback,
  type FallbackEvents,
  type FallbackHandler,
  type FallbackMetrics,
  type FallbackOn,
  type FallbackOptions,
} from './fallback.js';
export type { PipelineWarning, PipelineWarningCode } from './kinds.js';
export type { CallContext, ExecuteOptions, Policy, PolicyFn } from '@breakwater/core';
