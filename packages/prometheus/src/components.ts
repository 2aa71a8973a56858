// The components the exporter reads, described by their shape (`kind`, `name`, `metrics`, …).
// The reader is @breakwater/observe's (`observed.ts`), shared with @breakwater/opentelemetry; these
// are its types under the names this package has always published.
import type * as observe from '@breakwater/observe';

/**
 * The six states of a breaker, as `breaker.state` names them (lower-cased in the `state` label).
 *
 * @example
 * ```ts
 * const state: BreakerStateName = breaker.state; // 'CLOSED' → state="closed"
 * ```
 */
export type BreakerStateName = observe.ObservedBreakerState;

/**
 * How a breaker's per-call hook classifies a recorded call: the `kind` label of the call histogram.
 *
 * @example
 * ```ts
 * breaker.observeCalls((kind: CallKind, elapsedMs) => log(kind, elapsedMs));
 * ```
 */
export type CallKind = observe.ObservedCallKind;

/**
 * A `stateTransition` event as the exporter reads it: the labels of `_circuitbreaker_transitions_total`.
 *
 * @example
 * ```ts
 * breaker.on('stateTransition', (e: TransitionEvent) => log(`${e.from} → ${e.to} (${e.cause})`));
 * ```
 */
export type TransitionEvent = observe.ObservedTransition;

/**
 * What the exporter reads of a `CircuitBreaker` (`@breakwater/circuit-breaker`).
 *
 * @example
 * ```ts
 * const breaker: CircuitBreakerLike = new CircuitBreaker('pg');
 * ```
 */
export type CircuitBreakerLike = observe.ObservedCircuitBreaker;

/**
 * What the exporter reads of a `Retry` (`@breakwater/retry`).
 *
 * @example
 * ```ts
 * const component: RetryLike = new Retry('pg');
 * ```
 */
export type RetryLike = observe.ObservedRetry;

/**
 * What the exporter reads of a `TimeLimiter` (`@breakwater/time-limiter`).
 *
 * @example
 * ```ts
 * const component: TimeLimiterLike = new TimeLimiter('pg');
 * ```
 */
export type TimeLimiterLike = observe.ObservedTimeLimiter;

/**
 * What the exporter reads of a semaphore `Bulkhead` (`@breakwater/bulkhead`).
 *
 * @example
 * ```ts
 * const component: BulkheadLike = new Bulkhead('pg');
 * ```
 */
export type BulkheadLike = observe.ObservedBulkhead;

/**
 * What the exporter reads of a `PoolBulkhead` or `WorkerPoolBulkhead` (`@breakwater/bulkhead`).
 *
 * @example
 * ```ts
 * const component: PoolBulkheadLike = new PoolBulkhead('cpu');
 * ```
 */
export type PoolBulkheadLike = observe.ObservedPoolBulkhead;

/**
 * What the exporter reads of a `RateLimiter` (`@breakwater/rate-limiter`).
 *
 * @example
 * ```ts
 * const component: RateLimiterLike = new RateLimiter('api');
 * ```
 */
export type RateLimiterLike = observe.ObservedRateLimiter;

/**
 * What the exporter reads of an `AdaptiveLimiter` (`@breakwater/adaptive`).
 *
 * @example
 * ```ts
 * const component: AdaptiveLimiterLike = new AdaptiveLimiter('pg');
 * ```
 */
export type AdaptiveLimiterLike = observe.ObservedAdaptiveLimiter;

/**
 * What the exporter reads of an `AdaptiveThrottle` (`@breakwater/adaptive`).
 *
 * @example
 * ```ts
 * const component: AdaptiveThrottleLike = new AdaptiveThrottle('pg');
 * ```
 */
export type AdaptiveThrottleLike = observe.ObservedThrottle;

/**
 * What the exporter reads of a `Hedge` (`@breakwater/retry`).
 *
 * @example
 * ```ts
 * const component: HedgeLike = new Hedge('search');
 * ```
 */
export type HedgeLike = observe.ObservedHedge;

/**
 * What the exporter reads of a chaos layer (`FaultInjection`, `LatencyInjection`,
 * `OutcomeInjection`, `BehaviorInjection` of `@breakwater/chaos`).
 *
 * @example
 * ```ts
 * const component: ChaosLike = latencyInjection({ latency: '1s', enabled: true, rate: 0.01 });
 * ```
 */
export type ChaosLike = observe.ObservedChaos;

/**
 * Any component the exporter publishes, told apart by its `kind`.
 *
 * @example
 * ```ts
 * const components: ExportedComponent[] = [breaker, retry, timeLimiter, bulkhead, pool, limiter, adaptiveLimiter, throttle, hedge, chaos];
 * for (const c of components) metrics.add(c);
 * ```
 */
export type ExportedComponent = observe.ObservedComponent;

/**
 * What the exporter reads of a registry (core's `Registry` and every kind's registry): its
 * instances now, and its changes.
 *
 * @example
 * ```ts
 * const breakers: RegistryLike<CircuitBreakerLike> = new CircuitBreakerRegistry();
 * ```
 */
export type RegistryLike<I extends ExportedComponent = ExportedComponent> = observe.ObservedRegistry<I>;
