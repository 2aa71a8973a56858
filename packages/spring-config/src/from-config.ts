import { BULKHEAD_OPTIONS, BulkheadRegistry, POOL_BULKHEAD_OPTIONS, PoolBulkheadRegistry } from '@breakwater/bulkhead';
import { CIRCUIT_BREAKER_OPTIONS, CircuitBreakerRegistry, STATES } from '@breakwater/circuit-breaker';
import { closest as closestOf, describeValue, isPlainObject, parseDuration, type Clock, type ErrorClass, type Registry } from '@breakwater/core';
import { RATE_LIMITER_OPTIONS, RateLimiterRegistry } from '@breakwater/rate-limiter';
import { IntervalFunction, RETRY_OPTIONS, RetryRegistry } from '@breakwater/retry';
import { TIME_LIMITER_OPTIONS, TimeLimiterRegistry } from '@breakwater/time-limiter';

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
  /** Functions by the names the config uses in `interval-bi-function` and `consume-result-before-retry-attempt`. */
  readonly functions?: Readonly<Record<string, (...args: never[]) => unknown>>;
}

// ---------------------------------------------------------------------------------------------
// The key table. Each package's own list of options (CIRCUIT_BREAKER_OPTIONS, …) says what there is
// to map; the tables below say, for every one of them, which Spring property gives it, or why none
// can. The `satisfies` clauses make a new option of a package a compile error here until it has an
// entry, and an option without one is refused at run time (never dropped): see `deriveRules`.
// ---------------------------------------------------------------------------------------------

/** How a Spring value is read. */
type Kind = 'number' | 'boolean' | 'duration' | 'enum' | 'classes' | 'predicate' | 'function';

/** Where one option of a package comes from in a Spring config, or why no key can give it. */
type OptionSource =
  /** The Spring property (camelCase) that gives the option. `breakwaterOnly`: not in Resilience4j's Spring properties. */
  | { readonly spring: string; readonly kind: Kind; readonly values?: readonly string[]; readonly breakwaterOnly?: true }
  /** Built from other Spring properties (which ones). */
  | { readonly folded: string }
  /** Given to `fromConfig` itself, not in the file. */
  | { readonly fromOptions: keyof FromConfigOptions }
  /** No key can give it: the reason. */
  | { readonly refused: string };

/** A Spring property with no option of its own. */
type SpringOnly =
  /** Part of Spring's exponential / randomised wait: folded into an interval function. */
  | { readonly backoff: Kind }
  /** Spring Boot or JVM machinery that has nothing to act on here: read and ignored, for this reason. */
  | { readonly ignored: string }
  /** Spring Boot 2's lenient class binding: unknown exception class names are skipped with a warning. */
  | { readonly lenientClasses: true };

type Table<L extends readonly string[]> = { readonly [K in L[number]]: OptionSource };

const to = (spring: string, kind: Kind, values?: readonly string[]): OptionSource => (values === undefined ? { spring, kind } : { spring, kind, values });
const breakwaterOnly = (spring: string, kind: Kind): OptionSource => ({ spring, kind, breakwaterOnly: true });
const CLOCK: OptionSource = { fromOptions: 'clock' };

const HEALTH = 'a Spring Boot Actuator health indicator; there is no Actuator here (read the instance’s state and metrics)';
const EVENT_BUFFER = 'the size of the Actuator’s event buffer; there is no Actuator here (subscribe with on(…))';

const CIRCUIT_BREAKER_TABLE = {
  failureRateThreshold: to('failureRateThreshold', 'number'),
  slowCallRateThreshold: to('slowCallRateThreshold', 'number'),
  slowCallDurationThreshold: to('slowCallDurationThreshold', 'duration'),
  slidingWindowType: to('slidingWindowType', 'enum', ['COUNT_BASED', 'TIME_BASED']),
  slidingWindowSize: to('slidingWindowSize', 'number'),
  minimumNumberOfCalls: to('minimumNumberOfCalls', 'number'),
  permittedNumberOfCallsInHalfOpenState: to('permittedNumberOfCallsInHalfOpenState', 'number'),
  waitDurationInOpenState: to('waitDurationInOpenState', 'duration'),
  waitIntervalFunctionInOpenState: { folded: 'wait-duration-in-open-state with enable-exponential-backoff or enable-randomized-wait' },
  automaticTransitionFromOpenToHalfOpenEnabled: to('automaticTransitionFromOpenToHalfOpenEnabled', 'boolean'),
  maxWaitDurationInHalfOpenState: to('maxWaitDurationInHalfOpenState', 'duration'),
  transitionToStateAfterWaitDuration: to('transitionToStateAfterWaitDuration', 'enum', ['OPEN', 'CLOSED']),
  recordExceptions: to('recordExceptions', 'classes'),
  recordException: to('recordFailurePredicate', 'predicate'),
  ignoreExceptions: to('ignoreExceptions', 'classes'),
  ignoreException: to('ignoreExceptionPredicate', 'predicate'),
  recordResult: to('recordResultPredicate', 'predicate'),
  initialState: to('initialState', 'enum', STATES),
  writableStackTraceEnabled: to('writableStackTraceEnabled', 'boolean'),
  clock: CLOCK,
} as const satisfies Table<typeof CIRCUIT_BREAKER_OPTIONS>;

const RETRY_TABLE = {
  maxAttempts: to('maxAttempts', 'number'),
  waitDuration: to('waitDuration', 'duration'),
  intervalFunction: { folded: 'wait-duration with enable-exponential-backoff or enable-randomized-wait' },
  intervalBiFunction: to('intervalBiFunction', 'function'),
  retryExceptions: to('retryExceptions', 'classes'),
  retryOnException: to('retryExceptionPredicate', 'predicate'),
  ignoreExceptions: to('ignoreExceptions', 'classes'),
  retryOnResult: to('resultPredicate', 'predicate'),
  failAfterMaxAttempts: to('failAfterMaxAttempts', 'boolean'),
  consumeResultBeforeRetryAttempt: to('consumeResultBeforeRetryAttempt', 'function'),
  retryCallNotPermitted: breakwaterOnly('retryCallNotPermitted', 'boolean'),
  budget: { refused: 'a RetryBudget is a live object shared by several retries, which a config file cannot hold: create that Retry in code (new Retry(name, { budget, … }))' },
  clock: CLOCK,
  random: { refused: 'a source of randomness is code, not configuration: create that Retry in code (new Retry(name, { random, … }))' },
} as const satisfies Table<typeof RETRY_OPTIONS>;

const TIME_LIMITER_TABLE = {
  timeoutDuration: to('timeoutDuration', 'duration'),
  cancelRunningFuture: to('cancelRunningFuture', 'boolean'),
  clock: CLOCK,
} as const satisfies Table<typeof TIME_LIMITER_OPTIONS>;

const BULKHEAD_TABLE = {
  maxConcurrentCalls: to('maxConcurrentCalls', 'number'),
  maxWaitDuration: to('maxWaitDuration', 'duration'),
  fairCallHandlingEnabled: breakwaterOnly('fairCallHandlingEnabled', 'boolean'),
  writableStackTraceEnabled: to('writableStackTraceEnabled', 'boolean'),
  clock: CLOCK,
} as const satisfies Table<typeof BULKHEAD_OPTIONS>;

const POOL_BULKHEAD_TABLE = {
  maxThreadPoolSize: to('maxThreadPoolSize', 'number'),
  coreThreadPoolSize: to('coreThreadPoolSize', 'number'),
  queueCapacity: to('queueCapacity', 'number'),
  writableStackTraceEnabled: to('writableStackTraceEnabled', 'boolean'),
  clock: CLOCK,
} as const satisfies Table<typeof POOL_BULKHEAD_OPTIONS>;

const RATE_LIMITER_TABLE = {
  limitForPeriod: to('limitForPeriod', 'number'),
  limitRefreshPeriod: to('limitRefreshPeriod', 'duration'),
  timeoutDuration: to('timeoutDuration', 'duration'),
  drainPermissionsOnResult: breakwaterOnly('drainPermissionsOnResult', 'predicate'),
  writableStackTraceEnabled: to('writableStackTraceEnabled', 'boolean'),
  clock: CLOCK,
} as const satisfies Table<typeof RATE_LIMITER_OPTIONS>;

/** How a section's wait settings fold into an interval function. */
interface Wait {
  /** The constant wait's option, also the base of the interval function. */
  readonly from: string;
  /** The option the interval function goes to. */
  readonly to: string;
  /** The Spring property of the exponential cap. */
  readonly max: string;
  /** The wait when `from` is not given (the component's default). */
  readonly initial: number;
  /** An option that replaces the wait altogether when given (as in Resilience4j). */
  readonly replacedBy?: string;
  /** Spring refuses exponential and randomised waits together for this kind. */
  readonly exclusiveFlags?: boolean;
}

/** One Spring section (`resilience4j.<name>`). */
interface SectionSpec {
  /** Spring's name of the section. */
  readonly name: string;
  readonly key: keyof BreakwaterRegistries;
  /** The package's own list of options, and where each comes from. */
  readonly options: readonly string[];
  readonly table: Readonly<Record<string, OptionSource>>;
  readonly springOnly: Readonly<Record<string, SpringOnly>>;
  /** Legacy names of `instances` that Spring still binds (`backends`, `limiters`). */
  readonly aliases: readonly string[];
  /** Spring's `<kind>AspectOrder` section key, if the kind has one. */
  readonly aspectOrder?: string;
  readonly wait?: Wait;
  readonly registry: (options: { defaultConfig: object; configs: Record<string, object> }) => Registry<{ name: string }, object>;
}

const SPECS: readonly SectionSpec[] = [
  {
    name: 'circuitbreaker',
    key: 'circuitBreaker',
    options: CIRCUIT_BREAKER_OPTIONS,
    table: CIRCUIT_BREAKER_TABLE,
    springOnly: {
      enableExponentialBackoff: { backoff: 'boolean' },
      exponentialBackoffMultiplier: { backoff: 'number' },
      exponentialMaxWaitDurationInOpenState: { backoff: 'duration' },
      enableRandomizedWait: { backoff: 'boolean' },
      randomizedWaitFactor: { backoff: 'number' },
      ignoreClassBindingExceptions: { lenientClasses: true },
      registerHealthIndicator: { ignored: HEALTH },
      allowHealthIndicatorToFail: { ignored: HEALTH },
      eventConsumerBufferSize: { ignored: EVENT_BUFFER },
    },
    aliases: ['backends'],
    aspectOrder: 'circuitBreakerAspectOrder',
    wait: { from: 'waitDurationInOpenState', to: 'waitIntervalFunctionInOpenState', max: 'exponentialMaxWaitDurationInOpenState', initial: 60_000, exclusiveFlags: true },
    registry: (o) => new CircuitBreakerRegistry(o),
  },
  {
    name: 'retry',
    key: 'retry',
    options: RETRY_OPTIONS,
    table: RETRY_TABLE,
    springOnly: {
      enableExponentialBackoff: { backoff: 'boolean' },
      exponentialBackoffMultiplier: { backoff: 'number' },
      exponentialMaxWaitDuration: { backoff: 'duration' },
      enableRandomizedWait: { backoff: 'boolean' },
      randomizedWaitFactor: { backoff: 'number' },
      eventConsumerBufferSize: { ignored: EVENT_BUFFER },
    },
    aliases: ['backends'],
    aspectOrder: 'retryAspectOrder',
    wait: { from: 'waitDuration', to: 'intervalFunction', max: 'exponentialMaxWaitDuration', initial: 500, replacedBy: 'intervalBiFunction' },
    registry: (o) => new RetryRegistry(o),
  },
  {
    name: 'timelimiter',
    key: 'timeLimiter',
    options: TIME_LIMITER_OPTIONS,
    table: TIME_LIMITER_TABLE,
    springOnly: { eventConsumerBufferSize: { ignored: EVENT_BUFFER } },
    aliases: [],
    aspectOrder: 'timeLimiterAspectOrder',
    registry: (o) => new TimeLimiterRegistry(o),
  },
  {
    name: 'bulkhead',
    key: 'bulkhead',
    options: BULKHEAD_OPTIONS,
    table: BULKHEAD_TABLE,
    springOnly: { eventConsumerBufferSize: { ignored: EVENT_BUFFER } },
    aliases: ['backends'],
    aspectOrder: 'bulkheadAspectOrder',
    registry: (o) => new BulkheadRegistry(o),
  },
  {
    name: 'thread-pool-bulkhead',
    key: 'poolBulkhead',
    options: POOL_BULKHEAD_OPTIONS,
    table: POOL_BULKHEAD_TABLE,
    springOnly: {
      keepAliveDuration: { ignored: 'how long idle JVM threads live; a PoolBulkhead has async slots, not threads' },
      contextPropagators: { ignored: 'JVM thread-locals copied to the pool’s threads; a PoolBulkhead call runs on the caller’s event loop, where AsyncLocalStorage already follows it' },
      eventConsumerBufferSize: { ignored: EVENT_BUFFER },
    },
    aliases: ['backends'],
    registry: (o) => new PoolBulkheadRegistry(o),
  },
  {
    name: 'ratelimiter',
    key: 'rateLimiter',
    options: RATE_LIMITER_OPTIONS,
    table: RATE_LIMITER_TABLE,
    springOnly: {
      registerHealthIndicator: { ignored: HEALTH },
      allowHealthIndicatorToFail: { ignored: HEALTH },
      subscribeForEvents: { ignored: 'subscribes the Actuator’s event buffer; there is no Actuator here (subscribe with on(…))' },
      eventConsumerBufferSize: { ignored: EVENT_BUFFER },
    },
    aliases: ['limiters'],
    aspectOrder: 'rateLimiterAspectOrder',
    registry: (o) => new RateLimiterRegistry(o),
  },
];

/** Keys of `resilience4j` that are not sections of a kind Breakwater has. */
const OTHER_SECTIONS: Readonly<Record<string, { readonly ignored: string } | { readonly refused: string }>> = {
  thread: { ignored: 'the JVM thread type (platform or virtual); Node has one event loop' },
  scheduled: { ignored: 'the JVM executor of asynchronous retries; Node’s timers need none' },
  micrometer: { refused: 'Breakwater has no Timer (resilience4j-micrometer’s timed calls): remove this section, or delete it from the parsed object before calling fromConfig' },
};

/** Section-level keys every section may have besides its instances. */
const SECTION_IGNORED = {
  tags: 'Micrometer tags added to every metric; Breakwater’s metrics exporters take their own labels',
  aspectOrder: 'the order of Spring’s AOP advice; here the order of the layers is the one written in decorate()',
} as const;

/** What a Spring property of a section is. */
type Rule =
  | { readonly type: 'option'; readonly spring: string; readonly option: string; readonly kind: Kind; readonly values?: readonly string[] }
  | { readonly type: 'backoff'; readonly spring: string; readonly kind: Kind }
  | { readonly type: 'lenientClasses'; readonly spring: string }
  | { readonly type: 'ignored'; readonly spring: string; readonly reason: string }
  | { readonly type: 'refused'; readonly spring: string; readonly reason: string };

interface Section extends SectionSpec {
  /** The rules by relaxed name (see {@link canonical}). */
  readonly rules: ReadonlyMap<string, Rule>;
}

/**
 * The rules of a section, derived from the package's own list of options: an option of the list
 * without an entry in the table is refused (so a key for it is never accepted nor dropped).
 */
function deriveRules(spec: SectionSpec): Map<string, Rule> {
  const rules = new Map<string, Rule>();
  const add = (name: string, rule: Rule) => {
    if (!rules.has(canonical(name))) rules.set(canonical(name), rule);
  };
  const sources = spec.options.map((option) => [option, spec.table[option] ?? { refused: `fromConfig does not map the ${option} option` }] as const);
  for (const [option, source] of sources) {
    if ('spring' in source) add(source.spring, { type: 'option', spring: source.spring, option, kind: source.kind, ...(source.values === undefined ? {} : { values: source.values }) });
  }
  for (const [spring, only] of Object.entries(spec.springOnly)) {
    add(spring, 'backoff' in only ? { type: 'backoff', spring, kind: only.backoff } : 'ignored' in only ? { type: 'ignored', spring, reason: only.ignored } : { type: 'lenientClasses', spring });
  }
  for (const [option, source] of sources) {
    const reason =
      'spring' in source
        ? `is Breakwater’s name of this option; a Spring config calls it '${kebab(source.spring)}'`
        : 'folded' in source
          ? `cannot be given: it is built from ${source.folded}`
          : 'fromOptions' in source
            ? `is not read from the config: give it as fromConfig(config, { ${source.fromOptions} })`
            : `cannot be given in a config: ${source.refused}`;
    add(option, { type: 'refused', spring: option, reason });
  }
  return rules;
}

const SECTIONS: readonly Section[] = SPECS.map((spec) => ({ ...spec, rules: deriveRules(spec) }));

/**
 * Every option of every package and what `fromConfig` does with it (`mapped` from a Spring
 * property, or `refused` with the reason), and every Spring-only property of each section: for
 * the tests and the README.
 */
export function fromConfigKeyTable(): {
  sections: Record<string, { options: Record<string, { mapped: string; kind: Kind; values?: readonly string[] } | { refused: string }>; springOnly: Record<string, string> }>;
  sectionKeys: Record<string, string>;
  otherSections: Record<string, string>;
} {
  const out: ReturnType<typeof fromConfigKeyTable>['sections'] = {};
  for (const section of SECTIONS) {
    const options: ReturnType<typeof fromConfigKeyTable>['sections'][string]['options'] = {};
    for (const option of section.options) {
      const rule = [...section.rules.values()].find((r) => r.type === 'option' && r.option === option);
      options[option] =
        rule?.type === 'option'
          ? { mapped: kebab(rule.spring), kind: rule.kind, ...(rule.values === undefined ? {} : { values: rule.values }) }
          : { refused: (section.rules.get(canonical(option)) as { reason: string }).reason };
    }
    const springOnly: Record<string, string> = {};
    for (const rule of section.rules.values()) {
      if (rule.type === 'backoff') springOnly[kebab(rule.spring)] = `folded into ${section.wait!.to}`;
      if (rule.type === 'ignored') springOnly[kebab(rule.spring)] = `ignored: ${rule.reason}`;
      if (rule.type === 'lenientClasses') springOnly[kebab(rule.spring)] = 'unknown exception class names are skipped with a warning';
    }
    out[section.name] = { options, springOnly };
  }
  return {
    sections: out,
    sectionKeys: { tags: `ignored: ${SECTION_IGNORED.tags}`, '<kind>-aspect-order': `ignored: ${SECTION_IGNORED.aspectOrder}` },
    otherSections: Object.fromEntries(Object.entries(OTHER_SECTIONS).map(([k, v]) => [k, 'ignored' in v ? `ignored: ${v.ignored}` : `refused: ${v.refused}`])),
  };
}

// ---------------------------------------------------------------------------------------------
// Spring's relaxed binding.
// ---------------------------------------------------------------------------------------------

/**
 * Spring's relaxed binding of property names: `sliding-window-size`, `slidingWindowSize` and
 * `sliding_window_size` are one name, compared without dashes, underscores or case.
 */
function canonical(key: string): string {
  return key.replace(/[-_]/g, '').toLowerCase();
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The candidate closest to `word` by relaxed name (core's edit distance), if it is close enough to be a slip. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  const match = closestOf(canonical(word), candidates.map(canonical));
  return match === undefined ? undefined : candidates.find((c) => canonical(c) === match);
}

/** `unknown <what>, did you mean 'x'?`, or the list of what is known. */
function unknown(what: string, key: string, known: readonly string[]): string {
  const guess = closest(key, known);
  return guess !== undefined ? `unknown ${what}, did you mean '${guess}'?` : `unknown ${what} (known: ${known.join(', ')})`;
}

const ISO = /^([-+]?)P(?:([-+]?\d+(?:[.,]\d+)?)D)?(?:T(?:([-+]?\d+(?:[.,]\d+)?)H)?(?:([-+]?\d+(?:[.,]\d+)?)M)?(?:([-+]?\d+(?:[.,]\d+)?)S)?)?$/i;
const SPRING_UNITS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const SIMPLE = /^([-+]?\d+(?:\.\d+)?)\s*([a-z]{0,2})$/i;

/**
 * A Spring duration in ms: a number (ms), Spring's simple form (`500`, `500ms`, `2s`, `2S`, `1d`,
 * `ns` and `us` too, units in any case), ISO-8601 in any case (`PT2S`, `pt0.1s`, `P1DT2H`), or
 * Breakwater's own form (`1.5m`).
 */
function springDuration(raw: unknown): number | undefined {
  if (typeof raw !== 'string') return parseDuration(raw);
  const text = raw.trim();
  const simple = SIMPLE.exec(text);
  if (simple !== null) {
    const unit = simple[2]!.toLowerCase() || 'ms';
    const factor = SPRING_UNITS[unit];
    return factor === undefined ? undefined : Number(simple[1]) * factor;
  }
  const iso = ISO.exec(text);
  if (iso === null || /^[-+]?PT?$/i.test(text) || /T$/i.test(text)) return undefined;
  const [d, h, m, s] = iso.slice(2).map((x) => (x === undefined ? 0 : Number(x.replace(',', '.'))));
  const ms = d! * 86_400_000 + h! * 3_600_000 + m! * 60_000 + s! * 1000;
  return iso[1] === '-' ? -ms : ms;
}

const TRUE = new Set(['true', 'on', 'yes', '1']);
const FALSE = new Set(['false', 'off', 'no', '0']);
const NUMBER = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$/i;

function describe(x: unknown): string {
  if (typeof x === 'object' && x !== null && !Array.isArray(x) && !isPlainObject(x)) {
    const name = (x as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string' && name !== '') return `a ${name}`;
  }
  return describeValue(x);
}

/** A path with one more key: `a.b`, or `a[b.c]` for a key holding a dot (Spring's bracket notation). */
function join(path: string, key: string): string {
  if (key.includes('.')) return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/** One read setting: where it was written, and its value (converted; names not yet resolved). */
interface Setting {
  readonly at: string;
  readonly value: unknown;
}

/** The properties of one config or instance. */
interface Block {
  readonly at: string;
  readonly settings: ReadonlyMap<Rule, Setting>;
  readonly base?: Setting & { readonly value: string };
}

class Reader {
  /** Class names already reported as skipped (lenient class binding), each reported once. */
  readonly #skipped = new Set<string>();

  constructor(readonly options: FromConfigOptions) {}

  fail(path: string, message: string, kind: 'type' | 'range' = 'type'): never {
    const text = `fromConfig: ${path === '' ? '(root)' : path}: ${message}`;
    throw kind === 'type' ? new TypeError(text) : new RangeError(text);
  }

  object(path: string, x: unknown): Record<string, unknown> {
    if (x === undefined || x === null) return {};
    if (!isPlainObject(x)) this.fail(path, `must be a mapping, got ${describe(x)}`);
    return x;
  }

  /**
   * Spring reads a YAML file as flat dotted names: `resilience4j.circuitbreaker:` as one key, or
   * `resilience4j.circuitbreaker.instances.pg.sliding-window-size: 5`, is the same as nesting. This
   * nests every dotted key (a `[name.with.dots]` segment stays one key, brackets dropped) and merges
   * what meets; a value given twice is an error.
   */
  expand(path: string, x: unknown): unknown {
    if (!isPlainObject(x)) return x;
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [raw, value] of Object.entries(x)) {
      const segments = this.split(path === '' ? raw : `${path}.${raw}`, raw);
      let node = out;
      let at = path;
      for (const segment of segments.slice(0, -1)) {
        at = join(at, segment);
        const next = node[segment];
        if (next === undefined) node[segment] = Object.create(null) as Record<string, unknown>;
        else if (!isPlainObject(next)) this.fail(at, 'is given twice (a value, and a mapping under it)');
        node = node[segment] as Record<string, unknown>;
      }
      const last = segments[segments.length - 1]!;
      at = join(at, last);
      const child = this.expand(at, value);
      if (!(last in node)) node[last] = child;
      else this.merge(at, node[last], child, node, last);
    }
    return out;
  }

  merge(at: string, into: unknown, from: unknown, parent: Record<string, unknown>, key: string): void {
    if (!isPlainObject(into) || !isPlainObject(from)) this.fail(at, 'is given twice');
    for (const [k, v] of Object.entries(from)) {
      if (!(k in into)) into[k] = v;
      else this.merge(join(at, k), into[k], v, into, k);
    }
    parent[key] = into;
  }

  /** `a.b.[c.d]` → `a`, `b`, `c.d`. */
  split(at: string, raw: string): string[] {
    const segments: string[] = [];
    let i = 0;
    for (;;) {
      let segment: string;
      if (raw[i] === '[') {
        const end = raw.indexOf(']', i);
        if (end < 0) this.fail(at, `has a '[' without its ']'`);
        segment = raw.slice(i + 1, end);
        i = end + 1;
        if (i < raw.length && raw[i] !== '.') this.fail(at, `must have a '.' after ']'`);
      } else {
        const dot = raw.indexOf('.', i);
        const end = dot < 0 ? raw.length : dot;
        segment = raw.slice(i, end);
        i = end;
      }
      if (segment.length === 0) this.fail(at, 'has an empty name (two dots, or a dot at an end)');
      segments.push(segment);
      if (i >= raw.length) return segments;
      i++; // the dot
      if (i >= raw.length) this.fail(at, 'has an empty name (two dots, or a dot at an end)');
    }
  }

  /** The key of `node` whose relaxed name is `name`: at most one spelling of it. */
  pick(path: string, node: Record<string, unknown>, name: string): { key: string; at: string; value: unknown } | undefined {
    const keys = Object.keys(node).filter((k) => canonical(k) === canonical(name));
    if (keys.length > 1) this.fail(join(path, keys[1]!), `is given twice (also as '${keys[0]}')`);
    return keys.length === 0 ? undefined : { key: keys[0]!, at: join(path, keys[0]!), value: node[keys[0]!] };
  }

  /** The properties of one config or instance, each read and converted (names resolved later). */
  block(at: string, section: Section, raw: unknown): Block {
    const settings = new Map<Rule, Setting>();
    let base: (Setting & { readonly value: string }) | undefined;
    for (const [key, x] of Object.entries(this.object(at, raw))) {
      const path = join(at, key);
      if (canonical(key) === 'baseconfig') {
        if (base !== undefined) this.fail(path, `is given twice (also as ${base.at})`);
        if (typeof x !== 'string' || x === '') this.fail(path, `must be the name of a config, got ${describe(x)}`);
        base = { at: path, value: x };
        continue;
      }
      const rule = section.rules.get(canonical(key));
      if (rule === undefined) this.fail(path, unknown('property', key, ['base-config', ...known(section)]));
      if (rule.type === 'refused') this.fail(path, rule.reason);
      if (rule.type === 'ignored') continue;
      const earlier = settings.get(rule);
      if (earlier !== undefined) this.fail(path, `is given twice (also as ${earlier.at})`);
      settings.set(rule, { at: path, value: this.convert(path, rule.type === 'lenientClasses' ? 'boolean' : rule.kind, x, rule.type === 'option' ? rule.values : undefined) });
    }
    const replacedBy = section.wait?.replacedBy;
    if (replacedBy !== undefined) {
      const replacing = [...settings].find(([r]) => r.type === 'option' && r.option === replacedBy);
      const replaced = [...settings].find(([r]) => r.type === 'backoff' || (r.type === 'option' && r.option === section.wait!.from));
      if (replacing !== undefined && replaced !== undefined) {
        this.fail(replacing[1].at, `and ${replaced[1].at} cannot be given together: ${kebab(replacing[0].spring)} replaces the wait settings`);
      }
    }
    return base === undefined ? { at, settings } : { at, settings, base };
  }

  convert(at: string, kind: Kind, x: unknown, values: readonly string[] | undefined): unknown {
    if (x === undefined || x === null) this.fail(at, 'has no value (give one, or remove the key)');
    switch (kind) {
      case 'number': {
        if (typeof x === 'number') return x;
        if (typeof x === 'string' && NUMBER.test(x.trim())) return Number(x.trim());
        return this.fail(at, `must be a number, got ${describe(x)}`);
      }
      case 'boolean': {
        if (typeof x === 'boolean') return x;
        const text = typeof x === 'string' ? x.trim().toLowerCase() : undefined;
        if (text !== undefined && TRUE.has(text)) return true;
        if (text !== undefined && FALSE.has(text)) return false;
        return this.fail(at, `must be true or false, got ${describe(x)}`);
      }
      case 'duration': {
        const ms = springDuration(x);
        if (ms === undefined || !Number.isFinite(ms)) this.fail(at, `must be a duration (ms, '500ms', '10s', '2S', '1d' or ISO-8601 like 'PT10S'), got ${describe(x)}`);
        return ms;
      }
      case 'enum': {
        // Spring's lenient enum binding: 'time_based', 'time-based', 'TimeBased' are TIME_BASED.
        const all = values ?? [];
        const wanted = typeof x === 'string' ? x.trim().replace(/[^a-z0-9]/gi, '').toLowerCase() : undefined;
        const found = all.find((v) => v.replace(/[^a-z0-9]/gi, '').toLowerCase() === wanted);
        if (found !== undefined) return found;
        const guess = typeof x === 'string' ? closest(x, all) : undefined;
        return this.fail(at, `must be one of ${all.map((v) => `'${v}'`).join(', ')}, got ${describe(x)}${guess === undefined ? '' : `; did you mean '${guess}'?`}`);
      }
      case 'classes': {
        const names = typeof x === 'string' ? x.split(',').map((s) => s.trim()).filter((s) => s !== '') : x;
        if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) return this.fail(at, `must be a list of class names, got ${describe(x)}`);
        return names;
      }
      case 'predicate':
      case 'function': {
        if (typeof x !== 'string' || x.trim() === '') this.fail(at, `must be the name of a ${kind}, got ${describe(x)}`);
        return x.trim();
      }
    }
  }

  /** Error classes by name; with lenient binding an unknown name is skipped and reported once. */
  classes(at: string, names: readonly string[], lenient: boolean): ErrorClass[] {
    const found: ErrorClass[] = [];
    for (const name of names) {
      const cls = this.options.classes?.[name];
      if (cls !== undefined) found.push(cls);
      else if (!lenient) this.fail(at, `no error class named '${name}': pass it in fromConfig(config, { classes: { '${name}': MyError } })`);
      else if (!this.#skipped.has(name)) {
        this.#skipped.add(name);
        process.emitWarning(`fromConfig: ${at}: no error class named '${name}'; skipped (ignore-class-binding-exceptions is true)`, { type: 'BreakwaterConfigWarning' });
      }
    }
    return found;
  }

  named<T>(at: string, what: 'predicate' | 'function', name: string): T {
    const table = what === 'predicate' ? this.options.predicates : this.options.functions;
    const option = what === 'predicate' ? 'predicates' : 'functions';
    const found = table?.[name];
    if (found === undefined) this.fail(at, `no ${what} named '${name}': pass it in fromConfig(config, { ${option}: { '${name}': … } })`);
    return found as T;
  }

  /** The options of a config or instance from its settings (its base's already laid under it). */
  build(at: string, section: Section, settings: ReadonlyMap<Rule, Setting>): Record<string, unknown> {
    const options: Record<string, unknown> = {};
    const waits = new Map<string, Setting>();
    let lenient = false;
    for (const [rule, s] of settings) {
      if (rule.type === 'backoff') waits.set(rule.spring, s);
      if (rule.type === 'lenientClasses') lenient = s.value === true;
    }
    for (const [rule, s] of settings) {
      if (rule.type !== 'option') continue;
      options[rule.option] =
        rule.kind === 'classes'
          ? this.classes(s.at, s.value as string[], lenient)
          : rule.kind === 'predicate' || rule.kind === 'function'
            ? this.named(s.at, rule.kind, s.value as string)
            : s.value;
    }
    const folded = section.wait === undefined ? options : this.fold(at, section.wait, options, waits, settings);
    return this.options.clock === undefined ? folded : { ...folded, clock: this.options.clock };
  }

  /** Folds Spring's exponential / randomised wait properties into an interval function. */
  fold(at: string, wait: Wait, options: Record<string, unknown>, waits: ReadonlyMap<string, Setting>, settings: ReadonlyMap<Rule, Setting>): Record<string, unknown> {
    const { from, to, max, initial, replacedBy } = wait;
    const given = (option: string) => options[option] !== undefined;
    if (!given(from) && waits.size === 0 && (replacedBy === undefined || !given(replacedBy))) return options;
    // From here this block says how to wait: the other ways are cleared, so that a way of the
    // registry's default config (which every instance is laid over) does not clash with it.
    const cleared = { [from]: undefined, [to]: undefined, ...(replacedBy === undefined ? {} : { [replacedBy]: undefined }) };
    if (replacedBy !== undefined && given(replacedBy)) {
      // As in Resilience4j, an interval-bi-function replaces the (inherited) wait settings.
      return { ...options, ...cleared, [replacedBy]: options[replacedBy] };
    }
    const exponential = waits.get('enableExponentialBackoff');
    const randomized = waits.get('enableRandomizedWait');
    if (exponential?.value !== true && randomized?.value !== true) return { ...options, ...cleared, [from]: options[from] };
    if (exponential?.value === true && randomized?.value === true && wait.exclusiveFlags === true) {
      this.fail(at, `enable-exponential-backoff (${exponential.at}) and enable-randomized-wait (${randomized.at}) cannot both be true for a circuit breaker (Resilience4j refuses them together too)`);
    }
    const base = (options[from] as number | undefined) ?? initial;
    const multiplier = waits.get('exponentialBackoffMultiplier');
    const factor = waits.get('randomizedWaitFactor');
    const cap = waits.get(max);
    try {
      const m = (multiplier?.value as number | undefined) ?? 1.5;
      const f = (factor?.value as number | undefined) ?? 0.5;
      const c = cap?.value as number | undefined;
      const interval =
        exponential?.value === true && randomized?.value === true
          ? IntervalFunction.ofExponentialRandomBackoff(base, m, f, c)
          : exponential?.value === true
            ? IntervalFunction.ofExponentialBackoff(base, m, c)
            : IntervalFunction.ofRandomized(base, f);
      return { ...options, ...cleared, [to]: interval };
    } catch (error) {
      // Name the key the message is about.
      const message = (error as Error).message;
      const fromSetting = [...settings].find(([r]) => r.type === 'option' && r.option === from)?.[1];
      const culprit = /multiplier/.test(message) ? multiplier : /randomizationFactor/.test(message) ? factor : /max/i.test(message) ? cap : /interval/i.test(message) ? fromSetting : undefined;
      return this.fail(culprit?.at ?? (exponential?.value === true ? exponential : randomized)!.at, message, error instanceof RangeError ? 'range' : 'type');
    }
  }
}

/** The Spring names a section knows (for messages), kebab-case. */
function known(section: Section): string[] {
  return [...section.rules.values()].filter((r) => r.type !== 'refused').map((r) => kebab(r.spring));
}

function sectionKeys(section: Section): string[] {
  return ['configs', 'instances', ...section.aliases, 'tags', ...(section.aspectOrder === undefined ? [] : [kebab(section.aspectOrder)])];
}

/**
 * Builds every registry from a Spring Boot `application.yml` (parsed to an object), so a team
 * carries its Resilience4j settings over: `resilience4j.circuitbreaker.configs.default`,
 * `…instances.<name>` with `base-config`, Spring's relaxed binding of names and values, dotted
 * keys. Everything next to `resilience4j` (`server`, `spring`, `management`, …) is ignored. Each
 * instance is created at once (so a bad value fails here, not on first use). An unknown key is an
 * error that names its path and the key it is closest to. Without a `base-config`, an instance is
 * laid over `configs.default`, as in Spring.
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
  const top = reader.object('', config);
  const sectionNames = [...SECTIONS.map((s) => s.name), ...Object.keys(OTHER_SECTIONS)];
  const isSection = (key: string) => sectionNames.some((n) => canonical(n) === canonical(key));
  // The first name of a top-level key (`resilience4j` of `resilience4j.retry`), read leniently:
  // the keys of others are not ours to check.
  const first = (key: string) => (key.startsWith('[') ? key : key.split('.')[0]!);
  const ours = Object.keys(top).filter((key) => canonical(first(key)) === 'resilience4j');

  let body: Record<string, unknown> = {};
  let prefix = '';
  if (ours.length > 0) {
    // A whole application.yml: the keys next to resilience4j belong to Spring and others, and
    // are neither read nor checked.
    const root = reader.expand('', Object.fromEntries(ours.map((key) => [key, top[key]]))) as Record<string, unknown>;
    const resilience4j = reader.pick('', root, 'resilience4j')!;
    body = reader.object(resilience4j.at, resilience4j.value);
    prefix = resilience4j.at;
  } else if (Object.keys(top).some((key) => isSection(first(key)))) {
    body = reader.expand('', top) as Record<string, unknown>; // the sections alone, as under resilience4j
  } else {
    for (const key of Object.keys(top)) {
      const guess = closest(first(key), ['resilience4j', ...sectionNames]);
      if (guess !== undefined) reader.fail(key, `unknown key, did you mean '${guess}'? (Resilience4j's settings are under 'resilience4j'; the other top-level keys are ignored)`);
    }
  }

  const built: Partial<Record<keyof BreakwaterRegistries, Registry<{ name: string }, object>>> = {};
  const seen = new Map<string, string>();
  for (const [key, raw] of Object.entries(body)) {
    const at = join(prefix, key);
    const name = canonical(key);
    if (seen.has(name)) reader.fail(at, `is given twice (also as '${seen.get(name)}')`);
    seen.set(name, key);
    const other = Object.entries(OTHER_SECTIONS).find(([n]) => canonical(n) === name)?.[1];
    if (other !== undefined) {
      if ('refused' in other) reader.fail(at, other.refused);
      continue;
    }
    const section = SECTIONS.find((s) => canonical(s.name) === name);
    if (section === undefined) reader.fail(at, unknown('section', key, sectionNames));
    built[section.key] = buildSection(reader, at, section, raw);
  }
  const clock = options.clock === undefined ? {} : { clock: options.clock };
  const registry = (key: keyof BreakwaterRegistries) => built[key] ?? SECTIONS.find((s) => s.key === key)!.registry({ defaultConfig: clock, configs: {} });
  return {
    circuitBreaker: registry('circuitBreaker') as CircuitBreakerRegistry,
    retry: registry('retry') as RetryRegistry,
    timeLimiter: registry('timeLimiter') as TimeLimiterRegistry,
    bulkhead: registry('bulkhead') as BulkheadRegistry,
    poolBulkhead: registry('poolBulkhead') as PoolBulkheadRegistry,
    rateLimiter: registry('rateLimiter') as RateLimiterRegistry,
  };
}

function buildSection(reader: Reader, path: string, section: Section, raw: unknown): Registry<{ name: string }, object> {
  const body = reader.object(path, raw);
  const keys = sectionKeys(section);
  let rawConfigs: Record<string, unknown> = {};
  const instanceGroups: { at: string; entries: Record<string, unknown> }[] = [];
  const seen = new Map<string, string>();
  for (const [key, value] of Object.entries(body)) {
    const at = join(path, key);
    const name = canonical(key);
    const spelled = keys.find((k) => canonical(k) === name);
    if (spelled === undefined) reader.fail(at, unknown('key', key, keys));
    if (seen.has(name)) reader.fail(at, `is given twice (also as '${seen.get(name)}')`);
    seen.set(name, key);
    if (name === 'configs') rawConfigs = reader.object(at, value);
    else if (name === 'instances' || section.aliases.includes(spelled)) instanceGroups.push({ at, entries: reader.object(at, value) });
    // tags and the aspect order: see SECTION_IGNORED.
  }

  // Named configs, with base-config chains resolved (a config may build on another).
  const read = new Map<string, Block>();
  for (const [name, props] of Object.entries(rawConfigs)) read.set(name, reader.block(join(join(path, 'configs'), name), section, props));
  const resolve = (name: string, at: string, chain: readonly string[]): Map<Rule, Setting> => {
    const block = read.get(name);
    if (block === undefined) reader.fail(at, `no config named '${name}' (known: ${[...read.keys()].join(', ') || 'none'})`, 'range');
    if (chain.includes(name)) reader.fail(at, `base-config loops: ${[...chain, name].join(' → ')}`, 'range');
    if (block.base === undefined) return new Map(block.settings);
    return new Map([...resolve(block.base.value, block.base.at, [...chain, name]), ...block.settings]);
  };
  const resolved: Record<string, Record<string, unknown>> = {};
  for (const [name, block] of read) resolved[name] = reader.build(block.at, section, resolve(name, block.at, []));
  const clock = reader.options.clock === undefined ? {} : { clock: reader.options.clock };
  const { default: defaultConfig = clock, ...configs } = resolved;
  const configAt = (name: string) => read.get(name)?.at ?? path;
  const rethrow = (at: string, error: unknown): never => reader.fail(at, (error as Error).message, error instanceof RangeError ? 'range' : 'type');
  let registry: Registry<{ name: string }, object>;
  try {
    registry = section.registry({ defaultConfig, configs: {} });
  } catch (error) {
    return rethrow(configAt('default'), error);
  }
  // One by one (each laid over the default, as the registry's own `configs` would be), so that an
  // error names the config it is about.
  for (const [name, config] of Object.entries(configs)) {
    try {
      registry.addConfiguration(name, config);
    } catch (error) {
      rethrow(configAt(name), error);
    }
  }

  // Instances: over their base-config, else over configs.default; each one built now.
  const instanceAt = new Map<string, string>();
  for (const group of instanceGroups) {
    for (const [name, props] of Object.entries(group.entries)) {
      const at = join(group.at, name);
      if (instanceAt.has(name)) reader.fail(at, `is given twice (also as ${instanceAt.get(name)})`);
      instanceAt.set(name, at);
      const own = reader.block(at, section, props);
      const base = own.base === undefined ? (read.has('default') ? resolve('default', at, []) : new Map<Rule, Setting>()) : resolve(own.base.value, own.base.at, []);
      const instanceOptions = reader.build(at, section, new Map([...base, ...own.settings]));
      try {
        registry.get(name, instanceOptions);
      } catch (error) {
        reader.fail(at, (error as Error).message, error instanceof RangeError ? 'range' : 'type');
      }
    }
  }
  return registry;
}

