export { decorate, Pipeline, type AdaptiveLimiterLike, type RateLimiterLike, type WithAdaptiveLimiterOptions, type WithFallbackOptions } from './pipeline.js';
export {
  Fallback,
  type FallbackEvents,
  type FallbackHandler,
  type FallbackMetrics,
  type FallbackOn,
  type FallbackOptions,
} from './fallback.js';
export { resilient, type FallbackFits, type ResilientDecorator, type ResilientMethod, type ResilientPolicy } from './resilient.js';
export { currentCallContext } from './resilient-context.js';
export type { PipelineWarning, PipelineWarningCode } from './warnings.js';
export type { CallContext, ExecuteOptions, Policy, PolicyFn } from '@breakwater/core';
