import { Registry, type RegistryOptions } from '@breakwater/core';
import { resolveTimeLimiterConfig, type TimeLimiterConfig } from './config.js';
import { TimeLimiter } from './time-limiter.js';

/**
 * Get-or-create storage of named time limiters with shared configs. `defaultConfig` and every
 * named config are checked at construction, with the message a TimeLimiter would give.
 *
 * @example
 * ```ts
 * const limiters = new TimeLimiterRegistry({ defaultConfig: { timeoutDuration: '1s' }, configs: { batch: { timeoutDuration: '30s' } } });
 * const pg = limiters.get('pg');
 * const report = limiters.get('report', 'batch');
 * ```
 */
export class TimeLimiterRegistry extends Registry<TimeLimiter, TimeLimiterConfig> {
  constructor(options: RegistryOptions<TimeLimiterConfig> = {}) {
    // Each config is checked at construction (and when added), as a TimeLimiter would read it.
    super(
      'TimeLimiterRegistry',
      (name, config) => new TimeLimiter(name, config),
      options,
      (config, name) => void resolveTimeLimiterConfig(name, config),
    );
  }
}
