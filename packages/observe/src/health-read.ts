// How `health()` reads what it is given without ever throwing, in time linear in what it is given:
// every property read is guarded (a getter that throws, a Proxy whose traps throw, a revoked Proxy),
// the first failure of a component is kept as its `reason`, and names are de-duplicated with one
// counter per name.

import { describeValue } from '@breakwater/core/internal';
import { Registry } from '@breakwater/core';

/** The longest reason text kept (a thrown message can be anything). */
const MAX_REASON = 200;

/** `error` as `Name: message`, short; never throws (a revoked Proxy thrown as an error included). */
export function describeError(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? `${String(error.name)}: ${String(error.message)}` : String(error);
  } catch {
    text = 'a value that cannot be shown';
  }
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON)}…` : text;
}

/** `describeValue(value)`, or a placeholder when even that throws (a Proxy whose prototype cannot be read). */
export function describeSafely(value: unknown): string {
  try {
    return describeValue(value);
  } catch {
    return 'a value that cannot be inspected';
  }
}

/**
 * Reads the fields of one component: a read that throws gives `undefined`, and the first failure
 * is kept as `reason` (the component is then `UNKNOWN`).
 */
export class FieldReader {
  reason: string | undefined;

  /** Keeps `reason` unless an earlier one is kept already. */
  note(reason: string): void {
    this.reason ??= reason;
  }

  /** `target[key]`; `path` names it in the reason when the read throws. */
  get(target: object, key: string, path: string = key): unknown {
    try {
      return (target as Record<string, unknown>)[key];
    } catch (error) {
      this.note(`${path} could not be read: ${describeError(error)}`);
      return undefined;
    }
  }

  /** A finite number as it is; anything else (NaN, ±Infinity, a missing field) as `null`. */
  num(target: object, key: string, path: string): number | null {
    const value = this.get(target, key, path);
    return typeof value === 'number' && Number.isFinite(value) ? value : null;
  }

  /** A number as read (±Infinity kept, for judging); anything else is NaN, which passes no comparison. */
  raw(target: object, key: string, path: string): number {
    const value = this.get(target, key, path);
    return typeof value === 'number' ? value : NaN;
  }

  /** Whether `value` is a plain object; a prototype that cannot be read is noted and is not one. */
  isPlainObject(value: unknown, path: string): value is Record<string, unknown> {
    if (typeof value !== 'object' || value === null) return false;
    try {
      const proto: unknown = Object.getPrototypeOf(value);
      return proto === Object.prototype || proto === null;
    } catch (error) {
      this.note(`${path} could not be read: ${describeError(error)}`);
      return false;
    }
  }

  /** `Object.keys(target)`; keys that cannot be listed (a hostile Proxy) are noted, and none is given. */
  keys(target: object, path: string): string[] {
    try {
      return Object.keys(target);
    } catch (error) {
      this.note(`${path} could not be read: ${describeError(error)}`);
      return [];
    }
  }
}

/** One input of `health()` to report: a component, or a registry or an input that could not be opened. */
export interface Collected {
  readonly value: object;
  /** Why it could not be opened or told apart, and what it is known to be: it is listed under `others`, `UNKNOWN` with this reason. */
  readonly problem?: { readonly kind: 'registry' | 'unknown'; readonly reason: string };
}

/** Core's `Registry`, or any object with `all()` and no `execute`. Throws what a hostile value throws. */
function isRegistry(value: object): value is { all(): unknown } {
  const fields = value as { all?: unknown; execute?: unknown };
  return value instanceof Registry || (typeof fields.all === 'function' && typeof fields.execute !== 'function');
}

/**
 * Every component given: registries and arrays opened (two levels deep), each instance once, in the
 * order given. An input that cannot be told apart (a revoked Proxy) or a registry whose `all()`
 * throws is kept with its problem, never dropped silently.
 */
export function collect(inputs: readonly unknown[]): Collected[] {
  const seen = new Set<object>();
  const order: Collected[] = [];
  const visit = (input: unknown, depth: number): void => {
    if (typeof input !== 'object' || input === null || seen.has(input)) return;
    seen.add(input);
    const members = open(input);
    if (members === undefined) order.push({ value: input });
    else if ('problem' in members) order.push({ value: input, problem: members.problem });
    else if (depth < 2) for (const member of members.list) visit(member, depth + 1);
  };
  for (const input of inputs) visit(input, 0);
  return order;
}

/** The members of an array or a registry; `undefined` for a component; a problem when it cannot be told or opened. */
function open(input: object): { readonly list: readonly unknown[] } | { readonly problem: NonNullable<Collected['problem']> } | undefined {
  let registry = false;
  try {
    if (Array.isArray(input)) return { list: input };
    if (!isRegistry(input)) return undefined;
    registry = true;
    const members = input.all();
    if (Array.isArray(members)) return { list: members };
    return { problem: { kind: 'registry', reason: `all() did not return an array (got ${describeSafely(members)})` } };
  } catch (error) {
    return {
      problem: registry
        ? { kind: 'registry', reason: `all() threw: ${describeError(error)}` }
        : { kind: 'unknown', reason: `it could not be read: ${describeError(error)}` },
    };
  }
}

/**
 * An object of entries keyed by name, where a second instance with a name already used is keyed
 * `name#2`, then `name#3`… Linear: each name keeps the next number to try, so n instances with one
 * name cost n steps, not n²/2; `__proto__` is an ordinary key.
 */
export class NamedEntries {
  readonly entries: Record<string, unknown> = {};
  readonly #next = new Map<string, number>();

  /** Puts `value` under `name`, or under the first free `name#n`; returns the key used. */
  put(name: string, value: unknown): string {
    let key = name;
    if (Object.hasOwn(this.entries, key)) {
      let n = this.#next.get(name) ?? 2;
      for (key = `${name}#${n}`; Object.hasOwn(this.entries, key); key = `${name}#${n}`) n += 1;
      this.#next.set(name, n + 1);
    }
    Object.defineProperty(this.entries, key, { value, enumerable: true, writable: true, configurable: true });
    return key;
  }
}
