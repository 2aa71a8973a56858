import { BulkheadRegistry, PoolBulkheadRegistry } from '@breakwater/bulkhead';
import { CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import { describeValue, parseDuration, type Clock, type ErrorClass, type Registry } from '@breakwater/core';
import { RateLimiterRegistry } from '@breakwater/rate-limiter';
import { IntervalFunction, RetryRegistry } from '@breakwater/retry';
import { TimeLimiterRegistry } from '@breakwater/time-limiter';

/** The registries {@link fromConfig} builds, one per kind. */
export interface BreakwaterRegistries {
  readonly circuitBreaker: CircuitBreakerRegistry;
  readonly retry: RetryRegistry;
  readonly timeLimiter: TimeLimiterRegistry;
  readonly bulkhead: BulkheadRegistry;
  readonly poolBulkhead: PoolBulkheadRegistry;
  readonly rateLimiter: RateLimiterRegistry;
}

/** Options of {@link fromConfig}: what a YAML file cannot hold. */
export interface FromConfigOptions {
  /** The clock of every instance (a `VirtualClock` in tests). */
  readonly clock?: Clock;
  /** Error classes by the names the config uses in `record-exceptions`, `retry-exceptions`, `ignore-exceptions`. */
  readonly classes?: Readonly<Record<string, ErrorClass>>;
  /** Predicates by the names the config uses in `record-failure-predicate`, `result-predicate`, … */
  readonly predicates?: Readonly<Record<string, (value: unknown) => boolean>>;
}

/** How one Spring property becomes an option. */
type Rule =
  | { readonly as: string; readonly kind: 'value' | 'duration' | 'classes' | 'predicate' }
  /** Part of Spring's exponential / randomised wait: folded into an interval function. */
  | { readonly kind: 'backoff' }
  /** Spring-only (health indicators, event buffers, aspect order): read and ignored. */
  | { readonly kind: 'ignored' };

const value = (as: string): Rule => ({ as, kind: 'value' });
const duration = (as: string): Rule => ({ as, kind: 'duration' });
const classes = (as: string): Rule => ({ as, kind: 'classes' });
const predicate = (as: string): Rule => ({ as, kind: 'predicate' });
const backoff: Rule = { kind: 'backoff' };
const ignored: Rule = { kind: 'ignored' };

/** Each section: its Spring name, the registry it fills, its properties (camelCase) and where its wait goes. */
interface Section {
  readonly key: keyof BreakwaterRegistries;
  readonly rules: Readonly<Record<string, Rule>>;
  /** The property the base wait is read from and the option the interval function goes to. */
  readonly backoff?: { readonly from: string; readonly to: string; readonly max: string };
  readonly registry: (options: { defaultConfig: object; configs: Record<string, object> }) => Registry<{ name: string }, object>;
}

const SECTIONS: Readonly<Record<string, Section>> = {
  circuitbreaker: {
    key: 'circuitBreaker',
    registry: (o) => new CircuitBreakerRegistry(o),
    backoff: { from: 'waitDurationInOpenState', to: 'waitIntervalFunctionInOpenState', max: 'exponentialMaxWaitDurationInOpenState' },
    rules: {
      failureRateThreshold: value('failureRateThreshold'),
      slowCallRateThreshold: value('slowCallRateThreshold'),
      slowCallDurationThreshold: duration('slowCallDurationThreshold'),
      slidingWindowType: value('slidingWindowType'),
      slidingWindowSize: value('slidingWindowSize'),
      minimumNumberOfCalls: value('minimumNumberOfCalls'),
      permittedNumberOfCallsInHalfOpenState: value('permittedNumberOfCallsInHalfOpenState'),
      waitDurationInOpenState: duration('waitDurationInOpenState'),
      automaticTransitionFromOpenToHalfOpenEnabled: value('automaticTransitionFromOpenToHalfOpenEnabled'),
      maxWaitDurationInHalfOpenState: duration('maxWaitDurationInHalfOpenState'),
      transitionToStateAfterWaitDuration: value('transitionToStateAfterWaitDuration'),
      writableStackTraceEnabled: value('writableStackTraceEnabled'),
      initialState: value('initialState'),
      recordExceptions: classes('recordExceptions'),
      ignoreExceptions: classes('ignoreExceptions'),
      recordFailurePredicate: predicate('recordException'),
      ignoreExceptionPredicate: predicate('ignoreException'),
      recordResultPredicate: predicate('recordResult'),
      enableExponentialBackoff: backoff,
      exponentialBackoffMultiplier: backoff,
      exponentialMaxWaitDurationInOpenState: backoff,
      enableRandomizedWait: backoff,
      randomizedWaitFactor: backoff,
      registerHealthIndicator: ignored,
      allowHealthIndicatorToFail: ignored,
      eventConsumerBufferSize: ignored,
    },
  },
  retry: {
    key: 'retry',
    registry: (o) => new RetryRegistry(o),
    backoff: { from: 'waitDuration', to: 'intervalFunction', max: 'exponentialMaxWaitDuration' },
    rules: {
      maxAttempts: value('maxAttempts'),
      waitDuration: duration('waitDuration'),
      failAfterMaxAttempts: value('failAfterMaxAttempts'),
      retryExceptions: classes('retryExceptions'),
      ignoreExceptions: classes('ignoreExceptions'),
      retryExceptionPredicate: predicate('retryOnException'),
      resultPredicate: predicate('retryOnResult'),
      enableExponentialBackoff: backoff,
      exponentialBackoffMultiplier: backoff,
      exponentialMaxWaitDuration: backoff,
      enableRandomizedWait: backoff,
      randomizedWaitFactor: backoff,
      eventConsumerBufferSize: ignored,
    },
  },
  timelimiter: {
    key: 'timeLimiter',
    registry: (o) => new TimeLimiterRegistry(o),
    rules: {
      timeoutDuration: duration('timeoutDuration'),
      cancelRunningFuture: value('cancelRunningFuture'),
      eventConsumerBufferSize: ignored,
    },
  },
  bulkhead: {
    key: 'bulkhead',
    registry: (o) => new BulkheadRegistry(o),
    rules: {
      maxConcurrentCalls: value('maxConcurrentCalls'),
      maxWaitDuration: duration('maxWaitDuration'),
      fairCallHandlingEnabled: value('fairCallHandlingEnabled'),
      eventConsumerBufferSize: ignored,
      writableStackTraceEnabled: ignored,
    },
  },
  threadPoolBulkhead: {
    key: 'poolBulkhead',
    registry: (o) => new PoolBulkheadRegistry(o),
    rules: {
      maxThreadPoolSize: value('maxThreadPoolSize'),
      coreThreadPoolSize: value('coreThreadPoolSize'),
      queueCapacity: value('queueCapacity'),
      keepAliveDuration: ignored,
      eventConsumerBufferSize: ignored,
      writableStackTraceEnabled: ignored,
    },
  },
  ratelimiter: {
    key: 'rateLimiter',
    registry: (o) => new RateLimiterRegistry(o),
    rules: {
      limitForPeriod: value('limitForPeriod'),
      limitRefreshPeriod: duration('limitRefreshPeriod'),
      timeoutDuration: duration('timeoutDuration'),
      registerHealthIndicator: ignored,
      allowHealthIndicatorToFail: ignored,
      subscribeForEvents: ignored,
      eventConsumerBufferSize: ignored,
      writableStackTraceEnabled: ignored,
    },
  },
};

/**
 * Spring's relaxed binding: `sliding-window-size`, `slidingWindowSize` and `sliding_window_size`
 * are one key, compared without dashes, underscores or case.
 */
function canonical(key: string): string {
  return key.replace(/[-_]/g, '').toLowerCase();
}

/** The rule of a property by its relaxed name, with the property's camelCase name. */
function ruleOf(section: Section, key: string): { name: string; rule: Rule } | undefined {
  const wanted = canonical(key);
  for (const [name, rule] of Object.entries(section.rules)) if (canonical(name) === wanted) return { name, rule };
  return undefined;
}

const ISO = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;

/** A Spring duration: ms as a number or digits, `'10s'`-style, `'2d'`, or ISO-8601 (`'PT10S'`). */
function springDuration(raw: unknown): number | undefined {
  if (typeof raw === 'string' && /^\s*\d+\s*$/.test(raw)) return Number(raw);
  if (typeof raw === 'string' && /^\s*\d+(?:\.\d+)?\s*d\s*$/.test(raw)) return parseFloat(raw) * 86_400_000;
  const iso = typeof raw === 'string' ? ISO.exec(raw.trim()) : null;
  if (iso !== null && raw !== 'P' && raw !== 'PT') {
    const [d, h, m, s] = iso.slice(1).map((x) => (x === undefined ? 0 : Number(x)));
    return d! * 86_400_000 + h! * 3_600_000 + m! * 60_000 + s! * 1000;
  }
  return parseDuration(raw);
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

class Reader {
  constructor(readonly options: FromConfigOptions) {}

  fail(path: string, message: string, kind: 'type' | 'range' = 'type'): never {
    const text = `fromConfig: ${path}: ${message}`;
    throw kind === 'type' ? new TypeError(text) : new RangeError(text);
  }

  object(path: string, x: unknown): Record<string, unknown> {
    if (x === undefined || x === null) return {};
    if (!isPlainObject(x)) this.fail(path, `must be a mapping, got ${describeValue(x)}`);
    return x;
  }

  /** The Spring properties of one config or instance, as options (the wait still unfolded). */
  properties(path: string, section: Section, raw: unknown): { options: Record<string, unknown>; backoff: Record<string, unknown>; base?: string } {
    const options: Record<string, unknown> = {};
    const waits: Record<string, unknown> = {};
    let base: string | undefined;
    for (const [key, x] of Object.entries(this.object(path, raw))) {
      const at = `${path}.${key}`;
      if (canonical(key) === 'baseconfig') {
        if (typeof x !== 'string') this.fail(at, `must be the name of a config, got ${describeValue(x)}`);
        base = x;
        continue;
      }
      const found = ruleOf(section, key);
      if (found === undefined) this.fail(at, `unknown property (known: base-config, ${Object.keys(section.rules).map(kebab).join(', ')})`);
      const { name, rule } = found;
      if (rule.kind === 'ignored') continue;
      if (rule.kind === 'backoff') {
        waits[name] = name.includes('Duration') ? this.duration(at, x) : x;
        continue;
      }
      options[rule.as] = this.convert(at, rule.kind, x);
    }
    return base === undefined ? { options, backoff: waits } : { options, backoff: waits, base };
  }

  convert(at: string, kind: 'value' | 'duration' | 'classes' | 'predicate', x: unknown): unknown {
    switch (kind) {
      case 'value':
        return x;
      case 'duration':
        return this.duration(at, x);
      case 'classes': {
        const names = typeof x === 'string' ? x.split(',').map((s) => s.trim()) : x;
        if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) this.fail(at, `must be a list of class names, got ${describeValue(x)}`);
        return names.map((n) => this.options.classes?.[n] ?? this.fail(at, `no error class named '${n}': pass it in fromConfig(config, { classes: { '${n}': MyError } })`));
      }
      case 'predicate': {
        if (typeof x !== 'string') this.fail(at, `must be the name of a predicate, got ${describeValue(x)}`);
        return this.options.predicates?.[x] ?? this.fail(at, `no predicate named '${x}': pass it in fromConfig(config, { predicates: { '${x}': (value) => … } })`);
      }
    }
  }

  duration(at: string, x: unknown): number {
    const ms = springDuration(x);
    if (ms === undefined || !Number.isFinite(ms)) this.fail(at, `must be a duration (ms, '500ms', '10s', '1.5m', '2h', '1d' or ISO-8601 like 'PT10S'), got ${describeValue(x)}`);
    return ms;
  }
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Folds Spring's exponential / randomised wait properties into an interval function. */
function foldBackoff(reader: Reader, path: string, section: Section, options: Record<string, unknown>, waits: Record<string, unknown>): Record<string, unknown> {
  const exponential = waits['enableExponentialBackoff'] === true;
  const randomized = waits['enableRandomizedWait'] === true;
  for (const flag of ['enableExponentialBackoff', 'enableRandomizedWait']) {
    if (waits[flag] !== undefined && typeof waits[flag] !== 'boolean') reader.fail(`${path}.${kebab(flag)}`, `must be true or false, got ${describeValue(waits[flag])}`);
  }
  if ((!exponential && !randomized) || section.backoff === undefined) return options;
  const { from, to, max } = section.backoff;
  const initial = (options[from] as number | undefined) ?? (from === 'waitDuration' ? 500 : 60_000);
  const multiplier = (waits['exponentialBackoffMultiplier'] as number | undefined) ?? 1.5;
  const factor = (waits['randomizedWaitFactor'] as number | undefined) ?? 0.5;
  const cap = waits[max] as number | undefined;
  const { [from]: _wait, ...rest } = options;
  try {
    const interval = exponential && randomized
      ? IntervalFunction.ofExponentialRandomBackoff(initial, multiplier, factor, cap)
      : exponential
        ? IntervalFunction.ofExponentialBackoff(initial, multiplier, cap)
        : IntervalFunction.ofRandomized(initial, factor);
    return { ...rest, [to]: interval };
  } catch (error) {
    return reader.fail(path, (error as Error).message, error instanceof RangeError ? 'range' : 'type');
  }
}

/**
 * Builds every registry from a Spring-Boot-style structure, so a team carries its
 * `application.yml` settings over: `resilience4j.circuitbreaker.configs.default`,
 * `…instances.<name>` with `base-config`, kebab-case keys, duration strings. Each instance is
 * created at once (so a bad value fails here, not on first use). Unknown keys are errors that
 * name their path. Without a `base-config`, an instance is laid over `configs.default`, as in Spring.
 *
 * @example
 * ```ts
 * import { parse } from 'yaml';
 * const registries = fromConfig(parse(readFileSync('application.yml', 'utf8')));
 * const breaker = registries.circuitBreaker.get('pg-simulator');
 * ```
 */
export function fromConfig(config: unknown, options: FromConfigOptions = {}): BreakwaterRegistries {
  const reader: Reader = new Reader(options);
  let root = reader.object('(root)', config);
  let prefix = '';
  if ('resilience4j' in root) {
    const { resilience4j, ...others } = root;
    const rest = Object.keys(others);
    if (rest.length > 0) reader.fail(rest[0]!, 'unknown key next to resilience4j');
    root = reader.object('resilience4j', resilience4j);
    prefix = 'resilience4j.';
  }
  const built: Partial<Record<keyof BreakwaterRegistries, Registry<{ name: string }, object>>> = {};
  const sections = new Map(Object.entries(SECTIONS).map(([name, section]) => [canonical(name), section]));
  for (const [key, raw] of Object.entries(root)) {
    const path = `${prefix}${key}`;
    const section = sections.get(canonical(key));
    if (section === undefined) reader.fail(path, `unknown section (known: ${Object.keys(SECTIONS).map(kebab).join(', ')})`);
    built[section.key] = buildSection(reader, path, section, raw, options.clock);
  }
  const clock = options.clock === undefined ? {} : { clock: options.clock };
  const empty = (s: Section) => s.registry({ defaultConfig: clock, configs: {} });
  return {
    circuitBreaker: (built.circuitBreaker ?? empty(SECTIONS['circuitbreaker']!)) as CircuitBreakerRegistry,
    retry: (built.retry ?? empty(SECTIONS['retry']!)) as RetryRegistry,
    timeLimiter: (built.timeLimiter ?? empty(SECTIONS['timelimiter']!)) as TimeLimiterRegistry,
    bulkhead: (built.bulkhead ?? empty(SECTIONS['bulkhead']!)) as BulkheadRegistry,
    poolBulkhead: (built.poolBulkhead ?? empty(SECTIONS['threadPoolBulkhead']!)) as PoolBulkheadRegistry,
    rateLimiter: (built.rateLimiter ?? empty(SECTIONS['ratelimiter']!)) as RateLimiterRegistry,
  };
}

function buildSection(reader: Reader, path: string, section: Section, raw: unknown, clock: Clock | undefined): Registry<{ name: string }, object> {
  const body = reader.object(path, raw);
  for (const key of Object.keys(body)) {
    const name = canonical(key);
    // Spring's `*-aspect-order` orders its AOP advice; here the order is the one written in decorate().
    if (name !== 'configs' && name !== 'instances' && !name.endsWith('aspectorder')) reader.fail(`${path}.${key}`, 'unknown key (known: configs, instances)');
  }
  const rawConfigs = reader.object(`${path}.configs`, body['configs']);
  const rawInstances = reader.object(`${path}.instances`, body['instances']);

  // Named configs, with base-config chains resolved (a config may build on another).
  const read = new Map<string, ReturnType<Reader['properties']>>();
  for (const [name, props] of Object.entries(rawConfigs)) read.set(name, reader.properties(`${path}.configs.${name}`, section, props));
  const resolved = new Map<string, Record<string, unknown>>();
  const resolve = (name: string, at: string, seen: readonly string[]): { options: Record<string, unknown>; backoff: Record<string, unknown> } => {
    const entry = read.get(name);
    if (entry === undefined) reader.fail(at, `no config named '${name}' (known: ${[...read.keys()].join(', ') || 'none'})`, 'range');
    if (seen.includes(name)) reader.fail(at, `base-config loops: ${[...seen, name].join(' → ')}`, 'range');
    if (entry.base === undefined) return entry;
    const parent = resolve(entry.base, `${path}.configs.${name}.base-config`, [...seen, name]);
    return { options: { ...parent.options, ...entry.options }, backoff: { ...parent.backoff, ...entry.backoff } };
  };
  const withClock = (o: Record<string, unknown>) => (clock === undefined ? o : { ...o, clock });
  for (const name of read.keys()) {
    const r = resolve(name, `${path}.configs.${name}`, []);
    resolved.set(name, withClock(foldBackoff(reader, `${path}.configs.${name}`, section, r.options, r.backoff)));
  }
  const { default: defaultConfig = withClock({}), ...configs } = Object.fromEntries(resolved);
  let registry: Registry<{ name: string }, object>;
  try {
    registry = section.registry({ defaultConfig, configs });
  } catch (error) {
    return reader.fail(`${path}.configs`, (error as Error).message, error instanceof RangeError ? 'range' : 'type');
  }

  // Instances: over their base-config, else over configs.default; each one built now.
  for (const [name, props] of Object.entries(rawInstances)) {
    const at = `${path}.instances.${name}`;
    const own = reader.properties(at, section, props);
    const base = own.base === undefined ? (read.has('default') ? resolve('default', at, []) : { options: {}, backoff: {} }) : resolve(own.base, `${at}.base-config`, []);
    const options = withClock(foldBackoff(reader, at, section, { ...base.options, ...own.options }, { ...base.backoff, ...own.backoff }));
    try {
      registry.get(name, options);
    } catch (error) {
      reader.fail(at, (error as Error).message, error instanceof RangeError ? 'range' : 'type');
    }
  }
  return registry;
}
