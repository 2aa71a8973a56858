import { Registry, type RegistryOptions } from '@breakwater/core';
import type { TimeLimiterConfig } from './config.js';
import { TimeLimiter } from './time-limiter.js';

/**
 * Get-or-create storage of named time limiters with shared configs.
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
    super('TimeLimiterRegistry', (name, config) => new TimeLimiter(name, config), options);
  }
}
