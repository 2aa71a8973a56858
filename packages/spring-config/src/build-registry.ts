// One section (`resilience4j.retry`, …) to its registry: its named configs with their base-config
// chains, then each of its instances, created at once so that a bad value fails in fromConfig.
import type { Registry } from '@breakwater/core';
import { readBlock, type Block, type Setting } from './blocks.js';
import type { OptionBuilder } from './build-options.js';
import { childPath, failAt, rethrowAt } from './paths.js';
import { relaxedName, unknownKeyMessage } from './relaxed-binding.js';
import { sectionKeys, type PropertyRule, type Section } from './sections.js';
import { asMapping } from './yaml-tree.js';

/** The registry of `section` from its body `raw`, written at `path`. */
export function buildRegistry(builder: OptionBuilder, path: string, section: Section, raw: unknown): Registry<{ name: string }, object> {
  const body = asMapping(path, raw);
  const keys = sectionKeys(section);
  let rawConfigs: Record<string, unknown> = {};
  const instanceGroups: { at: string; entries: Record<string, unknown> }[] = [];
  const seen = new Map<string, string>();
  for (const [key, value] of Object.entries(body)) {
    const at = childPath(path, key);
    const name = relaxedName(key);
    const spelled = keys.find((k) => relaxedName(k) === name);
    if (spelled === undefined) failAt(at, unknownKeyMessage('key', key, keys));
    if (seen.has(name)) failAt(at, `is given twice (also as '${seen.get(name)}')`);
    seen.set(name, key);
    if (name === 'configs') rawConfigs = asMapping(at, value);
    else if (name === 'instances' || section.aliases.includes(spelled)) instanceGroups.push({ at, entries: asMapping(at, value) });
    // tags and the aspect order: see SECTION_IGNORED.
  }

  // Named configs, with base-config chains resolved (a config may build on another).
  const configBlocks = new Map<string, Block>();
  for (const [name, props] of Object.entries(rawConfigs)) configBlocks.set(name, readBlock(childPath(childPath(path, 'configs'), name), section, props));
  /** The settings of config `name` over those of its base-config chain; `chain`: the configs that led here. */
  const resolve = (name: string, at: string, chain: readonly string[]): Map<PropertyRule, Setting> => {
    const block = configBlocks.get(name);
    if (block === undefined) failAt(at, `no config named '${name}' (known: ${[...configBlocks.keys()].join(', ') || 'none'})`, 'range');
    if (chain.includes(name)) failAt(at, `base-config loops: ${[...chain, name].join(' → ')}`, 'range');
    if (block.base === undefined) return new Map(block.settings);
    return new Map([...resolve(block.base.value, block.base.at, [...chain, name]), ...block.settings]);
  };
  const resolved: Record<string, Record<string, unknown>> = {};
  for (const [name, block] of configBlocks) resolved[name] = builder.build(block.at, section, resolve(name, block.at, []));
  const clock = builder.options.clock === undefined ? {} : { clock: builder.options.clock };
  const { default: defaultConfig = clock, ...configs } = resolved;
  const configAt = (name: string) => configBlocks.get(name)?.at ?? path;
  let registry: Registry<{ name: string }, object>;
  try {
    registry = section.registry({ defaultConfig, configs: {} });
  } catch (error) {
    return rethrowAt(configAt('default'), error);
  }
  // One by one (each laid over the default, as the registry's own `configs` would be), so that an
  // error names the config it is about.
  for (const [name, config] of Object.entries(configs)) {
    try {
      registry.addConfiguration(name, config);
    } catch (error) {
      rethrowAt(configAt(name), error);
    }
  }

  // Instances: over their base-config, else over configs.default; each one built now.
  const instanceAt = new Map<string, string>();
  for (const group of instanceGroups) {
    for (const [name, props] of Object.entries(group.entries)) {
      const at = childPath(group.at, name);
      if (instanceAt.has(name)) failAt(at, `is given twice (also as ${instanceAt.get(name)})`);
      instanceAt.set(name, at);
      const own = readBlock(at, section, props);
      const base = own.base === undefined ? (configBlocks.has('default') ? resolve('default', at, []) : new Map<PropertyRule, Setting>()) : resolve(own.base.value, own.base.at, []);
      const instanceOptions = builder.build(at, section, new Map([...base, ...own.settings]));
      try {
        registry.get(name, instanceOptions);
      } catch (error) {
        rethrowAt(at, error);
      }
    }
  }
  return registry;
}
