import { isPlainObject } from './config.js';
import type {
  BulkheadHealth,
  CircuitBreakerHealth,
  ComponentStatus,
  CountersHealth,
  HealthSnapshot,
  HealthStatus,
  PoolBulkheadHealth,
  RateLimiterHealth,
} from './health-types.js';
import { Registry } from './registry.js';

export type {
  BulkheadHealth,
  CircuitBreakerHealth,
  ComponentStatus,
  CountersHealth,
  HealthSnapshot,
  HealthStatus,
  OtherComponentHealth,
  PoolBulkheadHealth,
  RateLimiterHealth,
} from './health-types.js';

// An Actuator-like snapshot of any components and registries. core knows no policy package, so
// each component is read by its shape: its `kind`, its `metrics` (a fresh plain object, SPEC §0),
// a breaker's `state` and `config`. Nothing here throws on a component it does not understand.

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

/** The values JSON keeps as they are (numbers only with `numbersOnly`); non-finite numbers become `null`. Throws only if the keys cannot be listed (a hostile Proxy). */
function jsonSafe(metrics: Fields, numbersOnly = false): Record<string, number | string | boolean | null> {
  const out: Record<string, number | string | boolean | null> = {};
  for (const key of Object.keys(metrics)) {
    const value = read(metrics, key);
    if (typeof value === 'number') out[key] = Number.isFinite(value) ? value : null;
    else if (!numbersOnly && (typeof value === 'string' || typeof value === 'boolean' || value === null)) out[key] = value;
  }
  return out;
}

/** `{ key: num(fields, key) }` for each key. */
function pick(fields: object, keys: readonly string[]): Record<string, number | null> {
  return Object.fromEntries(keys.map((key) => [key, num(fields, key)]));
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

const BULKHEAD_FIELDS = ['availableConcurrentCalls', 'maxAllowedConcurrentCalls', 'waitingCalls'];
const POOL_FIELDS = ['coreThreadPoolSize', 'threadPoolSize', 'maximumThreadPoolSize', 'activeCount', 'queueDepth', 'queueCapacity', 'remainingQueueCapacity'];
const LIMITER_FIELDS = ['availablePermissions', 'numberOfWaitingCalls'];

function bulkhead(m: Fields): BulkheadHealth {
  const status = raw(m, 'availableConcurrentCalls') > 0 ? 'UP' : 'UNKNOWN';
  return { status, ...pick(m, BULKHEAD_FIELDS) } as BulkheadHealth;
}

function poolBulkhead(m: Fields): PoolBulkheadHealth {
  // Java's admission rule refuses only when every worker is busy and the queue is full.
  const room = raw(m, 'remainingQueueCapacity') > 0 || raw(m, 'activeCount') < raw(m, 'maximumThreadPoolSize');
  return { status: room ? 'UP' : 'UNKNOWN', ...pick(m, POOL_FIELDS) } as PoolBulkheadHealth;
}

function rateLimiter(m: Fields): RateLimiterHealth {
  // Resilience4j's RateLimitersHealthIndicator: UP while a permission is left or nobody waits.
  const up = raw(m, 'availablePermissions') > 0 || raw(m, 'numberOfWaitingCalls') === 0;
  return { status: up ? 'UP' : 'UNKNOWN', ...pick(m, LIMITER_FIELDS) } as RateLimiterHealth;
}

function counters(m: Fields): CountersHealth {
  return { ...jsonSafe(m, true), status: 'UP' } as CountersHealth;
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

/** `component.name` as a string; a name that cannot be read or turned into one is `'?'`. */
function nameOf(component: object): string {
  const name = read(component, 'name');
  try {
    return typeof name === 'string' ? name : String(name);
  } catch {
    return '?';
  }
}

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
    const name = nameOf(component);
    const rawKind = read(component, 'kind');
    const kind = typeof rawKind === 'string' ? rawKind : 'unknown';
    const known = Object.hasOwn(KINDS, kind) ? KINDS[kind] : undefined;
    const metrics = metricsOf(component);
    if (known === undefined) {
      let copied: ReturnType<typeof jsonSafe> | undefined;
      try {
        copied = metrics === undefined ? undefined : jsonSafe(metrics);
      } catch {
        copied = undefined;
      }
      put(components.others, name, copied === undefined ? { kind } : { kind, metrics: copied });
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
