import { Registry, type RegistryOptions } from '@breakwater/core';
import { AdaptiveLimiter } from './adaptive-limiter.js';
import { AdaptiveThrottle } from './adaptive-throttle.js';
import { resolveAdaptiveLimiterConfig, type AdaptiveLimiterConfig } from './config.js';
import { resolveAdaptiveThrottleConfig, type AdaptiveThrottleConfig } from './throttle-config.js';

/**
 * Named adaptive limiters sharing configs (get-or-create; see `Registry` in `@breakwater/core`).
 * `defaultConfig` and every one of `configs` are checked at construction. A config that gives a
 * `LimitAlgorithm` object shares that object (and its state) between every limiter made from it:
 * give a named algorithm (`'vegas'`, …) for a fresh one each.
 *
 * @example
 * ```ts
 * const limiters = new AdaptiveLimiterRegistry({ defaultConfig: { algorithm: 'gradient2', maxWaitDuration: '10ms' } });
 * const pg = limiters.get('pg');
 * ```
 */
export class AdaptiveLimiterRegistry extends Registry<AdaptiveLimiter, AdaptiveLimiterConfig> {
  constructor(options: RegistryOptions<AdaptiveLimiterConfig> = {}) {
    super(
      'AdaptiveLimiterRegistry',
      (name, config) => new AdaptiveLimiter(name, config),
      options,
      (config, name) => void resolveAdaptiveLimiterConfig(name, config),
    );
  }
}

/**
 * Named adaptive throttles sharing configs (checked at construction).
 *
 * @example
 * ```ts
 * const throttles = new AdaptiveThrottleRegistry({ defaultConfig: { k: 2, window: '2m' } });
 * const search = throttles.get('search');
 * ```
 */
export class AdaptiveThrottleRegistry extends Registry<AdaptiveThrottle, AdaptiveThrottleConfig> {
  constructor(options: RegistryOptions<AdaptiveThrottleConfig> = {}) {
    super(
      'AdaptiveThrottleRegistry',
      (name, config) => new AdaptiveThrottle(name, config),
      options,
      (config, name) => void resolveAdaptiveThrottleConfig(name, config),
    );
  }
}
