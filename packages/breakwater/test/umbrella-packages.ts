/**
 * The packages the umbrella re-exports from (health() is @breakwater/observe's). Not the test
 * helpers, nor the exporters, nor redis: each needs a peer of its own (fast-check, prom-client,
 * @opentelemetry/api, redis); nor the simulator, a dev-time tool.
 */
export const UMBRELLA_PACKAGES = [
  '@breakwater/core',
  '@breakwater/observe',
  '@breakwater/circuit-breaker',
  '@breakwater/time-limiter',
  '@breakwater/retry',
  '@breakwater/bulkhead',
  '@breakwater/rate-limiter',
  '@breakwater/adaptive',
  '@breakwater/chaos',
  '@breakwater/decorators',
  '@breakwater/spring-config',
] as const;
