// One section (`resilience4j.retry`, …) to its registry, in two steps: prepareSection reads it
// (its named configs with their base-config chains, its instances, its section keys) and builds
// the options of each; buildRegistry makes the registry and creates every instance at once, so
// that a bad value fails in fromConfig.
import type { Registry } from '@breakwater/core';
import { readBlock, type Block, type Setting } from './blocks.js';
import type { OptionBuilder } from './build-options.js';
import { childPath, failAt, rethrowAt } from './paths.js';
import { relaxedName, unknownKeyMessage } from './relaxed-binding.js';
import { readAspectOrder, readMetrics, readTags } from './section-settings.js';
import { sectionKeys, type PropertyRule, type Section } from './sections.js';
import type { FromConfigOptions } from './types.js';
import { asMapping } from './yaml-tree.js';

/** A config or an instance, its options built. */
interface Built {
  readonly name: string;
  readonly at: string;
  readonly options: Record<string, unknown>;
}

/** A section read, every option built, nothing created yet. */
export interface PreparedSection {
  readonly section: Section;
  readonly path: string;
  /** `configs.default` (or the clock alone), and where it is written. */
  readonly defaultConfig: Built;
  /** The other named configs. */
  readonly configs: readonly Built[];
  readonly instances: readonly Built[];
  /** The section's `<kind>-aspect-order`, if written. */
  readonly aspectOrder?: { readonly at: string; readonly order: number };
}

/** Reads the section `section` from its body `raw`, written at `path`, and builds the options of its configs and instances. */
export function prepareSection(builder: OptionBuilder, path: string, section: Section, raw: unknown): PreparedSection {
  const body = asMapping(path, raw);
  const keys = sectionKeys(section);
  let rawConfigs: Record<string, unknown> = {};
  let aspectOrder: PreparedSection['aspectOrder'];
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
    else if (name === 'tags') readTags(at, value, builder.notes);
    else if (name === 'metrics') readMetrics(at, value, builder.notes);
    else aspectOrder = { at, order: readAspectOrder(at, value, builder.notes) };
  }

  const configBlocks = new Map<string, Block>();
  for (const [name, props] of Object.entries(rawConfigs))
    configBlocks.set(name, readBlock(childPath(childPath(path, 'configs'), name), section, props, builder.notes));
  const resolve = baseConfigResolver(configBlocks);
  const built = (name: string, block: Block, settings: ReadonlyMap<PropertyRule, Setting>): Built => ({
    name,
    at: block.at,
    options: builder.build(block.at, section, settings),
  });
  const configs = [...configBlocks].map(([name, block]) => built(name, block, resolve(name, block.at)));
  const clock = builder.options.clock === undefined ? {} : { clock: builder.options.clock };
  const defaultConfig = configs.find((c) => c.name === 'default') ?? { name: 'default', at: path, options: clock };

  // Instances: over their base-config, else over configs.default (as in Spring).
  const instances: Built[] = [];
  const instanceAt = new Map<string, string>();
  for (const group of instanceGroups) {
    for (const [name, props] of Object.entries(group.entries)) {
      const at = childPath(group.at, name);
      if (instanceAt.has(name)) failAt(at, `is given twice (also as ${instanceAt.get(name)})`);
      instanceAt.set(name, at);
      const own = readBlock(at, section, props, builder.notes);
      const base =
        own.base === undefined
          ? configBlocks.has('default')
            ? resolve('default', at)
            : new Map<PropertyRule, Setting>()
          : resolve(own.base.value, own.base.at);
      instances.push(built(name, own, new Map([...base, ...own.settings])));
    }
  }
  return {
    section,
    path,
    defaultConfig,
    configs: configs.filter((c) => c.name !== 'default'),
    instances,
    ...(aspectOrder === undefined ? {} : { aspectOrder }),
  };
}

/**
 * `resolve(name, at)`: the settings of config `name` over those of its base-config chain (`at`:
 * where the name is written, for errors). Each config is resolved once and remembered, without
 * recursion, so a chain of any length takes linear time; a chain that loops is refused.
 */
function baseConfigResolver(configBlocks: ReadonlyMap<string, Block>): (name: string, at: string) => ReadonlyMap<PropertyRule, Setting> {
  const resolved = new Map<string, ReadonlyMap<PropertyRule, Setting>>();
  return (name, at) => {
    // Walk the chain down to a config already resolved, or one without a base.
    const chain: Block[] = [];
    const onChain = new Set<string>();
    let current = name;
    let currentAt = at;
    while (!resolved.has(current)) {
      const block = configBlocks.get(current);
      if (block === undefined) failAt(currentAt, `no config named '${current}' (known: ${[...configBlocks.keys()].join(', ') || 'none'})`, 'range');
      if (onChain.has(current)) failAt(currentAt, `base-config loops: ${[...onChain, current].join(' → ')}`, 'range');
      onChain.add(current);
      chain.push(block);
      if (block.base === undefined) break;
      currentAt = block.base.at;
      current = block.base.value;
    }
    // Then lay each one over its base, from the bottom up.
    const names = [...onChain];
    for (let i = chain.length - 1; i >= 0; i--) {
      const block = chain[i]!;
      const base = block.base === undefined ? undefined : resolved.get(block.base.value)!;
      resolved.set(names[i]!, base === undefined ? new Map(block.settings) : new Map([...base, ...block.settings]));
    }
    return resolved.get(name)!;
  };
}

/**
 * The registry of a prepared section, with its named configs and its instances' settings
 * (`instances`, so that a `get` of a name they do not configure is told: `onUnknownName`), every
 * instance created. An error names the config or instance it is about.
 */
export function buildRegistry(prepared: PreparedSection, onUnknownName: FromConfigOptions['onUnknownName']): Registry<{ name: string }, object> {
  const { section, defaultConfig, configs, instances } = prepared;
  const byName = (list: readonly Built[]) => Object.fromEntries(list.map((b) => [b.name, b.options]));
  let registry: Registry<{ name: string }, object>;
  try {
    registry = section.registry({
      defaultConfig: defaultConfig.options,
      configs: byName(configs),
      instances: byName(instances),
      ...(onUnknownName === undefined ? {} : { onUnknownName }),
    });
  } catch (error) {
    return locateError(prepared, error);
  }
  for (const instance of instances) {
    try {
      registry.get(instance.name);
    } catch (error) {
      rethrowAt(instance.at, error);
    }
  }
  return registry;
}

/**
 * Rethrows the error of building a section's registry at the path of the config or instance it
 * is about: the default config, the named configs and the instances are tried one by one, in the
 * order the registry checks them (only on this error path).
 */
function locateError({ section, defaultConfig, configs, instances }: PreparedSection, original: unknown): never {
  let scratch: Registry<{ name: string }, object>;
  try {
    scratch = section.registry({ defaultConfig: defaultConfig.options });
  } catch (error) {
    return rethrowAt(defaultConfig.at, error);
  }
  for (const config of configs) {
    try {
      scratch.addConfiguration(config.name, config.options);
    } catch (error) {
      rethrowAt(config.at, error);
    }
  }
  for (const instance of instances) {
    try {
      scratch.get(instance.name, instance.options);
    } catch (error) {
      rethrowAt(instance.at, error);
    }
  }
  throw original;
}
