import { Registry, type RegistryOptions } from '@breakwater/core';
import type { RetryConfig } from './config.js';
import { Retry } from './retry.js';

/**
 * Get-or-create storage of named retries with shared configs.
 *
 * @example
 * ```ts
 * const budget = new RetryBudget();
 * const retries = new RetryRegistry({ defaultConfig: { maxAttempts: 3, budget }, configs: { patient: { maxAttempts: 6, waitDuration: '2s' } } });
 * const pg = retries.get('pg');
 * const reports = retries.get('reports', 'patient');
 * ```
 */
export class RetryRegistry extends Registry<Retry, RetryConfig> {
  constructor(options: RegistryOptions<RetryConfig> = {}) {
    super('RetryRegistry', (name, config) => new Retry(name, config), options);
  }
}
