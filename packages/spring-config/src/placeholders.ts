// Spring's property placeholders in values: `${NAME}`, `${NAME:default}`, nested (`${A:${B:5}}`,
// `${${WHICH}}`), several in one value, `\${` for the text `${`. A name is looked up in `env` (as
// written, then Spring's environment form: `pg.max-attempts` → `PG_MAX_ATTEMPTS`), then as a
// property of the same file (a dotted name, relaxed), then its default; else it is an error.
import { isPlainObject } from '@breakwater/core/internal';
import { childPath, failAt } from './paths.js';
import { relaxedName } from './relaxed-binding.js';
import { splitDottedKey } from './yaml-tree.js';

/** Where placeholders are looked up. */
export interface PlaceholderSources {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The whole parsed file, as given to fromConfig (for `${app.pg.wait}`). */
  readonly file: unknown;
}

/**
 * `x` (a mapping already expanded by `expandDottedKeys`, so free of cycles) with the
 * placeholders of every string value resolved, and of the strings of a list; mappings and lists
 * are copied, never changed. `path`: where `x` is written, for errors.
 */
export function resolvePlaceholders(path: string, x: unknown, sources: PlaceholderSources): unknown {
  if (typeof x === 'string') return x.includes('${') ? resolveText(path, x, sources, []) : x;
  if (Array.isArray(x))
    return x.some((v) => typeof v === 'string' && v.includes('${'))
      ? x.map((v: unknown) => (typeof v === 'string' ? resolvePlaceholders(path, v, sources) : v))
      : x;
  if (!isPlainObject(x)) return x;
  const out = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(x)) out[key] = resolvePlaceholders(childPath(path, key), value, sources);
  return out;
}

/** The index of the `}` that closes the placeholder whose name starts at `from`, or -1. */
function closingBrace(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    if (text.startsWith('\\${', i)) i += 2;
    else if (text.startsWith('${', i)) {
      depth++;
      i++;
    } else if (text[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

/** `text` with its placeholders resolved; `stack`: the names being resolved (a loop is an error). */
function resolveText(at: string, text: string, sources: PlaceholderSources, stack: readonly string[]): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('\\${', i)) {
      out += '${';
      i += 3;
    } else if (text.startsWith('${', i)) {
      const end = closingBrace(text, i + 2);
      if (end < 0) failAt(at, `has a '\${' without its '}' (write '\\\${' for the text '\${')`);
      out += resolveOne(at, text.slice(i + 2, end), sources, stack);
      i = end + 1;
    } else {
      out += text[i];
      i++;
    }
  }
  return out;
}

/** The value of one placeholder, `inner` being what is between `${` and `}`. */
function resolveOne(at: string, inner: string, sources: PlaceholderSources, stack: readonly string[]): string {
  const colon = defaultSeparator(inner);
  const name = resolveText(at, colon < 0 ? inner : inner.slice(0, colon), sources, stack);
  if (stack.includes(name)) failAt(at, `placeholders loop: ${[...stack.slice(stack.indexOf(name)), name].map((n) => `'\${${n}}'`).join(' → ')}`);
  const found = lookUp(name, sources);
  if (found !== undefined) return resolveText(at, found, sources, [...stack, name]);
  if (colon >= 0) return resolveText(at, inner.slice(colon + 1), sources, stack);
  return failAt(
    at,
    `placeholder '\${${inner}}' has no value: '${name}' is not in env nor a property of the file, and it has no default (write '\${${name}:<default>}')`,
  );
}

/** The index of the `:` that starts the default (the first one outside a nested placeholder), or -1. */
function defaultSeparator(inner: string): number {
  let depth = 0;
  for (let i = 0; i < inner.length; i++) {
    if (inner.startsWith('\\${', i)) i += 2;
    else if (inner.startsWith('${', i)) {
      depth++;
      i++;
    } else if (inner[i] === '}') depth--;
    else if (inner[i] === ':' && depth === 0) return i;
  }
  return -1;
}

/** `name` in env (as written, then `PG_MAX_ATTEMPTS` for `pg.max-attempts`), else a scalar property of the file. */
function lookUp(name: string, { env, file }: PlaceholderSources): string | undefined {
  const underscored = name.replace(/[.-]/g, '_');
  for (const candidate of [name, underscored, underscored.toUpperCase()]) {
    const value = Object.hasOwn(env, candidate) ? env[candidate] : undefined;
    if (typeof value === 'string') return value;
  }
  let segments: string[];
  try {
    segments = splitDottedKey(name, name);
  } catch {
    return undefined; // not a property name
  }
  const value = property(file, segments);
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}

/**
 * The value at `segments` in `node`, matching keys by relaxed name, a dotted key (`app.pg:`) as
 * the segments it spells. Each step takes at least one segment, so a cyclic object next to
 * `resilience4j` is followed only as far as the name goes.
 */
function property(node: unknown, segments: readonly string[]): unknown {
  if (segments.length === 0) return node;
  if (!isPlainObject(node)) return undefined;
  for (const [key, value] of Object.entries(node)) {
    let spelled: string[];
    try {
      spelled = splitDottedKey(key, key);
    } catch {
      continue;
    }
    if (spelled.length > segments.length || !spelled.every((s, i) => relaxedName(s) === relaxedName(segments[i]!))) continue;
    const found = property(value, segments.slice(spelled.length));
    if (found !== undefined) return found;
  }
  return undefined;
}
