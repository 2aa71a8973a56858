/**
 * Breakwater: composable resilience for TypeScript. This umbrella re-exports every policy
 * package, the builder, the core and `fromConfig` (`@breakwater/spring-config`), so one import does:
 *
 * @example
 * ```ts
 * import { decorate, Retry, CircuitBreaker, TimeLimiter } from 'breakwater';
 * const pay = decorate().withRetry(new Retry('pg')).withCircuitBreaker(new CircuitBreaker('pg')).withTimeLimiter(new TimeLimiter('pg'));
 * ```
 *
 * The test helpers (which need fast-check) are at `breakwater/testing`.
 * @packageDocumentation
 */
export * from '@breakwater/core';
export * from '@breakwater/circuit-breaker';
export * from '@breakwater/time-limiter';
export * from '@breakwater/retry';
export * from '@breakwater/bulkhead';
export * from '@breakwater/rate-limiter';
export * from '@breakwater/decorators';
export * from '@breakwater/spring-config';
// Two packages export an `Outcome`: core's type of a settled call ({ error } | { result }) and the
// circuit breaker's outcome flags (a type and the `Outcome.SLOW_ERROR`… values). The umbrella
// keeps the circuit breaker's, which it has always exported; core's is `Outcome` of @breakwater/core.
export { Outcome } from '@breakwater/circuit-breaker';
