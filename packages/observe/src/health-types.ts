// The shape of a `health()` snapshot (`health.ts`): plain, JSON-safe data, one type per category.

/**
 * The overall status of a `health()` snapshot: `DOWN` only when a circuit breaker that opted in
 * with `allowHealthIndicatorToFail: true` is OPEN or FORCED_OPEN; `DEGRADED` when any component
 * is not `UP` (an OPEN or HALF_OPEN breaker, a full bulkhead, a component that could not be
 * read); else `UP` (also with nothing to judge). An open breaker alone never makes it `DOWN`: a
 * readiness probe must not pull every instance because a dependency is down.
 *
 * @example
 * ```ts
 * const status: HealthStatus = health(breakers, bulkheads).status;
 * response.statusCode = status === 'DOWN' ? 503 : 200; // DEGRADED is 200
 * ```
 */
export type HealthStatus = 'UP' | 'DEGRADED' | 'DOWN';

/**
 * One component's status. A breaker: CLOSED, METRICS_ONLY, DISABLED `UP`; OPEN and FORCED_OPEN
 * `CIRCUIT_OPEN` (`DOWN` when it opted in with `allowHealthIndicatorToFail: true`); HALF_OPEN
 * `CIRCUIT_HALF_OPEN` (Resilience4j's names). A full bulkhead or a saturated rate limiter is
 * `UNKNOWN`; so is a component that could not be read (its entry then has a `reason`); everything
 * else `UP`.
 *
 * @example
 * ```ts
 * const status: ComponentStatus = health(breaker).components.circuitBreakers['pg']!.status; // 'CIRCUIT_OPEN'
 * ```
 */
export type ComponentStatus = 'UP' | 'UNKNOWN' | 'CIRCUIT_OPEN' | 'CIRCUIT_HALF_OPEN' | 'DOWN';

/**
 * A circuit breaker in a `health()` snapshot (Resilience4j's health details, rates as numbers).
 *
 * @example
 * ```ts
 * const { state, failureRate, failureRateThreshold }: CircuitBreakerHealth = health(breaker).components.circuitBreakers['pg']!;
 * ```
 */
export interface CircuitBreakerHealth {
  readonly status: ComponentStatus;
  /** Why it is `UNKNOWN`, when it could not be read (a getter that threw, a state it does not know…). */
  readonly reason?: string;
  /** `breaker.state`: `'CLOSED'`, `'OPEN'`, `'HALF_OPEN'`, `'DISABLED'`, `'FORCED_OPEN'`, `'METRICS_ONLY'`. */
  readonly state: string;
  /** Percent, −1 below the minimum number of calls: the live window, which keeps changing while OPEN (calls in flight when it opened are recorded as they finish); the rate that opened it is on the `failureRateExceeded` event. */
  readonly failureRate: number | null;
  /** Percent, −1 below the minimum number of calls: the live window, as `failureRate` (the opening rate is on `slowCallRateExceeded`). */
  readonly slowCallRate: number | null;
  readonly bufferedCalls: number | null;
  readonly failedCalls: number | null;
  readonly slowCalls: number | null;
  readonly slowFailedCalls: number | null;
  readonly notPermittedCalls: number | null;
  /** From `breaker.config`, when the breaker has one. */
  readonly failureRateThreshold?: number;
  /** From `breaker.config`, when the breaker has one. */
  readonly slowCallRateThreshold?: number;
}

/**
 * A semaphore bulkhead in a `health()` snapshot: `UNKNOWN` while no slot is free.
 *
 * @example
 * ```ts
 * const { availableConcurrentCalls }: BulkheadHealth = health(bulkhead).components.bulkheads['db']!;
 * ```
 */
export interface BulkheadHealth {
  readonly status: ComponentStatus;
  /** Why it is `UNKNOWN`, when its metrics could not be read. */
  readonly reason?: string;
  readonly availableConcurrentCalls: number | null;
  readonly maxAllowedConcurrentCalls: number | null;
  readonly waitingCalls: number | null;
}

/**
 * A pool bulkhead in a `health()` snapshot: `UNKNOWN` while the next call would be refused
 * (every worker busy and the queue full).
 *
 * @example
 * ```ts
 * const { queueDepth, activeCount }: PoolBulkheadHealth = health(pool).components.threadPoolBulkheads['cpu']!;
 * ```
 */
export interface PoolBulkheadHealth {
  readonly status: ComponentStatus;
  /** Why it is `UNKNOWN`, when its metrics could not be read. */
  readonly reason?: string;
  readonly coreThreadPoolSize: number | null;
  readonly threadPoolSize: number | null;
  readonly maximumThreadPoolSize: number | null;
  readonly activeCount: number | null;
  readonly queueDepth: number | null;
  readonly queueCapacity: number | null;
  readonly remainingQueueCapacity: number | null;
}

/**
 * A rate limiter in a `health()` snapshot: `UNKNOWN` when no permission is left and calls
 * wait (Resilience4j's rule), else `UP`.
 *
 * @example
 * ```ts
 * const { availablePermissions, numberOfWaitingCalls }: RateLimiterHealth = health(limiter).components.rateLimiters['api']!;
 * ```
 */
export interface RateLimiterHealth {
  readonly status: ComponentStatus;
  /** Why it is `UNKNOWN`, when its metrics could not be read. */
  readonly reason?: string;
  readonly availablePermissions: number | null;
  readonly numberOfWaitingCalls: number | null;
}

/**
 * A retry or a time limiter in a `health()` snapshot: `UP`, with its counters (the
 * fields of its `metrics`, numbers only).
 *
 * @example
 * ```ts
 * const { numberOfTimeouts }: CountersHealth = health(timeLimiter).components.timeLimiters['pg']!;
 * ```
 */
export interface CountersHealth {
  /** `UP`; `UNKNOWN` only when its `metrics` could not be read. */
  readonly status: ComponentStatus;
  /** Why it is `UNKNOWN`, when its metrics could not be read. */
  readonly reason?: string;
  // `| undefined`: without exactOptionalPropertyTypes (a consumer's default) `reason` is
  // `string | undefined`, which an index signature without `undefined` refuses (TS2411 in the .d.ts).
  readonly [counter: string]: number | null | string | undefined;
}

/**
 * A component of a kind `health()` does not know (a fallback, a policy of your own): its
 * `kind`, and its `metrics` when they are a plain object (JSON-safe values only). Not judged,
 * unless it could not be read: an input that cannot be told apart (a revoked Proxy), a registry
 * whose `all()` throws, a `kind` that is not a string or a getter that throws is `UNKNOWN` with
 * the reason.
 *
 * @example
 * ```ts
 * const { kind, metrics }: OtherComponentHealth = health(new Delay('pace', 50)).components.others['pace']!;
 * ```
 */
export interface OtherComponentHealth {
  /** Its `kind`; `'unknown'` without a string one; `'registry'` for a registry that could not be opened. */
  readonly kind: string;
  readonly metrics?: Readonly<Record<string, number | string | boolean | null>>;
  /** Only when it could not be read. */
  readonly status?: 'UNKNOWN';
  /** Why it could not be read. */
  readonly reason?: string;
}

/**
 * What `health()` returns: a fresh, JSON-safe object (`JSON.parse(JSON.stringify(h))` equals `h`).
 *
 * @example
 * ```ts
 * const snapshot: HealthSnapshot = health(breakers, bulkheads, limiters);
 * res.end(JSON.stringify(snapshot));
 * ```
 */
export interface HealthSnapshot {
  readonly status: HealthStatus;
  readonly components: {
    readonly circuitBreakers: Record<string, CircuitBreakerHealth>;
    readonly bulkheads: Record<string, BulkheadHealth>;
    readonly threadPoolBulkheads: Record<string, PoolBulkheadHealth>;
    readonly rateLimiters: Record<string, RateLimiterHealth>;
    readonly retries: Record<string, CountersHealth>;
    readonly timeLimiters: Record<string, CountersHealth>;
    readonly others: Record<string, OtherComponentHealth>;
  };
}
