export { systemClock, wallTime, type Clock, type TimerHandle } from './clock.js';
export { VirtualClock } from './virtual-clock.js';
export { parseDuration, type Duration } from './duration.js';
export { closest, ConfigReader, describeValue, didYouMean, isPlainObject, type Range } from './config.js';
export {
  BreakwaterError,
  BulkheadFullError,
  CallNotPermittedError,
  IllegalStateTransitionError,
  MaxRetriesExceededError,
  RequestNotPermittedError,
  ResultRecordedAsFailureError,
  TimeoutError,
  withoutStack,
} from './errors.js';
export { EventPublisher, type AnyEventOf, type EventOf, type Listener, type Observable } from './events.js';
export {
  NEVER_ABORTED,
  ROOT_CONTEXT,
  toContext,
  type CallContext,
  type ExecuteOptions,
  type Outcome,
  type Policy,
  type PolicyFn,
  type PolicyKind,
} from './policy.js';
export { onAbort, sleep } from './abort.js';
export { holdProcess, keepsProcessAlive, releaseProcess } from './keep-alive.js';
export { enterCall, follow, invoke, raceAbort } from './call.js';
export { isArgsAwareLayer, type ArgsAwareLayer, type InnerLayers } from './layer.js';
export { callbackThrew, describeThrown, warnOnce } from './warn.js';
export { errorMatcher, type ErrorClass, type ErrorPredicate } from './predicates.js';
export { Registry, type RegistryEvents, type RegistryOptions } from './registry.js';
export { LinkedQueue, type Linked } from './linked-queue.js';
export { WaitQueue, type Waiter, type WaitQueueOptions } from './wait-queue.js';
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
