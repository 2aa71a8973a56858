import { Registry, type RegistryOptions } from '@breakwater/core';
import { CircuitBreaker } from './circuit-breaker.js';
import { resolveCircuitBreakerConfig, type CircuitBreakerConfig } from './config.js';

/**
 * Get-or-create storage of named circuit breakers with shared configs. Change a breaker's
 * config at run time by building a new one and `replace`-ing it. `defaultConfig` and every one
 * of `configs` are checked at construction (a bad one throws there, not at the first `get`).
 *
 * @example
 * ```ts
 * const breakers = new CircuitBreakerRegistry({ defaultConfig: { slidingWindowSize: 20 }, configs: { night: { slidingWindowSize: 200 } } });
 * const pg = breakers.get('pg');
 * breakers.replace('pg', new CircuitBreaker('pg', breakers.configuration('night')));
 * ```
 */
export class CircuitBreakerRegistry extends Registry<CircuitBreaker, CircuitBreakerConfig> {
  constructor(options: RegistryOptions<CircuitBreakerConfig> = {}) {
    super(
      'CircuitBreakerRegistry',
      (name, config) => new CircuitBreaker(name, config),
      options,
      (config, configName) => void resolveCircuitBreakerConfig(configName, config),
    );
  }
}
