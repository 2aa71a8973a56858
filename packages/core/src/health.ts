import { isPlainObject } from './config.js';
import { Registry } from './registry.js';

// An Actuator-like snapshot of any components and registries. core knows no policy package, so
// each component is read by its shape: its `kind`, its `metrics` (a fresh plain object, SPEC §0),
// a breaker's `state` and `config`. Nothing here throws on a component it does not understand.

/**
 * The overall status of a {@link health} snapshot: `DOWN` when there is at least one circuit
 * breaker and every one is OPEN or FORCED_OPEN, `DEGRADED` when any judged component is not `UP`,
 * else `UP` (also with nothing to judge).
 *
 * @example
 * ```ts
 * const status: HealthStatus = health(breakers, bulkheads).status;
 * response.statusCode = status === 'DOWN' ? 503 : 200;
 * ```
 */
export type HealthStatus = 'UP' | 'DEGRADED' | 'DOWN';

/**
 * One component's status, with Spring Boot Actuator's standard names: a breaker OPEN or
 * FORCED_OPEN is `DOWN`, HALF_OPEN is `UNKNOWN`; a full bulkhead or a saturated rate limiter is
 * `UNKNOWN`; everything else `UP`.
 *
 * @example
 * ```ts
 * const status: ComponentStatus = health(breaker).components.circuitBreakers['pg']!.status; // 'UP'
 * ```
 */
export type ComponentStatus = 'UP' | 'UNKNOWN' | 'DOWN';

/**
 * A circuit breaker in a {@link health} snapshot (Resilience4j's health details, rates as numbers).
 *
 * @example
 * ```ts
 * const { state, failureRate, failureRateThreshold }: CircuitBreakerHealth = health(breaker).components.circuitBreakers['pg']!;
 * ```
 */
export interface CircuitBreakerHealth {
  readonly status: ComponentStatus;
  /** `breaker.state`: `'CLOSED'`, `'OPEN'`, `'HALF_OPEN'`, `'DISABLED'`, `'FORCED_OPEN'`, `'METRICS_ONLY'`. */
  readonly state: string;
  /** Percent, −1 below the minimum number of calls. */
  readonly failureRate: number | null;
  /** Percent, −1 below the minimum number of calls. */
  readonly slowCallRate: number | null;
  readonly bufferedCalls: number | null;
  readonly failedCalls: number | null;
  readonly slowCalls: number | null;
  readonly slowFailedCalls: number | null;
  readonly notPermittedCalls: number | null;
  /** From `breaker.config`, when the breaker has one. */
  readonly failureRateThreshold?: number;
  /** From `breaker.config`, when the breaker has one. */
  readonly slowCallRateThreshold?: number;
}

/**
 * A semaphore bulkhead in a {@link health} snapshot: `UNKNOWN` while no slot is free.
 *
 * @example
 * ```ts
 * const { availableConcurrentCalls }: BulkheadHealth = health(bulkhead).components.bulkheads['db']!;
 * ```
 */
export interface BulkheadHealth {
  readonly status: ComponentStatus;
  readonly availableConcurrentCalls: number | null;
  readonly maxAllowedConcurrentCalls: number | null;
  readonly waitingCalls: number | null;
}

/**
 * A pool bulkhead in a {@link health} snapshot: `UNKNOWN` while the next call would be refused
 * (every worker busy and the queue full).
 *
 * @example
 * ```ts
 * const { queueDepth, activeCount }: PoolBulkheadHealth = health(pool).components.threadPoolBulkheads['cpu']!;
 * ```
 */
export interface PoolBulkheadHealth {
  readonly status: ComponentStatus;
  readonly coreThreadPoolSize: number | null;
  readonly threadPoolSize: number | null;
  readonly maximumThreadPoolSize: number | null;
  readonly activeCount: number | null;
  readonly queueDepth: number | null;
  readonly queueCapacity: number | null;
  readonly remainingQueueCapacity: number | null;
}

/**
 * A rate limiter in a {@link health} snapshot: `UNKNOWN` when no permission is left and calls
 * wait (Resilience4j's rule), else `UP`.
 *
 * @example
 * ```ts
 * const { availablePermissions, numberOfWaitingCalls }: RateLimiterHealth = health(limiter).components.rateLimiters['api']!;
 * ```
 */
export interface RateLimiterHealth {
  readonly status: ComponentStatus;
  readonly availablePermissions: number | null;
  readonly numberOfWaitingCalls: number | null;
}

/**
 * A retry or a time limiter in a {@link health} snapshot: `UP`, with its counters (the
 * fields of its `metrics`, numbers only).
 *
 * @example
 * ```ts
 * const { numberOfTimeouts }: CountersHealth = health(timeLimiter).components.timeLimiters['pg']!;
 * ```
 */
export interface CountersHealth {
  /** `UP`; `UNKNOWN` only when its `metrics` could not be read. */
  readonly status: ComponentStatus;
  readonly [counter: string]: number | null | string;
}

/**
 * A component of a kind {@link health} does not know (a fallback, a policy of your own): its
 * `kind`, and its `metrics` when they are a plain object (JSON-safe values only). Not judged.
 *
 * @example
 * ```ts
 * const { kind, metrics }: OtherComponentHealth = health(new Delay('pace', 50)).components.others['pace']!;
 * ```
 */
export interface OtherComponentHealth {
  readonly kind: string;
  readonly metrics?: Readonly<Record<string, number | string | boolean | null>>;
}

/**
 * What {@link health} returns: a fresh, JSON-safe object (`JSON.parse(JSON.stringify(h))` equals `h`).
 *
 * @example
 * ```ts
 * const snapshot: HealthSnapshot = health(breakers, bulkheads, limiters);
 * res.end(JSON.stringify(snapshot));
 * ```
 */
export interface HealthSnapshot {
  readonly status: HealthStatus;
  readonly components: {
    readonly circuitBreakers: Record<string, CircuitBreakerHealth>;
    readonly bulkheads: Record<string, BulkheadHealth>;
    readonly threadPoolBulkheads: Record<string, PoolBulkheadHealth>;
    readonly rateLimiters: Record<string, RateLimiterHealth>;
    readonly retries: Record<string, CountersHealth>;
    readonly timeLimiters: Record<string, CountersHealth>;
    readonly others: Record<string, OtherComponentHealth>;
  };
}

type Fields = Record<string, unknown>;
type Components = { -readonly [K in keyof HealthSnapshot['components']]: Record<string, unknown> };

/** A finite number as it is; anything else (NaN, ±Infinity, a missing field) as `null`. */
function num(fields: object, key: string): number | null {
  const value = read(fields, key);
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Reads `target[key]`; a getter that throws reads as `undefined`. */
function read(target: object, key: string): unknown {
  try {
    return (target as Fields)[key];
  } catch {
    return undefined;
  }
}

function metricsOf(component: object): Fields | undefined {
  const metrics = read(component, 'metrics');
  return isPlainObject(metrics) ? (metrics as Fields) : undefined;
}

/** Only values JSON keeps as they are; non-finite numbers become `null`. */
function jsonSafe(metrics: Fields): Record<string, number | string | boolean | null> {
  const out: Record<string, number | string | boolean | null> = {};
  let keys: string[];
  try {
    keys = Object.keys(metrics);
  } catch {
    keys = []; // a Proxy that refuses to list its keys
  }
  for (const key of keys) {
    const value = read(metrics, key);
    if (typeof value === 'number') out[key] = Number.isFinite(value) ? value : null;
    else if (typeof value === 'string' || typeof value === 'boolean' || value === null) out[key] = value;
  }
  return out;
}

function breakerStatus(state: string): ComponentStatus {
  switch (state) {
    case 'CLOSED':
    case 'METRICS_ONLY':
    case 'DISABLED':
      return 'UP';
    case 'OPEN':
    case 'FORCED_OPEN':
      return 'DOWN';
    default:
      return 'UNKNOWN'; // HALF_OPEN, or a state this snapshot does not know
  }
}

function circuitBreaker(component: object, m: Fields): CircuitBreakerHealth {
  const rawState = read(component, 'state');
  const state = typeof rawState === 'string' ? rawState : 'UNKNOWN';
  const config = read(component, 'config');
  const thresholds: { failureRateThreshold?: number; slowCallRateThreshold?: number } = {};
  if (typeof config === 'object' && config !== null) {
    const f = num(config, 'failureRateThreshold');
    const s = num(config, 'slowCallRateThreshold');
    if (f !== null) thresholds.failureRateThreshold = f;
    if (s !== null) thresholds.slowCallRateThreshold = s;
  }
  return {
    status: breakerStatus(state),
    state,
    failureRate: num(m, 'failureRate'),
    slowCallRate: num(m, 'slowCallRate'),
    bufferedCalls: num(m, 'numberOfBufferedCalls'),
    failedCalls: num(m, 'numberOfFailedCalls'),
    slowCalls: num(m, 'numberOfSlowCalls'),
    slowFailedCalls: num(m, 'numberOfSlowFailedCalls'),
    notPermittedCalls: num(m, 'numberOfNotPermittedCalls'),
    ...thresholds,
  };
}

/** A number as read (±Infinity kept, for judging); anything else is NaN, which passes no comparison. */
function raw(fields: object, key: string): number {
  const value = read(fields, key);
  return typeof value === 'number' ? value : NaN;
}

function bulkhead(m: Fields): BulkheadHealth {
  return {
    status: raw(m, 'availableConcurrentCalls') > 0 ? 'UP' : 'UNKNOWN',
    availableConcurrentCalls: num(m, 'availableConcurrentCalls'),
    maxAllowedConcurrentCalls: num(m, 'maxAllowedConcurrentCalls'),
    waitingCalls: num(m, 'waitingCalls'),
  };
}

function poolBulkhead(m: Fields): PoolBulkheadHealth {
  // Java's admission rule refuses only when every worker is busy and the queue is full.
  const room = raw(m, 'remainingQueueCapacity') > 0 || raw(m, 'activeCount') < raw(m, 'maximumThreadPoolSize');
  return {
    status: room ? 'UP' : 'UNKNOWN',
    coreThreadPoolSize: num(m, 'coreThreadPoolSize'),
    threadPoolSize: num(m, 'threadPoolSize'),
    maximumThreadPoolSize: num(m, 'maximumThreadPoolSize'),
    activeCount: num(m, 'activeCount'),
    queueDepth: num(m, 'queueDepth'),
    queueCapacity: num(m, 'queueCapacity'),
    remainingQueueCapacity: num(m, 'remainingQueueCapacity'),
  };
}

function rateLimiter(m: Fields): RateLimiterHealth {
  // Resilience4j's RateLimitersHealthIndicator: UP while a permission is left or nobody waits.
  const up = raw(m, 'availablePermissions') > 0 || raw(m, 'numberOfWaitingCalls') === 0;
  return { status: up ? 'UP' : 'UNKNOWN', availablePermissions: num(m, 'availablePermissions'), numberOfWaitingCalls: num(m, 'numberOfWaitingCalls') };
}

function counters(m: Fields): CountersHealth {
  const out: Record<string, number | null | string> = {};
  for (const key of Object.keys(m)) {
    const value = read(m, key);
    if (typeof value === 'number') out[key] = Number.isFinite(value) ? value : null;
  }
  return { ...out, status: 'UP' } as CountersHealth;
}

/** Which category a kind goes to, and how its entry is built from the component and its metrics. */
const KINDS: Readonly<Record<string, readonly [keyof Components, (component: object, m: Fields) => unknown]>> = {
  circuitBreaker: ['circuitBreakers', circuitBreaker],
  bulkhead: ['bulkheads', (_, m) => bulkhead(m)],
  poolBulkhead: ['threadPoolBulkheads', (_, m) => poolBulkhead(m)],
  rateLimiter: ['rateLimiters', (_, m) => rateLimiter(m)],
  retry: ['retries', (_, m) => counters(m)],
  timeLimiter: ['timeLimiters', (_, m) => counters(m)],
};

function isRegistry(value: object): value is { all(): unknown } {
  return value instanceof Registry || (typeof read(value, 'all') === 'function' && typeof read(value, 'execute') !== 'function');
}

/** Every component given: registries and arrays opened, each instance once, in the order given. */
function collect(inputs: readonly unknown[]): object[] {
  const seen = new Set<object>();
  const order: object[] = [];
  const visit = (input: unknown, depth: number): void => {
    if (typeof input !== 'object' || input === null || seen.has(input)) return;
    seen.add(input);
    if (!Array.isArray(input) && !isRegistry(input)) {
      order.push(input);
      return;
    }
    let members: unknown = input;
    if (!Array.isArray(input)) {
      try {
        members = input.all();
      } catch {
        members = [];
      }
    }
    if (depth < 2 && Array.isArray(members)) for (const member of members) visit(member, depth + 1);
  };
  for (const input of inputs) visit(input, 0);
  return order;
}

/** Puts `value` under `name`, or `name#2`, `name#3`… when another instance already has it (`__proto__` included). */
function put(into: Record<string, unknown>, name: string, value: unknown): void {
  let key = name;
  for (let n = 2; Object.hasOwn(into, key); n += 1) key = `${name}#${n}`;
  Object.defineProperty(into, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * An Actuator-like, JSON-safe health snapshot of components and registries (a registry gives all
 * its instances at the time of the call). Each component is read by its shape: `kind`
 * `'circuitBreaker'`, `'bulkhead'`, `'poolBulkhead'`, `'rateLimiter'`, `'retry'`, `'timeLimiter'`
 * go to their category with a status; any other kind (or an object without one) goes to `others`
 * with its plain-object `metrics`, unjudged. A component whose `metrics` throw or are not a plain
 * object is `UNKNOWN`. The same instance given twice (itself and through its registry) appears
 * once; two instances with the same name in one category are keyed `name` and `name#2`. The
 * overall status: `DOWN` when there is a breaker and every breaker is OPEN or FORCED_OPEN,
 * `DEGRADED` when any judged component is not `UP`, else `UP`. Never throws.
 *
 * @example
 * ```ts
 * const snapshot = health(breakerRegistry, bulkhead, limiter);
 * snapshot.status;                                  // 'UP' | 'DEGRADED' | 'DOWN'
 * snapshot.components.circuitBreakers['pg']?.state; // 'OPEN'
 * http.createServer((req, res) => res.end(JSON.stringify(health(breakerRegistry)))).listen(8080);
 * ```
 */
export function health(...componentsOrRegistries: readonly unknown[]): HealthSnapshot {
  const components: Components = { circuitBreakers: {}, bulkheads: {}, threadPoolBulkheads: {}, rateLimiters: {}, retries: {}, timeLimiters: {}, others: {} };
  let judged = 0;
  let notUp = 0;
  let breakers = 0;
  let breakersDown = 0;
  for (const component of collect(componentsOrRegistries)) {
    const rawName = read(component, 'name');
    const name = typeof rawName === 'string' ? rawName : String(rawName);
    const rawKind = read(component, 'kind');
    const kind = typeof rawKind === 'string' ? rawKind : 'unknown';
    const known = Object.hasOwn(KINDS, kind) ? KINDS[kind] : undefined;
    const metrics = metricsOf(component);
    if (known === undefined) {
      put(components.others, name, metrics === undefined ? { kind } : { kind, metrics: jsonSafe(metrics) });
      continue;
    }
    const [category, build] = known;
    let entry: { status: ComponentStatus };
    try {
      entry = build(component, metrics ?? {}) as { status: ComponentStatus };
      if (metrics === undefined) entry.status = 'UNKNOWN'; // nothing to judge it by
    } catch {
      entry = build(component, {}) as { status: ComponentStatus }; // hostile metrics (a Proxy): every field null
      entry.status = 'UNKNOWN';
    }
    put(components[category], name, entry);
    judged += 1;
    if (entry.status !== 'UP') notUp += 1;
    if (category === 'circuitBreakers') {
      breakers += 1;
      if (entry.status === 'DOWN') breakersDown += 1;
    }
  }
  const status: HealthStatus = breakers > 0 && breakersDown === breakers ? 'DOWN' : judged > 0 && notUp > 0 ? 'DEGRADED' : 'UP';
  return { status, components: components as HealthSnapshot['components'] };
}
