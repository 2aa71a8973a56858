// One config or instance of a section, read: each property matched to its rule and its value
// bound, `base-config` set apart. Names of classes and code are resolved later (build-options.ts).
import { childPath, describeFound, failAt } from './paths.js';
import { kebabCase, relaxedName, unknownKeyMessage } from './relaxed-binding.js';
import { knownProperties, type PropertyRule, type Section } from './sections.js';
import type { FromConfigNote } from './types.js';
import { bindValue } from './values.js';
import { asMapping } from './yaml-tree.js';

/** One read setting: where it was written, and its value (bound; names not yet resolved). */
export interface Setting {
  readonly at: string;
  readonly value: unknown;
}

/** The properties of one config or instance. */
export interface Block {
  readonly at: string;
  readonly settings: ReadonlyMap<PropertyRule, Setting>;
  /** Its `base-config`: the name of the config it is laid over. */
  readonly base?: Setting & { readonly value: string };
}

/** The properties of one config or instance (`raw`, written at `at`), each read and bound; an ignored one is noted in `notes`. */
export function readBlock(at: string, section: Section, raw: unknown, notes: FromConfigNote[]): Block {
  const settings = new Map<PropertyRule, Setting>();
  let base: (Setting & { readonly value: string }) | undefined;
  for (const [key, x] of Object.entries(asMapping(at, raw))) {
    const path = childPath(at, key);
    if (relaxedName(key) === 'baseconfig') {
      if (base !== undefined) failAt(path, `is given twice (also as ${base.at})`);
      if (typeof x !== 'string' || x === '') failAt(path, `must be the name of a config, got ${describeFound(x)}`);
      base = { at: path, value: x };
      continue;
    }
    const rule = section.rules.get(relaxedName(key));
    if (rule === undefined) failAt(path, unknownKeyMessage('property', key, ['base-config', ...knownProperties(section)]));
    if (rule.type === 'refused') failAt(path, rule.reason);
    if (rule.type === 'ignored') {
      notes.push({ path, message: `ignored: ${rule.reason}` });
      continue;
    }
    const earlier = settings.get(rule);
    if (earlier !== undefined) failAt(path, `is given twice (also as ${earlier.at})`);
    settings.set(rule, {
      at: path,
      value: bindValue(path, rule.type === 'lenientClasses' ? 'boolean' : rule.kind, x, rule.type === 'option' ? rule.values : undefined),
    });
  }
  const replacedBy = section.wait?.replacedBy;
  if (replacedBy !== undefined) {
    const replacing = [...settings].find(([r]) => r.type === 'option' && r.option === replacedBy);
    const replaced = [...settings].find(([r]) => r.type === 'backoff' || (r.type === 'option' && r.option === section.wait!.from));
    if (replacing !== undefined && replaced !== undefined) {
      failAt(replacing[1].at, `and ${replaced[1].at} cannot be given together: ${kebabCase(replacing[0].spring)} replaces the wait settings`);
    }
  }
  return base === undefined ? { at, settings } : { at, settings, base };
}
