import { describeValue } from '@breakwater/core/internal';
import { ObservedComponents } from '@breakwater/observe';
import type { Registry, RegistryContentType } from 'prom-client';
import { CallCells, RttCell } from './breaker-binding.js';
import type { ExportedComponent, RegistryLike } from './components.js';
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
  /** Upper bounds of the histograms (a breaker's call durations, an adaptive limiter's round trips), in seconds (default: prom-client's, 5 ms … 10 s). */
  readonly buckets?: readonly number[] | undefined;
}

/** prom-client's default buckets, in seconds. */
const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const PREFIX = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/**
 * Publishes Breakwater's components on a prom-client `Registry` with Resilience4j's Micrometer
 * names (contract: docs/observability.md). Gauges and counters are read from each component's `metrics` when Prometheus
 * scrapes; only the histograms observe per call: a breaker's call durations, through its
 * `observeCalls` hook and a histogram child bound once per breaker and kind, and an adaptive
 * limiter's round trips, through its `observeCalls` hook and a child bound once per limiter.
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
  readonly #components: ObservedComponents<CallCells, RttCell>;
  #snapshot: Snapshot | undefined;

  constructor(options: PrometheusMetricsOptions) {
    const { registry, prefix = 'breakwater', buckets = DEFAULT_BUCKETS } = options ?? ({} as PrometheusMetricsOptions);
    if (typeof registry?.registerMetric !== 'function') {
      throw new TypeError(`PrometheusMetrics: registry must be a prom-client Registry, got ${describeValue(registry)}`);
    }
    if (typeof prefix !== 'string' || !PREFIX.test(prefix)) {
      throw new TypeError(`PrometheusMetrics: prefix must be a Prometheus metric name (letters, digits, _ and :), got ${describeValue(prefix)}`);
    }
    if (
      !Array.isArray(buckets) ||
      buckets.length === 0 ||
      buckets.some((b, i) => typeof b !== 'number' || !(b > 0) || !Number.isFinite(b) || (i > 0 && b <= buckets[i - 1]!))
    ) {
      throw new TypeError(`PrometheusMetrics: buckets must be increasing finite numbers of seconds > 0, got ${describeValue(buckets)}`);
    }
    this.prefix = prefix;
    const bounds = [...buckets];
    this.#components = new ObservedComponents(
      'PrometheusMetrics',
      () => new CallCells(bounds),
      () => new RttCell(bounds),
    );
    registerSeries(registry, prefix, bounds, () => this.#read());
  }

  /**
   * Exports a component (a `CircuitBreaker`, `Retry`, `TimeLimiter`, `Bulkhead`, `PoolBulkhead`,
   * `RateLimiter`, `AdaptiveLimiter`, `AdaptiveThrottle`, `Hedge` or chaos layer) or a whole registry of them: instances the registry creates later appear
   * on the next scrape, removed, evicted or expired ones disappear. Returns the function that
   * stops exporting it (calling it twice does nothing more).
   */
  add(componentOrRegistry: ExportedComponent | RegistryLike): () => void {
    return this.#components.add(componentOrRegistry);
  }

  /**
   * The components as this scrape sees them, each read once: prom-client asks every series in
   * the same synchronous turn, so one snapshot serves them all and is dropped after it.
   */
  #read(): Snapshot {
    if (this.#snapshot !== undefined) return this.#snapshot;
    const s = this.#components.read();
    this.#snapshot = s;
    queueMicrotask(() => (this.#snapshot = undefined));
    return s;
  }
}
