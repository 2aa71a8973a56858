// @breakwater/observe: what is known of Breakwater's components from outside, by their shape
// (`kind`, `name`, `metrics`; a breaker's `state`, `config`, `stateTransition` and `observeCalls`):
// the Actuator-like `health()` snapshot, and the reader both metrics exporters build on.
// It depends on @breakwater/core only: no policy package is needed to read a policy. Every export of
// health-types.ts, observed.ts and observed-hedge-chaos.ts is public (hence `export *`); the umbrella lists what it takes by name.
export { health } from './health.js';
export * from './health-types.js';
export * from './observed.js';
export * from './observed-hedge-chaos.js';
export {
  AdaptiveLimiterObservation,
  BreakerObservation,
  type CallRecorder,
  type RttRecorder,
  type TransitionCount,
} from './observed-bindings.js';
export { ObservedComponents, type ObservedSnapshot } from './observed-components.js';
export { OBSERVED_SERIES, type ObservedSample, type ObservedSeries } from './observed-series.js';
