// @breakwater/observe: what is known of Breakwater's components from outside, by their shape
// (`kind`, `name`, `metrics`; a breaker's `state`, `config`, `stateTransition` and `observeCalls`):
// the Actuator-like `health()` snapshot, and the reader both metrics exporters build on.
// It depends on @breakwater/core only: no policy package is needed to read a policy.
export {
  health,
  type BulkheadHealth,
  type CircuitBreakerHealth,
  type ComponentStatus,
  type CountersHealth,
  type HealthSnapshot,
  type HealthStatus,
  type OtherComponentHealth,
  type PoolBulkheadHealth,
  type RateLimiterHealth,
} from './health.js';
export {
  BREAKER_STATES,
  CALL_KINDS,
  isObservedComponent,
  isObservedRegistry,
  labelValue,
  stateLabel,
  type ObservedBreakerState,
  type ObservedBulkhead,
  type ObservedCallKind,
  type ObservedCircuitBreaker,
  type ObservedComponent,
  type ObservedPoolBulkhead,
  type ObservedRateLimiter,
  type ObservedRegistry,
  type ObservedRetry,
  type ObservedTimeLimiter,
  type ObservedTransition,
} from './observed.js';
export { BreakerObservation, ObservedComponents, type CallRecorder, type ObservedSnapshot, type TransitionCount } from './observed-components.js';
export { OBSERVED_SERIES, type ObservedSample, type ObservedSeries } from './observed-series.js';
