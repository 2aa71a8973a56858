import { collect, describeError, describeSafely, FieldReader, NamedEntries } from './health-read.js';
import type { ComponentStatus, HealthSnapshot, HealthStatus, OtherComponentHealth } from './health-types.js';

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
// each component is read by its shape: its `kind`, its `metrics` (a fresh plain object, docs/conventions.md),
// a breaker's `state` and `config`. Every read goes through a FieldReader (health-read.ts): nothing
// here throws on a component it does not understand, and one that cannot be read is UNKNOWN with
// the reason.

type Fields = Record<string, unknown>;
type Category = keyof HealthSnapshot['components'];
/** An entry's fields besides `status` (and `reason`), with the status they judge. */
type Judged = { readonly status: ComponentStatus; readonly fields: object };

/** The values JSON keeps as they are (numbers only with `numbersOnly`); non-finite numbers become `null`. */
function jsonSafe(r: FieldReader, metrics: Fields, numbersOnly = false): Record<string, number | string | boolean | null> {
  const out: Record<string, number | string | boolean | null> = {};
  for (const key of r.keys(metrics, 'metrics')) {
    const value = r.get(metrics, key, `metrics.${key}`);
    if (typeof value === 'number') out[key] = Number.isFinite(value) ? value : null;
    else if (!numbersOnly && (typeof value === 'string' || typeof value === 'boolean' || value === null)) out[key] = value;
  }
  return out;
}

/** `{ key: r.num(fields, key) }` for each key. */
function pick(r: FieldReader, fields: Fields, keys: readonly string[]): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const key of keys) out[key] = r.num(fields, key, `metrics.${key}`);
  return out;
}

/**
 * Resilience4j's CircuitBreakersHealthIndicator: CLOSED `UP`, OPEN `CIRCUIT_OPEN`, HALF_OPEN
 * `CIRCUIT_HALF_OPEN`; OPEN is `DOWN` only for a breaker that opted in with
 * `allowHealthIndicatorToFail`. FORCED_OPEN refuses calls as OPEN does and is shown alike;
 * METRICS_ONLY and DISABLED permit every call: `UP`.
 */
function breakerStatus(r: FieldReader, state: string, allowToFail: boolean): ComponentStatus {
  switch (state) {
    case 'CLOSED':
    case 'METRICS_ONLY':
    case 'DISABLED':
      return 'UP';
    case 'OPEN':
    case 'FORCED_OPEN':
      return allowToFail ? 'DOWN' : 'CIRCUIT_OPEN';
    case 'HALF_OPEN':
      return 'CIRCUIT_HALF_OPEN';
    default:
      r.note(`state '${state}' is not one health() knows`);
      return 'UNKNOWN';
  }
}

function circuitBreaker(r: FieldReader, component: object, m: Fields): Judged {
  const rawState = r.get(component, 'state');
  if (typeof rawState !== 'string') r.note(`state is not a string (got ${describeSafely(rawState)})`);
  const state = typeof rawState === 'string' ? rawState : 'UNKNOWN';
  const config = r.get(component, 'config');
  const thresholds: { failureRateThreshold?: number; slowCallRateThreshold?: number } = {};
  let allowToFail = false;
  if (typeof config === 'object' && config !== null) {
    const f = r.num(config, 'failureRateThreshold', 'config.failureRateThreshold');
    const s = r.num(config, 'slowCallRateThreshold', 'config.slowCallRateThreshold');
    if (f !== null) thresholds.failureRateThreshold = f;
    if (s !== null) thresholds.slowCallRateThreshold = s;
    allowToFail = r.get(config, 'allowHealthIndicatorToFail', 'config.allowHealthIndicatorToFail') === true;
  }
  const fields = {
    state,
    failureRate: r.num(m, 'failureRate', 'metrics.failureRate'),
    slowCallRate: r.num(m, 'slowCallRate', 'metrics.slowCallRate'),
    bufferedCalls: r.num(m, 'numberOfBufferedCalls', 'metrics.numberOfBufferedCalls'),
    failedCalls: r.num(m, 'numberOfFailedCalls', 'metrics.numberOfFailedCalls'),
    slowCalls: r.num(m, 'numberOfSlowCalls', 'metrics.numberOfSlowCalls'),
    slowFailedCalls: r.num(m, 'numberOfSlowFailedCalls', 'metrics.numberOfSlowFailedCalls'),
    notPermittedCalls: r.num(m, 'numberOfNotPermittedCalls', 'metrics.numberOfNotPermittedCalls'),
    ...thresholds,
  };
  return { status: breakerStatus(r, state, allowToFail), fields };
}

const BULKHEAD_FIELDS = ['availableConcurrentCalls', 'maxAllowedConcurrentCalls', 'waitingCalls'];
const POOL_FIELDS = ['coreThreadPoolSize', 'threadPoolSize', 'maximumThreadPoolSize', 'activeCount', 'queueDepth', 'queueCapacity', 'remainingQueueCapacity'];
const LIMITER_FIELDS = ['availablePermissions', 'numberOfWaitingCalls'];

function bulkhead(r: FieldReader, m: Fields): Judged {
  const fields = pick(r, m, BULKHEAD_FIELDS);
  return { status: r.raw(m, 'availableConcurrentCalls', 'metrics.availableConcurrentCalls') > 0 ? 'UP' : 'UNKNOWN', fields };
}

function poolBulkhead(r: FieldReader, m: Fields): Judged {
  const fields = pick(r, m, POOL_FIELDS);
  // Java's admission rule refuses only when every worker is busy and the queue is full.
  const room =
    r.raw(m, 'remainingQueueCapacity', 'metrics.remainingQueueCapacity') > 0 ||
    r.raw(m, 'activeCount', 'metrics.activeCount') < r.raw(m, 'maximumThreadPoolSize', 'metrics.maximumThreadPoolSize');
  return { status: room ? 'UP' : 'UNKNOWN', fields };
}

function rateLimiter(r: FieldReader, m: Fields): Judged {
  const fields = pick(r, m, LIMITER_FIELDS);
  // Resilience4j's RateLimitersHealthIndicator: UP while a permission is left or nobody waits.
  const up = r.raw(m, 'availablePermissions', 'metrics.availablePermissions') > 0 || r.raw(m, 'numberOfWaitingCalls', 'metrics.numberOfWaitingCalls') === 0;
  return { status: up ? 'UP' : 'UNKNOWN', fields };
}

function counters(r: FieldReader, m: Fields): Judged {
  return { status: 'UP', fields: jsonSafe(r, m, true) };
}

/** Which category a kind goes to, and how its entry is judged from the component and its metrics. */
const KINDS: Readonly<Record<string, readonly [Exclude<Category, 'others'>, (r: FieldReader, component: object, m: Fields) => Judged]>> = {
  circuitBreaker: ['circuitBreakers', circuitBreaker],
  bulkhead: ['bulkheads', (r, _, m) => bulkhead(r, m)],
  poolBulkhead: ['threadPoolBulkheads', (r, _, m) => poolBulkhead(r, m)],
  rateLimiter: ['rateLimiters', (r, _, m) => rateLimiter(r, m)],
  retry: ['retries', (r, _, m) => counters(r, m)],
  timeLimiter: ['timeLimiters', (r, _, m) => counters(r, m)],
};

/** `component.name` as a string; a name that cannot be read or turned into one is `'?'` (and noted). */
function nameOf(r: FieldReader, component: object): string {
  try {
    const name = (component as { name?: unknown }).name;
    return typeof name === 'string' ? name : String(name);
  } catch (error) {
    r.note(`name could not be read: ${describeError(error)}`);
    return '?';
  }
}

/** `component.metrics` when it is a plain object; otherwise `undefined`, noted (a known kind cannot be judged without them). */
function metricsOf(r: FieldReader, component: object): Fields | undefined {
  const metrics = r.get(component, 'metrics');
  if (r.isPlainObject(metrics, 'metrics')) return metrics;
  if (r.reason === undefined) r.note(`metrics are not a plain object (got ${describeSafely(metrics)})`);
  return undefined;
}

/** The entry of a component of a kind health() does not know: not judged, unless it cannot be read. */
function other(r: FieldReader, component: object, kind: string): OtherComponentHealth {
  const metrics = r.get(component, 'metrics');
  const copied = r.isPlainObject(metrics, 'metrics') ? jsonSafe(r, metrics) : undefined;
  const entry: { -readonly [K in keyof OtherComponentHealth]: OtherComponentHealth[K] } = { kind };
  if (copied !== undefined && r.reason === undefined) entry.metrics = copied;
  if (r.reason !== undefined) {
    entry.status = 'UNKNOWN';
    entry.reason = r.reason;
  }
  return entry;
}

/**
 * An Actuator-like, JSON-safe health snapshot of components and registries (a registry gives all
 * its instances at the time of the call). Each component is read by its shape: `kind`
 * `'circuitBreaker'`, `'bulkhead'`, `'poolBulkhead'`, `'rateLimiter'`, `'retry'`, `'timeLimiter'`
 * go to their category with a status; any other kind (or an object without one) goes to `others`
 * with its plain-object `metrics`, unjudged. A breaker OPEN or FORCED_OPEN is `CIRCUIT_OPEN`,
 * HALF_OPEN `CIRCUIT_HALF_OPEN` — `DOWN` only for a breaker whose `config.allowHealthIndicatorToFail`
 * is `true`. A component that cannot be read (a getter that throws, a revoked Proxy, metrics that
 * are not a plain object, a state it does not know) is `UNKNOWN` with a `reason`. The same
 * instance given twice (itself and through its registry) appears once; two instances with the
 * same name in one category are keyed `name` and `name#2`. The overall status: `DOWN` when an
 * opted-in breaker is `DOWN`, `DEGRADED` when any component is not `UP`, else `UP`. Never throws;
 * linear in the number of components.
 *
 * @example
 * ```ts
 * health(breakerRegistry, bulkhead, limiter).components.circuitBreakers['pg']?.status; // 'CIRCUIT_OPEN'
 * http.createServer((req, res) => {
 *   const snapshot = health(breakerRegistry, bulkhead, limiter);
 *   res.writeHead(snapshot.status === 'DOWN' ? 503 : 200).end(JSON.stringify(snapshot)); // DEGRADED: 200
 * }).listen(8080);
 * ```
 */
export function health(...componentsOrRegistries: readonly unknown[]): HealthSnapshot {
  const categories: Record<Category, NamedEntries> = {
    circuitBreakers: new NamedEntries(),
    bulkheads: new NamedEntries(),
    threadPoolBulkheads: new NamedEntries(),
    rateLimiters: new NamedEntries(),
    retries: new NamedEntries(),
    timeLimiters: new NamedEntries(),
    others: new NamedEntries(),
  };
  let notUp = 0;
  let down = 0;
  for (const { value: component, problem } of collect(componentsOrRegistries)) {
    const r = new FieldReader();
    if (problem !== undefined) r.note(problem.reason);
    const name = nameOf(r, component);
    // What it is: a component whose kind cannot be read is listed under others, UNKNOWN.
    const kindReader = new FieldReader();
    const rawKind = problem === undefined ? kindReader.get(component, 'kind') : problem.kind;
    if (rawKind !== undefined && typeof rawKind !== 'string') kindReader.note(`kind is not a string (got ${describeSafely(rawKind)})`);
    const kind = typeof rawKind === 'string' ? rawKind : 'unknown';
    const readable = problem === undefined && kindReader.reason === undefined;
    if (kindReader.reason !== undefined) r.note(kindReader.reason);
    const known = readable && Object.hasOwn(KINDS, kind) ? KINDS[kind] : undefined;
    if (known === undefined) {
      const entry = readable ? other(r, component, kind) : { kind, status: 'UNKNOWN' as const, reason: r.reason! };
      categories.others.put(name, entry);
      if (entry.status !== undefined) notUp += 1;
      continue;
    }
    const [category, judge] = known;
    const metrics = metricsOf(r, component);
    const judged = judge(r, component, metrics ?? {});
    const status = r.reason === undefined ? judged.status : 'UNKNOWN';
    // status (and reason) first, and never replaced by a counter of the same name.
    const entry: Record<string, unknown> = r.reason === undefined ? { status, ...judged.fields } : { status, reason: r.reason, ...judged.fields };
    entry['status'] = status;
    if (r.reason !== undefined) entry['reason'] = r.reason;
    categories[category].put(name, entry);
    if (status !== 'UP') notUp += 1;
    if (status === 'DOWN') down += 1;
  }
  const status: HealthStatus = down > 0 ? 'DOWN' : notUp > 0 ? 'DEGRADED' : 'UP';
  const components = Object.fromEntries(Object.entries(categories).map(([category, named]) => [category, named.entries]));
  return { status, components: components as unknown as HealthSnapshot['components'] };
}
