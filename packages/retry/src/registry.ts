import { Registry, type RegistryOptions } from '@breakwater/core';
import { resolveRetryConfig, type RetryConfig } from './config.js';
import { Retry } from './retry.js';

/**
 * Get-or-create storage of named retries with shared configs. `defaultConfig` and every named
 * config are checked at construction, with the message a Retry would give (a bad config fails
 * where it is written, not at the first `get`).
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
    // Each config is checked at construction (and when added), as a Retry would read it.
    super(
      'RetryRegistry',
      (name, config) => new Retry(name, config),
      options,
      (config, name) => void resolveRetryConfig(name, config),
    );
  }
}
