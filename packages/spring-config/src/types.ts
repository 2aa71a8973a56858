// The public types of fromConfig: what it returns, and what it takes besides the parsed YAML.
import type { BulkheadRegistry, PoolBulkheadRegistry } from '@breakwater/bulkhead';
import type { CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import type { Clock, ErrorClass } from '@breakwater/core';
import type { RateLimiterRegistry } from '@breakwater/rate-limiter';
import type { RetryRegistry } from '@breakwater/retry';
import type { TimeLimiterRegistry } from '@breakwater/time-limiter';

/** The registries {@link fromConfig} builds, one per kind. */
export interface BreakwaterRegistries {
  readonly circuitBreaker: CircuitBreakerRegistry;
  readonly retry: RetryRegistry;
  readonly timeLimiter: TimeLimiterRegistry;
  readonly bulkhead: BulkheadRegistry;
  readonly poolBulkhead: PoolBulkheadRegistry;
  readonly rateLimiter: RateLimiterRegistry;
}

/** Options of {@link fromConfig}: what a YAML file cannot hold. */
export interface FromConfigOptions {
  /** The clock of every instance (a `VirtualClock` in tests). */
  readonly clock?: Clock;
  /** Error classes by the names the config uses in `record-exceptions`, `retry-exceptions`, `ignore-exceptions`. */
  readonly classes?: Readonly<Record<string, ErrorClass>>;
  /** Predicates by the names the config uses in `record-failure-predicate`, `result-predicate`, … */
  readonly predicates?: Readonly<Record<string, (value: unknown) => boolean>>;
  /** Functions by the names the config uses in `interval-bi-function` and `consume-result-before-retry-attempt`. */
  readonly functions?: Readonly<Record<string, (...args: never[]) => unknown>>;
}
