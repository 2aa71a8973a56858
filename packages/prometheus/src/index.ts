export { PrometheusMetrics, type PrometheusMetricsOptions } from './prometheus-metrics.js';
export type {
  AdaptiveLimiterLike,
  AdaptiveThrottleLike,
  BreakerStateName,
  BulkheadLike,
  CallKind,
  ChaosLike,
  CircuitBreakerLike,
  ExportedComponent,
  HedgeLike,
  PoolBulkheadLike,
  RateLimiterLike,
  RegistryLike,
  RetryLike,
  TimeLimiterLike,
  TransitionEvent,
} from './components.js';
