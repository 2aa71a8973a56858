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
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'function') return `a function`;
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `an array`;
  return `an object`;
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

  /** `name` is `null` for a component without a name of its own (a registry). */
  constructor(component: string, name: string | null, config: C | undefined, keys: readonly (keyof C & string)[]) {
    this.#prefix = name === null ? component : `${component} '${name}'`;
    if (name !== null && (typeof name !== 'string' || name.length === 0)) {
      throw new TypeError(`${component}: name must be a non-empty string, got ${describeValue(name)}`);
    }
    if (config === undefined || config === null) {
      this.#config = {};
      return;
    }
    if (typeof config !== 'object' || Array.isArray(config)) {
      throw new TypeError(`${this.#prefix}: config must be an object, got ${describeValue(config)}`);
    }
    this.#config = config as Record<string, unknown>;
    const known = new Set<string>(keys);
    for (const key of Object.keys(config)) {
      if (!known.has(key)) {
        throw new TypeError(`${this.#prefix}: unknown option '${key}' (known options: ${keys.join(', ')})`);
      }
    }
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
    return value as Clock;
  }

  /** Throws a `TypeError` when both options are given. */
  exclusive(a: keyof C & string, b: keyof C & string): void {
    if (this.has(a) && this.has(b)) {
      throw new TypeError(`${this.#prefix}: give ${a} or ${b}, not both`);
    }
  }
}
