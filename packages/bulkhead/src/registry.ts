import { Registry, type RegistryOptions } from '@breakwater/core';
import { Bulkhead } from './bulkhead.js';
import { resolveBulkheadConfig, resolvePoolBulkheadConfig, type BulkheadConfig, type PoolBulkheadConfig } from './config.js';
import { PoolBulkhead } from './pool-bulkhead.js';

/**
 * Named semaphore bulkheads sharing configs (get-or-create; see `Registry` in `@breakwater/core`).
 * `defaultConfig` and every one of `configs` are checked at construction.
 *
 * @example
 * ```ts
 * const bulkheads = new BulkheadRegistry({ defaultConfig: { maxConcurrentCalls: 10 } });
 * const db = bulkheads.get('db');
 * ```
 */
export class BulkheadRegistry extends Registry<Bulkhead, BulkheadConfig> {
  constructor(options: RegistryOptions<BulkheadConfig> = {}) {
    super(
      'BulkheadRegistry',
      (name, config) => new Bulkhead(name, config),
      options,
      (config, name) => void resolveBulkheadConfig(name, config),
    );
  }
}

/**
 * Named async pool bulkheads sharing configs (checked at construction). A removed or evicted pool
 * is not closed for you: listen to `removed` and call `close()` if it should stop.
 *
 * @example
 * ```ts
 * const pools = new PoolBulkheadRegistry({ defaultConfig: { maxThreadPoolSize: 4, queueCapacity: 10 } });
 * const pdf = pools.get('pdf');
 * pools.on('removed', (e) => void e.instance.close());
 * ```
 */
export class PoolBulkheadRegistry extends Registry<PoolBulkhead, PoolBulkheadConfig> {
  constructor(options: RegistryOptions<PoolBulkheadConfig> = {}) {
    super(
      'PoolBulkheadRegistry',
      (name, config) => new PoolBulkhead(name, config),
      options,
      (config, name) => void resolvePoolBulkheadConfig(name, config),
    );
  }
}
