// The user's surface: time, durations, configuration checks, errors, events, the `Policy` types,
// abortable waits, predicates and the `Registry` (`health()` and the exporters' reader are
// `@breakwater/observe`). What Breakwater's own policies are built with
// (the call protocol, process hold, wait queues, warning helpers) is at `@breakwater/core/internal`.
export { systemClock, wallTime, type Clock, type TimerHandle } from './clock.js';
export { VirtualClock } from './virtual-clock.js';
export { parseDuration, type Duration } from './duration.js';
export { ConfigReader, type Range } from './config.js';
export {
  BreakwaterError,
  BulkheadFullError,
  CallNotPermittedError,
  IllegalStateTransitionError,
  MaxRetriesExceededError,
  RequestNotPermittedError,
  ResultRecordedAsFailureError,
  TimeoutError,
} from './errors.js';
export { EventPublisher, type AnyEventOf, type EventOf, type Listener, type Observable } from './events.js';
export { toContext, type CallContext, type ExecuteOptions, type Outcome, type Policy, type PolicyFn, type PolicyKind } from './policy.js';
export { onAbort, sleep } from './abort.js';
export type { ArgsAwareLayer, InnerLayers } from './layer.js';
export { errorMatcher, type ErrorClass, type ErrorPredicate } from './predicates.js';
export { Registry, type RegistryEvents, type RegistryOptions } from './registry.js';
