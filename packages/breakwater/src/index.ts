/**
 * Breakwater: composable resilience for TypeScript. This umbrella re-exports what a user of
 * Breakwater imports — the policies and their registries, the builder, the errors, the clocks,
 * `fromConfig` (`@breakwater/spring-config`), `health`, and the types a user writes (configs,
 * events, metrics, the `Policy` interface) — so one import does:
 *
 * @example
 * ```ts
 * import { decorate, Retry, CircuitBreaker, TimeLimiter } from 'breakwater';
 * const pay = decorate().withRetry(new Retry('pg')).withCircuitBreaker(new CircuitBreaker('pg')).withTimeLimiter(new TimeLimiter('pg'));
 * ```
 *
 * The list is written out (README: "What `breakwater` exports"): what a policy author builds
 * with (the call protocol, wait queues, option tables, windows, the pure cores) stays in its
 * package (`@breakwater/core/internal`, …). The test helpers (which need fast-check) are at
 * `breakwater/testing`.
 * @packageDocumentation
 */

// @breakwater/core: the clocks, durations, every error, the generic registry, the Policy
// interface a layer of your own implements, the types of predicates and event listeners.
export {
  BreakwaterError,
  BulkheadFullError,
  CallNotPermittedError,
  IllegalStateTransitionError,
  MaxRetriesExceededError,
  parseDuration,
  Registry,
  RequestNotPermittedError,
  ResultRecordedAsFailureError,
  systemClock,
  TimeoutError,
  VirtualClock,
  type AnyEventOf,
  type CallContext,
  type Clock,
  type Duration,
  type ErrorClass,
  type ErrorPredicate,
  type EventOf,
  type ExecuteOptions,
  type Listener,
  type Observable,
  type Policy,
  type PolicyFn,
  type RegistryEvents,
  type RegistryOptions,
  type TimerHandle,
} from '@breakwater/core';

// @breakwater/observe: the health snapshot for a /health endpoint or a readiness probe.
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
} from '@breakwater/observe';

// @breakwater/circuit-breaker: the breaker, its registry, config, events, metrics, snapshots.
export {
  CircuitBreaker,
  CircuitBreakerRegistry,
  type CircuitBreakerConfig,
  type CircuitBreakerEvents,
  type CircuitBreakerMetrics,
  type CircuitBreakerSnapshot,
  type CircuitBreakerStateName,
  type ResolvedCircuitBreakerConfig,
  type RestoreOptions,
  type SnapshotOptions,
  type TransitionCause,
  type TransitionOptions,
} from '@breakwater/circuit-breaker';

// @breakwater/time-limiter
export {
  TimeLimiter,
  TimeLimiterRegistry,
  type ResolvedTimeLimiterConfig,
  type TimeLimiterConfig,
  type TimeLimiterEvents,
  type TimeLimiterMetrics,
} from '@breakwater/time-limiter';

// @breakwater/retry: the retry, the hedge, their registries, the retry budget, the interval functions.
export {
  Hedge,
  HedgeRegistry,
  IntervalFunction,
  Retry,
  RetryBudget,
  RetryRegistry,
  type HedgeConfig,
  type HedgeEvents,
  type HedgeMetrics,
  type HedgeOutcome,
  type HedgePercentileDelay,
  type IntervalBiFunction,
  type IntervalState,
  type ResolvedHedgeConfig,
  type ResolvedRetryConfig,
  type RetryBudgetConfig,
  type RetryBudgetMetrics,
  type RetryConfig,
  type RetryEvents,
  type RetryMetrics,
  type RetryOutcome,
} from '@breakwater/retry';

// @breakwater/bulkhead: the semaphore bulkhead, the pool bulkhead, the worker-thread pool, their registries.
export {
  Bulkhead,
  BulkheadRegistry,
  PoolBulkhead,
  PoolBulkheadRegistry,
  WorkerPoolBulkhead,
  type BulkheadConfig,
  type BulkheadConfigChange,
  type BulkheadEvents,
  type BulkheadMetrics,
  type PoolBulkheadConfig,
  type PoolBulkheadMetrics,
  type PoolCloseOptions,
  type PoolLimits,
  type ResolvedBulkheadConfig,
  type ResolvedPoolConfig,
  type ResolvedWorkerPoolBulkheadConfig,
  type WorkerPoolBulkheadConfig,
  type WorkerRunOptions,
} from '@breakwater/bulkhead';

// @breakwater/rate-limiter: the rate limiter, its registry, the limiter shared by worker threads.
export {
  RateLimiter,
  RateLimiterRegistry,
  type CallOutcome,
  type RateLimiterConfig,
  type RateLimiterEvents,
  type RateLimiterMetrics,
  type RateLimiterPolicy,
  type ResolvedRateLimiterConfig,
  type SharedRateLimiter,
  type SharedRateLimiterFactory,
  type SharedRateLimiterHandle,
  type SharedRateLimiterOptions,
} from '@breakwater/rate-limiter';

// @breakwater/adaptive: the adaptive concurrency limiter, the client-side throttle, the limit algorithms.
export {
  AdaptiveLimiter,
  AdaptiveLimiterRegistry,
  AdaptiveThrottle,
  AdaptiveThrottleRegistry,
  aimd,
  gradient2,
  vegas,
  windowed,
  type AdaptiveCallOptions,
  type AdaptiveLimiterConfig,
  type AdaptiveLimiterEvents,
  type AdaptiveLimiterMetrics,
  type AdaptivePartitionMetrics,
  type AdaptivePartitionPolicy,
  type AdaptiveThrottleConfig,
  type AdaptiveThrottleEvents,
  type AdaptiveThrottleMetrics,
  type AdaptiveThrottleToken,
  type AdaptiveToken,
  type AimdOptions,
  type AlgorithmName,
  type Gradient2Options,
  type LimitAlgorithm,
  type LimitSample,
  type ResolvedAdaptiveLimiterConfig,
  type ResolvedAdaptiveThrottleConfig,
  type VegasOptions,
  type WindowedOptions,
  type WindowOptions,
} from '@breakwater/adaptive';

// @breakwater/chaos: fault, latency, outcome and behaviour injection (Polly Simmy's strategies), off unless enabled.
export {
  BehaviorInjection,
  behaviorInjection,
  FaultInjection,
  faultInjection,
  LatencyInjection,
  latencyInjection,
  OutcomeInjection,
  outcomeInjection,
  type BehaviorInjectionConfig,
  type Chaos,
  type ChaosEvents,
  type ChaosInjected,
  type ChaosMetrics,
  type ChaosName,
  type ChaosOptions,
  type ChaosStrategyName,
  type FaultInjectionConfig,
  type LatencyInjectionConfig,
  type OutcomeInjectionConfig,
} from '@breakwater/chaos';

// @breakwater/decorators: the pipeline builder, the fallback, the standard method decorator.
export {
  currentCallContext,
  decorate,
  Fallback,
  Pipeline,
  resilient,
  type AdaptiveLimiterLike,
  type FallbackEvents,
  type FallbackHandler,
  type FallbackMetrics,
  type FallbackOn,
  type FallbackFits,
  type FallbackOptions,
  type PipelineWarning,
  type PipelineWarningCode,
  type RateLimiterLike,
  type ResilientDecorator,
  type ResilientMethod,
  type ResilientPolicy,
  type WithAdaptiveLimiterOptions,
  type WithFallbackOptions,
} from '@breakwater/decorators';

// @breakwater/spring-config: a Resilience4j Spring Boot application.yml → registries, and the pipeline of its aspects.
export {
  fromConfig,
  type AspectKind,
  type AspectOrderEntry,
  type BreakwaterRegistries,
  type FromConfigNote,
  type FromConfigOptions,
  type SpringPipelineOptions,
} from '@breakwater/spring-config';
