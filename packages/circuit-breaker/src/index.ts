export { CircuitBreaker } from './circuit-breaker.js';
export { CircuitBreakerRegistry } from './registry.js';
export type { CircuitBreakerConfig, ResolvedCircuitBreakerConfig } from './config.js';
export { CIRCUIT_BREAKER_OPTIONS } from './config.js';
export type { CallObserver, CircuitBreakerEvents, TransitionCause, TransitionOptions } from './events.js';
export type { CircuitBreakerMetrics } from './metrics.js';
export type { CircuitBreakerSnapshot, MetricsSnapshot, SnapshotOptions, TimeBucketSnapshot, WindowSnapshot } from './snapshot.js';
export type { RestoreOptions } from './restore.js';
export { isLegalTransition, STATES, type CircuitBreakerStateName } from './states.js';
export { Outcome } from './outcome.js';
export { CountWindow } from './windows/count-window.js';
export { TimeWindow, type TimeBucket } from './windows/time-window.js';
export type { SlidingWindow, WindowTotals } from './windows/window.js';
export {
  CallNotPermittedError,
  IllegalStateTransitionError,
  ResultRecordedAsFailureError,
  TimeoutError,
} from '@breakwater/core';
