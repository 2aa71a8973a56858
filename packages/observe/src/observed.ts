// What an exporter reads of Breakwater's components, by their shape (`kind`, `name`, `metrics`, a
// breaker's `state`, `stateTransition` and `observeCalls`) — core knows no policy package, and an
// exporter built on this (`@breakwater/prometheus`, `@breakwater/opentelemetry`) never names one,
// so a user installs only the policies they use. The values each series takes live here once.

import type { ObservedChaos, ObservedHedge } from './observed-hedge-chaos.js';

/**
 * The six states of a breaker, as `breaker.state` names them (lower-cased in a `state` label).
 *
 * @example
 * ```ts
 * const state: ObservedBreakerState = breaker.state; // 'CLOSED' → state="closed"
 * ```
 */
export type ObservedBreakerState = 'CLOSED' | 'OPEN' | 'HALF_OPEN' | 'DISABLED' | 'FORCED_OPEN' | 'METRICS_ONLY';

/**
 * How a breaker's per-call hook classifies a recorded call: the `kind` of the call histogram.
 *
 * @example
 * ```ts
 * breaker.observeCalls((kind: ObservedCallKind, elapsedMs) => log(kind, elapsedMs));
 * ```
 */
export type ObservedCallKind = 'successful' | 'failed' | 'ignored';

/**
 * A `stateTransition` event as an exporter reads it: the labels of `_circuitbreaker_transitions_total`.
 *
 * @example
 * ```ts
 * breaker.on('stateTransition', (e: ObservedTransition) => log(`${e.from} → ${e.to} (${e.cause})`));
 * ```
 */
export interface ObservedTransition {
  readonly from: ObservedBreakerState;
  readonly to: ObservedBreakerState;
  /** Which path changed the state (`@breakwater/circuit-breaker` sets it on every transition). */
  readonly cause?: string;
}

/**
 * What an exporter reads of a `CircuitBreaker` (`@breakwater/circuit-breaker`).
 *
 * @example
 * ```ts
 * const breaker: ObservedCircuitBreaker = new CircuitBreaker('pg');
 * ```
 */
export interface ObservedCircuitBreaker {
  readonly kind: 'circuitBreaker';
  readonly name: string;
  readonly state: ObservedBreakerState;
  readonly metrics: {
    readonly failureRate: number;
    readonly slowCallRate: number;
    readonly numberOfFailedCalls: number;
    readonly numberOfSuccessfulCalls: number;
    readonly numberOfSlowSuccessfulCalls: number;
    readonly numberOfSlowFailedCalls: number;
    readonly numberOfNotPermittedCalls: number;
  };
  // `any`: a breaker's `on` is generic over its event types; an exporter reads a ObservedTransition.
  // biome-ignore lint/suspicious/noExplicitAny: as said above, any breaker's listener type must be assignable
  on(type: 'stateTransition', listener: (event: any) => void): () => void;
  /** The per-call hook (no event object); a breaker without it exports no call histogram. */
  observeCalls?(observer: (kind: ObservedCallKind, elapsedMs: number) => void): () => void;
}

/**
 * What an exporter reads of a `Retry` (`@breakwater/retry`).
 *
 * @example
 * ```ts
 * const component: ObservedRetry = new Retry('pg');
 * ```
 */
export interface ObservedRetry {
  readonly kind: 'retry';
  readonly name: string;
  readonly metrics: {
    readonly numberOfSuccessfulCallsWithoutRetryAttempt: number;
    readonly numberOfSuccessfulCallsWithRetryAttempt: number;
    readonly numberOfFailedCallsWithoutRetryAttempt: number;
    readonly numberOfFailedCallsWithRetryAttempt: number;
  };
}

/**
 * What an exporter reads of a `TimeLimiter` (`@breakwater/time-limiter`).
 *
 * @example
 * ```ts
 * const component: ObservedTimeLimiter = new TimeLimiter('pg');
 * ```
 */
export interface ObservedTimeLimiter {
  readonly kind: 'timeLimiter';
  readonly name: string;
  readonly metrics: { readonly numberOfSuccessfulCalls: number; readonly numberOfFailedCalls: number; readonly numberOfTimeouts: number };
}

/**
 * What an exporter reads of a semaphore `Bulkhead` (`@breakwater/bulkhead`).
 *
 * @example
 * ```ts
 * const component: ObservedBulkhead = new Bulkhead('pg');
 * ```
 */
export interface ObservedBulkhead {
  readonly kind: 'bulkhead';
  readonly name: string;
  readonly metrics: { readonly availableConcurrentCalls: number; readonly maxAllowedConcurrentCalls: number };
}

/**
 * What an exporter reads of a `PoolBulkhead` or `WorkerPoolBulkhead` (`@breakwater/bulkhead`).
 *
 * @example
 * ```ts
 * const component: ObservedPoolBulkhead = new PoolBulkhead('cpu');
 * ```
 */
export interface ObservedPoolBulkhead {
  readonly kind: 'poolBulkhead';
  readonly name: string;
  readonly metrics: {
    readonly coreThreadPoolSize: number;
    readonly threadPoolSize: number;
    readonly maximumThreadPoolSize: number;
    readonly queueDepth: number;
    readonly queueCapacity: number;
    readonly activeCount: number;
  };
}

/**
 * What an exporter reads of a `RateLimiter` (`@breakwater/rate-limiter`).
 *
 * @example
 * ```ts
 * const component: ObservedRateLimiter = new RateLimiter('api');
 * ```
 */
export interface ObservedRateLimiter {
  readonly kind: 'rateLimiter';
  readonly name: string;
  readonly metrics: { readonly availablePermissions: number; readonly numberOfWaitingCalls: number };
}

/**
 * A `callFinished` event of an adaptive limiter as an exporter reads it: the round trip the
 * algorithm was fed, in ms (`ignored`: the call fed no sample, and is not in the histogram).
 *
 * @example
 * ```ts
 * limiter.on('callFinished', (e: ObservedAdaptiveCall) => { if (!e.ignored) histogram.record(e.rtt / 1000); });
 * ```
 */
export interface ObservedAdaptiveCall {
  readonly rtt: number;
  readonly ignored: boolean;
}

/**
 * What an exporter reads of an `AdaptiveLimiter` (`@breakwater/adaptive`): its limit, its calls
 * in flight and waiting, its refusals, and each call's round trip from its `callFinished` events.
 *
 * @example
 * ```ts
 * const component: ObservedAdaptiveLimiter = new AdaptiveLimiter('pg');
 * ```
 */
export interface ObservedAdaptiveLimiter {
  readonly kind: 'adaptiveLimiter';
  readonly name: string;
  readonly metrics: { readonly limit: number; readonly inFlight: number; readonly waiting: number; readonly rejected: number };
  // `any`: a limiter's `on` is generic over its event types; an exporter reads an ObservedAdaptiveCall.
  // biome-ignore lint/suspicious/noExplicitAny: as said above, any limiter's listener type must be assignable
  on(type: 'callFinished', listener: (event: any) => void): () => void;
  /**
   * A per-call hook with no event object (as a breaker's `observeCalls`): when the limiter has
   * it, an exporter binds to it instead of `callFinished`, whose every event reads the clock twice.
   */
  observeCalls?(observer: (kind: ObservedAdaptiveCallKind, rttMs: number) => void): () => void;
}

/**
 * How an adaptive limiter's per-call hook classifies a finished call: a sample (`successful`), a
 * drop (`dropped`), or a call that fed the algorithm nothing (`ignored`).
 *
 * @example
 * ```ts
 * limiter.observeCalls?.((kind: ObservedAdaptiveCallKind, rttMs) => { if (kind !== 'ignored') histogram.record(rttMs / 1000); });
 * ```
 */
export type ObservedAdaptiveCallKind = 'successful' | 'dropped' | 'ignored';

/**
 * What an exporter reads of an `AdaptiveThrottle` (`@breakwater/adaptive`): its window's counts
 * and the probability of a local rejection now.
 *
 * @example
 * ```ts
 * const component: ObservedThrottle = new AdaptiveThrottle('pg');
 * ```
 */
export interface ObservedThrottle {
  readonly kind: 'throttle';
  readonly name: string;
  readonly metrics: { readonly requests: number; readonly accepts: number; readonly rejectRatio: number };
}

/**
 * Any component an exporter publishes, told apart by its `kind`.
 *
 * @example
 * ```ts
 * const components: ObservedComponent[] = [breaker, retry, timeLimiter, bulkhead, pool, limiter, adaptiveLimiter, throttle, hedge, chaos];
 * for (const c of components) metrics.add(c);
 * ```
 */
export type ObservedComponent =
  | ObservedCircuitBreaker
  | ObservedRetry
  | ObservedTimeLimiter
  | ObservedBulkhead
  | ObservedPoolBulkhead
  | ObservedRateLimiter
  | ObservedAdaptiveLimiter
  | ObservedThrottle
  | ObservedHedge
  | ObservedChaos;

/**
 * What an exporter reads of a registry (core's `Registry` and every kind's registry): its
 * instances now, and its changes.
 *
 * @example
 * ```ts
 * const breakers: ObservedRegistry<ObservedCircuitBreaker> = new CircuitBreakerRegistry();
 * ```
 */
export interface ObservedRegistry<I extends ObservedComponent = ObservedComponent> {
  all(): I[];
  // `any`: a registry's `on` is generic over its event types; an exporter reads
  // `{ instance }` of 'added' and 'removed', `{ old, instance }` of 'replaced'.
  // biome-ignore lint/suspicious/noExplicitAny: as said above, any registry's listener type must be assignable
  on(type: 'added' | 'removed' | 'replaced', listener: (event: any) => void): () => void;
}

const KINDS = new Set(['circuitBreaker', 'retry', 'timeLimiter', 'bulkhead', 'poolBulkhead', 'rateLimiter', 'adaptiveLimiter', 'throttle', 'hedge', 'chaos']);

/**
 * Whether `x` is a component of one of the ten exported kinds (a `kind` among them and a string `name`).
 *
 * @example
 * ```ts
 * isObservedComponent(new CircuitBreaker('pg')); // true
 * isObservedComponent(new CircuitBreakerRegistry()); // false
 * ```
 */
export function isObservedComponent(x: unknown): x is ObservedComponent {
  return typeof x === 'object' && x !== null && KINDS.has((x as { kind?: unknown }).kind as string) && typeof (x as { name?: unknown }).name === 'string';
}

/**
 * Whether `x` is a registry an exporter can bind: it has `all()` and `on()`.
 *
 * @example
 * ```ts
 * isObservedRegistry(new CircuitBreakerRegistry()); // true
 * ```
 */
export function isObservedRegistry(x: unknown): x is ObservedRegistry {
  return typeof x === 'object' && x !== null && typeof (x as ObservedRegistry).all === 'function' && typeof (x as ObservedRegistry).on === 'function';
}

/**
 * The states in the order a `state` series lists them.
 *
 * @example
 * ```ts
 * for (const s of BREAKER_STATES) out.push({ labels: { name, state: stateLabel(s) }, value: s === breaker.state ? 1 : 0 });
 * ```
 */
export const BREAKER_STATES: readonly ObservedBreakerState[] = ['CLOSED', 'OPEN', 'HALF_OPEN', 'DISABLED', 'FORCED_OPEN', 'METRICS_ONLY'];

/**
 * The call kinds in the order a call histogram lists them.
 *
 * @example
 * ```ts
 * for (const kind of CALL_KINDS) attributes[kind] = { name: breaker.name, kind };
 * ```
 */
export const CALL_KINDS: readonly ObservedCallKind[] = ['successful', 'failed', 'ignored'];

/**
 * The lower-case label value of a state, as Resilience4j writes it.
 *
 * @example
 * ```ts
 * stateLabel('HALF_OPEN'); // 'half_open'
 * ```
 */
export const stateLabel = (state: ObservedBreakerState): string => state.toLowerCase();

export { labelValue } from './observed-label.js';
