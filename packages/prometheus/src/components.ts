// The components the exporter reads, described by their shape (`kind`, `name`, `metrics`, …)
// rather than imported from their packages: a user installs only the policies they use, and
// this package's types never name a policy package.

/**
 * The six states of a breaker, as `breaker.state` names them (lower-cased in the `state` label).
 *
 * @example
 * ```ts
 * const state: BreakerStateName = breaker.state; // 'CLOSED' → state="closed"
 * ```
 */
export type BreakerStateName = 'CLOSED' | 'OPEN' | 'HALF_OPEN' | 'DISABLED' | 'FORCED_OPEN' | 'METRICS_ONLY';

/**
 * How a breaker's per-call hook classifies a recorded call: the `kind` label of the call histogram.
 *
 * @example
 * ```ts
 * breaker.observeCalls((kind: CallKind, elapsedMs) => log(kind, elapsedMs));
 * ```
 */
export type CallKind = 'successful' | 'failed' | 'ignored';

/**
 * A `stateTransition` event as the exporter reads it: the labels of `_circuitbreaker_transitions_total`.
 *
 * @example
 * ```ts
 * breaker.on('stateTransition', (e: TransitionEvent) => log(`${e.from} → ${e.to} (${e.cause})`));
 * ```
 */
export interface TransitionEvent {
  readonly from: BreakerStateName;
  readonly to: BreakerStateName;
  /** Which path changed the state (`@breakwater/circuit-breaker` sets it on every transition). */
  readonly cause?: string;
}

/**
 * What the exporter reads of a `CircuitBreaker` (`@breakwater/circuit-breaker`).
 *
 * @example
 * ```ts
 * const breaker: CircuitBreakerLike = new CircuitBreaker('pg');
 * ```
 */
export interface CircuitBreakerLike {
  readonly kind: 'circuitBreaker';
  readonly name: string;
  readonly state: BreakerStateName;
  readonly metrics: {
    readonly failureRate: number;
    readonly slowCallRate: number;
    readonly numberOfFailedCalls: number;
    readonly numberOfSuccessfulCalls: number;
    readonly numberOfSlowSuccessfulCalls: number;
    readonly numberOfSlowFailedCalls: number;
    readonly numberOfNotPermittedCalls: number;
  };
  // `any`: a breaker's `on` is generic over its event types; the exporter reads a TransitionEvent.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on(type: 'stateTransition', listener: (event: any) => void): () => void;
  /** The per-call hook (no event object); a breaker without it exports no call histogram. */
  observeCalls?(observer: (kind: CallKind, elapsedMs: number) => void): () => void;
}

/**
 * What the exporter reads of a `Retry` (`@breakwater/retry`).
 *
 * @example
 * ```ts
 * const component: RetryLike = new Retry('pg');
 * ```
 */
export interface RetryLike {
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
 * What the exporter reads of a `TimeLimiter` (`@breakwater/time-limiter`).
 *
 * @example
 * ```ts
 * const component: TimeLimiterLike = new TimeLimiter('pg');
 * ```
 */
export interface TimeLimiterLike {
  readonly kind: 'timeLimiter';
  readonly name: string;
  readonly metrics: { readonly numberOfSuccessfulCalls: number; readonly numberOfFailedCalls: number; readonly numberOfTimeouts: number };
}

/**
 * What the exporter reads of a semaphore `Bulkhead` (`@breakwater/bulkhead`).
 *
 * @example
 * ```ts
 * const component: BulkheadLike = new Bulkhead('pg');
 * ```
 */
export interface BulkheadLike {
  readonly kind: 'bulkhead';
  readonly name: string;
  readonly metrics: { readonly availableConcurrentCalls: number; readonly maxAllowedConcurrentCalls: number };
}

/**
 * What the exporter reads of a `PoolBulkhead` or `WorkerPoolBulkhead` (`@breakwater/bulkhead`).
 *
 * @example
 * ```ts
 * const component: PoolBulkheadLike = new PoolBulkhead('cpu');
 * ```
 */
export interface PoolBulkheadLike {
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
 * What the exporter reads of a `RateLimiter` (`@breakwater/rate-limiter`).
 *
 * @example
 * ```ts
 * const component: RateLimiterLike = new RateLimiter('api');
 * ```
 */
export interface RateLimiterLike {
  readonly kind: 'rateLimiter';
  readonly name: string;
  readonly metrics: { readonly availablePermissions: number; readonly numberOfWaitingCalls: number };
}

/**
 * Any component the exporter publishes, told apart by its `kind`.
 *
 * @example
 * ```ts
 * const components: ExportedComponent[] = [breaker, retry, timeLimiter, bulkhead, pool, limiter];
 * for (const c of components) metrics.add(c);
 * ```
 */
export type ExportedComponent = CircuitBreakerLike | RetryLike | TimeLimiterLike | BulkheadLike | PoolBulkheadLike | RateLimiterLike;

/**
 * What the exporter reads of a registry (core's `Registry` and every kind's registry): its
 * instances now, and its changes.
 *
 * @example
 * ```ts
 * const breakers: RegistryLike<CircuitBreakerLike> = new CircuitBreakerRegistry();
 * ```
 */
export interface RegistryLike<I extends ExportedComponent = ExportedComponent> {
  all(): I[];
  // `any`: a registry's `on` is generic over its event types; the exporter reads
  // `{ instance }` of 'added' and 'removed', `{ old, instance }` of 'replaced'.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on(type: 'added' | 'removed' | 'replaced', listener: (event: any) => void): () => void;
}

const KINDS = new Set(['circuitBreaker', 'retry', 'timeLimiter', 'bulkhead', 'poolBulkhead', 'rateLimiter']);

/** A component of one of the six kinds. */
export function isComponent(x: unknown): x is ExportedComponent {
  return typeof x === 'object' && x !== null && KINDS.has((x as { kind?: unknown }).kind as string) && typeof (x as { name?: unknown }).name === 'string';
}

/** A registry: `all()` and `on()`. */
export function isRegistry(x: unknown): x is RegistryLike {
  return typeof x === 'object' && x !== null && typeof (x as RegistryLike).all === 'function' && typeof (x as RegistryLike).on === 'function';
}
