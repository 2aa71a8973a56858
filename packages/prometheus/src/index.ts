export { PrometheusMetrics, type PrometheusMetricsOptions } from './prometheus-metrics.js';
export type {
  AdaptiveLimiterLike,
  AdaptiveThrottleLike,
  BreakerStateName,
  BulkheadLike,
  CallKind,
  CircuitBreakerLike,
  ExportedComponent,
  PoolBulkheadLike,
  RateLimiterLike,
  RegistryLike,
  RetryLike,
  TimeLimiterLike,
  TransitionEvent,
} from './components.js';
