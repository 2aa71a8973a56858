import { Registry, type RegistryOptions } from '@breakwater/core';
import { resolveHedgeConfig, type HedgeConfig } from './hedge-config.js';
import { Hedge } from './hedge.js';

/**
 * Get-or-create storage of named hedges with shared configs. `defaultConfig` and every named
 * config are checked at construction, with the message a Hedge would give.
 *
 * @example
 * ```ts
 * const hedges = new HedgeRegistry({ defaultConfig: { delay: { percentile: 0.95 } }, configs: { eager: { delay: 0 } } });
 * const search = hedges.get('search');
 * const lookup = hedges.get('lookup', 'eager');
 * ```
 */
export class HedgeRegistry extends Registry<Hedge, HedgeConfig> {
  constructor(options: RegistryOptions<HedgeConfig> = {}) {
    super(
      'HedgeRegistry',
      (name, config) => new Hedge(name, config),
      options,
      (config, name) => void resolveHedgeConfig(name, config),
    );
  }
}
