import { describeValue } from '@breakwater/core';
import type { Registry, RegistryContentType } from 'prom-client';
import { BreakerBinding } from './breaker-binding.js';
import { isComponent, isRegistry, type CircuitBreakerLike, type ExportedComponent, type RegistryLike } from './components.js';
import { registerSeries, type Snapshot } from './series.js';

/**
 * Options of {@link PrometheusMetrics}.
 *
 * @example
 * ```ts
 * const options: PrometheusMetricsOptions = { registry: new Registry(), prefix: 'resilience4j' };
 * ```
 */
export interface PrometheusMetricsOptions {
  /** The prom-client registry the series are registered on. */
  readonly registry: Registry<RegistryContentType>;
  /** The first word of every series name (default `'breakwater'`; `'resilience4j'` gives Resilience4j's names). */
  readonly prefix?: string | undefined;
  /** Upper bounds of the call-duration histogram, in seconds (default: prom-client's, 5 ms … 10 s). */
  readonly buckets?: readonly number[] | undefined;
}

/** prom-client's default buckets, in seconds. */
const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const PREFIX = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/**
 * Publishes Breakwater's components on a prom-client `Registry` with Resilience4j's Micrometer
 * names (SPEC §8). Gauges and counters are read from each component's `metrics` when Prometheus
 * scrapes; only a breaker's call-duration histogram observes per call, through its
 * `observeCalls` hook and a histogram child bound once per breaker and kind.
 *
 * @example
 * ```ts
 * import { Registry } from 'prom-client';
 * import { PrometheusMetrics } from '@breakwater/prometheus';
 *
 * const registry = new Registry();
 * const metrics = new PrometheusMetrics({ registry });
 * const remove = metrics.add(breakers);   // a CircuitBreakerRegistry: breakers created later are exported too
 * metrics.add(retry);                     // or any single component
 * const text = await registry.metrics();  // breakwater_circuitbreaker_state{name="pg",state="closed"} 1 …
 * remove();
 * ```
 */
export class PrometheusMetrics {
  /** The series name prefix. */
  readonly prefix: string;
  readonly #direct = new Map<ExportedComponent, number>();
  readonly #registries = new Map<RegistryLike, { refs: number; members: Set<CircuitBreakerLike>; off: (() => void)[] }>();
  readonly #breakers = new Map<CircuitBreakerLike, { binding: BreakerBinding; refs: number }>();
  readonly #buckets: readonly number[];
  #snapshot: Snapshot | undefined;

  constructor(options: PrometheusMetricsOptions) {
    const { registry, prefix = 'breakwater', buckets = DEFAULT_BUCKETS } = options ?? ({} as PrometheusMetricsOptions);
    if (typeof registry?.registerMetric !== 'function') {
      throw new TypeError(`PrometheusMetrics: registry must be a prom-client Registry, got ${describeValue(registry)}`);
    }
    if (typeof prefix !== 'string' || !PREFIX.test(prefix)) {
      throw new TypeError(`PrometheusMetrics: prefix must be a Prometheus metric name (letters, digits, _ and :), got ${describeValue(prefix)}`);
    }
    if (!Array.isArray(buckets) || buckets.length === 0 || buckets.some((b, i) => typeof b !== 'number' || !(b > 0) || !Number.isFinite(b) || (i > 0 && b <= buckets[i - 1]!))) {
      throw new TypeError(`PrometheusMetrics: buckets must be increasing finite numbers of seconds > 0, got ${describeValue(buckets)}`);
    }
    this.prefix = prefix;
    this.#buckets = [...buckets];
    registerSeries(registry, prefix, this.#buckets, () => this.#read());
  }

  /**
   * Exports a component (a `CircuitBreaker`, `Retry`, `TimeLimiter`, `Bulkhead`, `PoolBulkhead`
   * or `RateLimiter`) or a whole registry of them: instances the registry creates later appear
   * on the next scrape, removed, evicted or expired ones disappear. Returns the function that
   * stops exporting it (calling it twice does nothing more).
   */
  add(componentOrRegistry: ExportedComponent | RegistryLike): () => void {
    if (isComponent(componentOrRegistry)) return this.#addComponent(componentOrRegistry);
    if (isRegistry(componentOrRegistry)) return this.#addRegistry(componentOrRegistry);
    throw new TypeError(
      `PrometheusMetrics.add: expected a circuit breaker, retry, time limiter, bulkhead, pool bulkhead, rate limiter or a registry of them, got ${describeValue(componentOrRegistry)}`,
    );
  }

  #addComponent(c: ExportedComponent): () => void {
    this.#direct.set(c, (this.#direct.get(c) ?? 0) + 1);
    if (c.kind === 'circuitBreaker') this.#retain(c);
    return once(() => {
      const refs = this.#direct.get(c)! - 1;
      if (refs === 0) this.#direct.delete(c);
      else this.#direct.set(c, refs);
      if (c.kind === 'circuitBreaker') this.#release(c);
    });
  }

  #addRegistry(r: RegistryLike): () => void {
    const bound = this.#registries.get(r);
    if (bound !== undefined) {
      bound.refs++;
    } else {
      const members = new Set<CircuitBreakerLike>();
      const join = (c: ExportedComponent): void => {
        if (c?.kind === 'circuitBreaker' && !members.has(c)) {
          members.add(c);
          this.#retain(c);
        }
      };
      const leave = (c: ExportedComponent): void => {
        if (c?.kind === 'circuitBreaker' && members.delete(c)) this.#release(c);
      };
      const off = [
        r.on('added', (e: { instance: ExportedComponent }) => join(e.instance)),
        r.on('removed', (e: { instance: ExportedComponent }) => leave(e.instance)),
        r.on('replaced', (e: { old: ExportedComponent; instance: ExportedComponent }) => {
          leave(e.old);
          join(e.instance);
        }),
      ];
      for (const c of r.all()) join(c);
      this.#registries.set(r, { refs: 1, members, off });
    }
    return once(() => {
      const entry = this.#registries.get(r)!;
      if (--entry.refs > 0) return;
      this.#registries.delete(r);
      for (const off of entry.off) off();
      for (const c of entry.members) this.#release(c);
    });
  }

  #retain(c: CircuitBreakerLike): void {
    const held = this.#breakers.get(c);
    if (held !== undefined) held.refs++;
    else this.#breakers.set(c, { binding: new BreakerBinding(c, this.#buckets), refs: 1 });
  }

  #release(c: CircuitBreakerLike): void {
    const held = this.#breakers.get(c);
    if (held === undefined) return;
    if (--held.refs === 0) {
      this.#breakers.delete(c);
      held.binding.dispose();
    }
  }

  /**
   * The components as this scrape sees them, each read once: prom-client asks every series in
   * the same synchronous turn, so one snapshot serves them all and is dropped after it.
   */
  #read(): Snapshot {
    if (this.#snapshot !== undefined) return this.#snapshot;
    const seen = new Set<ExportedComponent>(this.#direct.keys());
    for (const r of this.#registries.keys()) for (const c of r.all()) if (isComponent(c)) seen.add(c);
    const s: { [K in keyof Snapshot]: Snapshot[K][number][] } = { breakers: [], retries: [], timeLimiters: [], bulkheads: [], pools: [], rateLimiters: [] };
    for (const c of seen) {
      switch (c.kind) {
        case 'circuitBreaker':
          s.breakers.push({ c, m: c.metrics, state: c.state, binding: this.#breakers.get(c)?.binding });
          break;
        case 'retry':
          s.retries.push({ c, m: c.metrics });
          break;
        case 'timeLimiter':
          s.timeLimiters.push({ c, m: c.metrics });
          break;
        case 'bulkhead':
          s.bulkheads.push({ c, m: c.metrics });
          break;
        case 'poolBulkhead':
          s.pools.push({ c, m: c.metrics });
          break;
        case 'rateLimiter':
          s.rateLimiters.push({ c, m: c.metrics });
          break;
      }
    }
    this.#snapshot = s;
    queueMicrotask(() => (this.#snapshot = undefined));
    return s;
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
