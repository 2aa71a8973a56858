// The parsed YAML as Spring reads it: mappings checked to be mappings, dotted keys nested, one
// spelling per relaxed name.
import { isPlainObject } from '@breakwater/core/internal';
import { childPath, describeFound, failAt } from './paths.js';
import { relaxedName } from './relaxed-binding.js';

/** `x` as a mapping (an absent or empty value is an empty one); anything else is refused. */
export function asMapping(path: string, x: unknown): Record<string, unknown> {
  if (x === undefined || x === null) return {};
  if (!isPlainObject(x)) failAt(path, `must be a mapping, got ${describeFound(x)}`);
  return x;
}

/**
 * Spring reads a YAML file as flat dotted names: `resilience4j.circuitbreaker:` as one key, or
 * `resilience4j.circuitbreaker.instances.pg.sliding-window-size: 5`, is the same as nesting. This
 * nests every dotted key (a `[name.with.dots]` segment stays one key, brackets dropped) and merges
 * what meets; a value given twice is an error. A mapping that holds itself (a cyclic object) is
 * refused, naming where it refers back to. `ancestors`: the mappings being expanded, by path.
 */
export function expandDottedKeys(path: string, x: unknown, ancestors = new Map<object, string>()): unknown {
  if (!isPlainObject(x)) return x;
  const earlier = ancestors.get(x);
  if (earlier !== undefined) failAt(path, `refers back to ${earlier === '' ? '(root)' : earlier} (a cyclic object cannot be a config)`);
  ancestors.set(x, path);
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [raw, value] of Object.entries(x)) {
    const segments = splitDottedKey(path === '' ? raw : `${path}.${raw}`, raw);
    let node = out;
    let at = path;
    for (const segment of segments.slice(0, -1)) {
      at = childPath(at, segment);
      const next = node[segment];
      if (next === undefined) node[segment] = Object.create(null) as Record<string, unknown>;
      else if (!isPlainObject(next)) failAt(at, 'is given twice (a value, and a mapping under it)');
      node = node[segment] as Record<string, unknown>;
    }
    const last = segments[segments.length - 1]!;
    at = childPath(at, last);
    const child = expandDottedKeys(at, value, ancestors);
    if (!(last in node)) node[last] = child;
    else mergeInto(at, node[last], child, node, last);
  }
  ancestors.delete(x);
  return out;
}

/** Merges the mapping `from` into the mapping `into` (`parent[key]`), key by key; two values at one path are an error. */
function mergeInto(at: string, into: unknown, from: unknown, parent: Record<string, unknown>, key: string): void {
  if (!isPlainObject(into) || !isPlainObject(from)) failAt(at, 'is given twice');
  for (const [k, v] of Object.entries(from)) {
    if (!(k in into)) into[k] = v;
    else mergeInto(childPath(at, k), into[k], v, into, k);
  }
  parent[key] = into;
}

/** `a.b.[c.d]` → `a`, `b`, `c.d`. `at` is the key's path, for errors. */
export function splitDottedKey(at: string, raw: string): string[] {
  const segments: string[] = [];
  let i = 0;
  for (;;) {
    let segment: string;
    if (raw[i] === '[') {
      const end = raw.indexOf(']', i);
      if (end < 0) failAt(at, `has a '[' without its ']'`);
      segment = raw.slice(i + 1, end);
      i = end + 1;
      if (i < raw.length && raw[i] !== '.') failAt(at, `must have a '.' after ']'`);
    } else {
      const dot = raw.indexOf('.', i);
      const end = dot < 0 ? raw.length : dot;
      segment = raw.slice(i, end);
      i = end;
    }
    if (segment.length === 0) failAt(at, 'has an empty name (two dots, or a dot at an end)');
    segments.push(segment);
    if (i >= raw.length) return segments;
    i++; // the dot
    if (i >= raw.length) failAt(at, 'has an empty name (two dots, or a dot at an end)');
  }
}

/** The key of `node` whose relaxed name is `name`: at most one spelling of it. */
export function pickKey(path: string, node: Record<string, unknown>, name: string): { key: string; at: string; value: unknown } | undefined {
  const keys = Object.keys(node).filter((k) => relaxedName(k) === relaxedName(name));
  if (keys.length > 1) failAt(childPath(path, keys[1]!), `is given twice (also as '${keys[0]}')`);
  return keys.length === 0 ? undefined : { key: keys[0]!, at: childPath(path, keys[0]!), value: node[keys[0]!] };
}
