import { Registry, type RegistryOptions } from '@breakwater/core';
import { resolveRateLimiterConfig, type RateLimiterConfig } from './config.js';
import { RateLimiter } from './rate-limiter.js';

/**
 * Named rate limiters sharing configs (get-or-create; see `Registry` in `@breakwater/core`).
 * `defaultConfig` and every one of `configs` are checked at construction.
 *
 * @example
 * ```ts
 * const limiters = new RateLimiterRegistry({ defaultConfig: { limitForPeriod: 10 }, configs: { bulk: { limitForPeriod: 2 } } });
 * const pg = limiters.get('pg');
 * const exports = limiters.get('exports', 'bulk');
 * ```
 */
export class RateLimiterRegistry extends Registry<RateLimiter, RateLimiterConfig> {
  constructor(options: RegistryOptions<RateLimiterConfig> = {}) {
    // Each config is checked as a limiter would read it, at construction: a bad one fails here, not at the first get.
    super(
      'RateLimiterRegistry',
      (name, config) => new RateLimiter(name, config),
      options,
      (config, name) => void resolveRateLimiterConfig(name, config),
    );
  }
}
