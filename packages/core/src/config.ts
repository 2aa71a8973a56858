import { systemClock, type Clock } from './clock.js';
import { parseDuration } from './duration.js';

/**
 * A numeric range an option must lie in; rendered in error messages as `in (0, 100]`, `>= 1`,
 * `an integer in [1, 10]`, … `Infinity` passes a range with no upper bound unless `integer`.
 *
 * @example
 * ```ts
 * const percent: Range = { gt: 0, lte: 100 };      // (0, 100]
 * const count: Range = { integer: true, gte: 1 };  // an integer >= 1
 * read.number('failureRateThreshold', 50, percent);
 * ```
 */
export interface Range {
  /** Exclusive lower bound. */
  readonly gt?: number;
  /** Inclusive lower bound. */
  readonly gte?: number;
  /** Inclusive upper bound. */
  readonly lte?: number;
  /** Whole numbers only. */
  readonly integer?: boolean;
}

/**
 * Renders a value for an error message: strings quoted, functions and objects by kind (an
 * object's content is never printed: it could hold a secret).
 *
 * @example
 * ```ts
 * describeValue('10x'); // "'10x'"
 * describeValue(0);     // '0'
 * describeValue({});    // 'an object'
 * describeValue([]);    // 'an array'
 * ```
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return value.length > 40 ? `'${value.slice(0, 20)}…' (${value.length} characters)` : `'${value}'`;
  if (typeof value === 'function') return `a function`;
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol') return value.toString();
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `an array`;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) return `an object`;
  const kind = (proto as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof kind === 'string' && kind !== '' ? `${/^[AEIOU]/.test(kind) ? 'an' : 'a'} ${kind}` : `an object`;
}

/**
 * Whether `value` is a plain object (`{…}` or `Object.create(null)`), not an array, a `Map`, a
 * `Date`, a class instance: what a config must be.
 *
 * @example
 * ```ts
 * isPlainObject({ maxAttempts: 3 }); // true
 * isPlainObject(new Map());          // false
 * ```
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Edit distance (insertions, deletions, substitutions, and swaps of two neighbours), case-insensitive. */
function distance(a: string, b: string): number {
  a = a.toLowerCase();
  b = b.toLowerCase();
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to a misspelt `word` (for "did you mean …"), or `undefined` when none is
 * close: at most 2 edits, and fewer than a third of the word's length.
 *
 * @example
 * ```ts
 * closest('sucess', ['success', 'error']); // 'success'
 * closest('banana', ['success', 'error']); // undefined
 * ```
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(word, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= 2 && bestDistance * 3 < Math.max(word.length, 3) ? best : undefined;
}

/**
 * `" (did you mean 'x'?)"` for the candidate closest to `word` (see {@link closest}), or `''`:
 * the tail of an "unknown option" or "unknown event type" message.
 *
 * @example
 * ```ts
 * throw new TypeError(`unknown event type '${type}'${didYouMean(type, ['success', 'error'])}`);
 * ```
 */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const match = closest(word, candidates);
  return match === undefined ? '' : ` (did you mean '${match}'?)`;
}

function describeRange(range: Range): string {
  const lower = range.gt !== undefined ? `(${range.gt}` : range.gte !== undefined ? `[${range.gte}` : undefined;
  let text: string;
  if (lower !== undefined && range.lte !== undefined) text = `in ${lower}, ${range.lte}]`;
  else if (range.gt !== undefined) text = `> ${range.gt}`;
  else if (range.gte !== undefined) text = `>= ${range.gte}`;
  else if (range.lte !== undefined) text = `<= ${range.lte}`;
  else text = 'finite';
  return range.integer ? `an integer ${text}` : text;
}

function inRange(value: number, range: Range): boolean {
  if (Number.isNaN(value)) return false;
  if (range.integer && !Number.isInteger(value)) return false;
  if (range.gt !== undefined && !(value > range.gt)) return false;
  if (range.gte !== undefined && !(value >= range.gte)) return false;
  if (range.lte !== undefined && !(value <= range.lte)) return false;
  if (!range.integer && !Number.isFinite(value) && value !== Infinity) return false;
  return true;
}

const UNNAMED = Symbol('unnamed');

/**
 * Reads and checks one component's options, once, at construction. Every problem throws with a
 * message naming the component, the option, the value and what is valid:
 * `CircuitBreaker 'pg': failureRateThreshold must be in (0, 100], got 0`.
 * Unknown keys are a `TypeError` (a misspelt option never becomes a silent default).
 *
 * @example
 * ```ts
 * const read = new ConfigReader('Bulkhead', 'db', config, ['maxConcurrentCalls', 'clock']);
 * const maxConcurrentCalls = read.number('maxConcurrentCalls', 25, { integer: true, gte: 1 });
 * const clock = read.clock();
 * ```
 */
export class ConfigReader<C extends object = Record<string, unknown>> {
  readonly #prefix: string;
  readonly #config: Record<string, unknown>;

  /**
   * Reads the config of the component `component` named `name` (a non-empty string, else a
   * `TypeError`). For a component without a name of its own (a registry, a budget), use
   * {@link ConfigReader.unnamed}.
   */
  constructor(component: string, name: string, config: C | undefined, keys: readonly (keyof C & string)[]) {
    const unnamed = (name as unknown) === UNNAMED;
    if (!unnamed && (typeof name !== 'string' || name.length === 0)) {
      throw new TypeError(`${component}: name must be a non-empty string, got ${describeValue(name)}`);
    }
    this.#prefix = unnamed ? component : `${component} '${name}'`;
    if (config === undefined || config === null) {
      this.#config = {};
      return;
    }
    if (!isPlainObject(config)) {
      throw new TypeError(`${this.#prefix}: config must be a plain object of options, got ${describeValue(config)}`);
    }
    this.#config = config;
    for (const key of Object.keys(config)) {
      if (!(keys as readonly string[]).includes(key)) {
        throw new TypeError(`${this.#prefix}: unknown option '${key}'${didYouMean(key, keys)} (known options: ${keys.join(', ')})`);
      }
    }
  }

  /**
   * A reader for a component without a name of its own (a registry, a retry budget): messages
   * start with the component alone.
   *
   * @example
   * ```ts
   * const read = ConfigReader.unnamed('RetryBudget', config, ['ratio', 'ttl']);
   * ```
   */
  static unnamed<C extends object>(component: string, config: C | undefined, keys: readonly (keyof C & string)[]): ConfigReader<C> {
    return new ConfigReader<C>(component, UNNAMED as unknown as string, config, keys);
  }

  /** The prefix of this reader's messages: `CircuitBreaker 'pg'`, or the component alone. */
  get source(): string {
    return this.#prefix;
  }

  /** Whether the option was given (and not `undefined`). */
  has(key: keyof C & string): boolean {
    return this.#config[key] !== undefined;
  }

  /** A `TypeError` or `RangeError` naming this component and option. */
  fail(key: string, must: string, value: unknown, kind: 'type' | 'range' = 'range'): never {
    const message = `${this.#prefix}: ${key} must be ${must}, got ${describeValue(value)}`;
    throw kind === 'type' ? new TypeError(message) : new RangeError(message);
  }

  /** A number in `range`, or `fallback` when the option is absent. */
  number(key: keyof C & string, fallback: number, range: Range): number {
    const value = this.#config[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'number') this.fail(key, 'a number', value, 'type');
    if (!inRange(value, range)) this.fail(key, describeRange(range), value);
    return value;
  }

  /** A duration (ms or `'10s'`-style string) in `range`, in milliseconds. */
  duration(key: keyof C & string, fallback: number, range: Range): number {
    const value = this.#config[key];
    if (value === undefined) return fallback;
    const ms = parseDuration(value);
    if (ms === undefined) this.fail(key, `a duration (ms, or a string like '250ms', '10s', '1.5m', '2h')`, value, 'type');
    if (!inRange(ms, range)) this.fail(key, describeRange(range), value);
    return ms;
  }

  /** A boolean. */
  boolean(key: keyof C & string, fallback: boolean): boolean {
    const value = this.#config[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') this.fail(key, 'true or false', value, 'type');
    return value;
  }

  /** One of `values`. */
  oneOf<V extends string>(key: keyof C & string, fallback: V, values: readonly V[]): V {
    const value = this.#config[key];
    if (value === undefined) return fallback;
    if (!values.includes(value as V)) this.fail(key, `one of ${values.map((v) => `'${v}'`).join(', ')}`, value, 'type');
    return value as V;
  }

  /** An optional function. */
  fn<F extends (...args: never[]) => unknown>(key: keyof C & string): F | undefined {
    const value = this.#config[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'function') this.fail(key, 'a function', value, 'type');
    return value as F;
  }

  /** An optional array of classes (constructors). */
  classes<T>(key: keyof C & string): readonly T[] | undefined {
    const value = this.#config[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || !value.every((c) => typeof c === 'function')) {
      this.fail(key, 'an array of error classes', value, 'type');
    }
    return value as T[];
  }

  /** An optional object that `check` accepts. */
  instance<T>(key: keyof C & string, what: string, check: (value: unknown) => boolean): T | undefined {
    const value = this.#config[key];
    if (value === undefined) return undefined;
    if (!check(value)) this.fail(key, what, value, 'type');
    return value as T;
  }

  /** The `clock` option, or {@link systemClock}. */
  clock(): Clock {
    const value = this.#config['clock'];
    if (value === undefined) return systemClock;
    const c = value as Partial<Clock>;
    if (typeof c !== 'object' || c === null || typeof c.now !== 'function' || typeof c.setTimeout !== 'function' || typeof c.clearTimeout !== 'function') {
      this.fail('clock', 'a Clock (now, setTimeout, clearTimeout)', value, 'type');
    }
    const reading: unknown = c.now();
    if (typeof reading !== 'number' || !Number.isFinite(reading)) {
      throw new TypeError(`${this.#prefix}: clock.now() must return a finite number of milliseconds, got ${describeValue(reading)}`);
    }
    return value as Clock;
  }

  /** Throws a `TypeError` when both options are given. */
  exclusive(a: keyof C & string, b: keyof C & string): void {
    if (this.has(a) && this.has(b)) {
      throw new TypeError(`${this.#prefix}: give ${a} or ${b}, not both`);
    }
  }
}
