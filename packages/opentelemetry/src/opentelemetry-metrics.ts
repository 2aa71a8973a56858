import { describeValue } from '@breakwater/core/internal';
import {
  labelValue,
  OBSERVED_SERIES,
  ObservedComponents,
  type ObservedCallKind,
  type CallRecorder,
  type ObservedAdaptiveLimiter,
  type ObservedCircuitBreaker,
  type ObservedComponent,
  type ObservedSample,
  type ObservedRegistry,
  type RttRecorder,
} from '@breakwater/observe';
import type { Attributes, BatchObservableResult, Histogram, Meter, Observable } from '@opentelemetry/api';

/**
 * Options of {@link OpenTelemetryMetrics}.
 *
 * @example
 * ```ts
 * const options: OpenTelemetryMetricsOptions = { meter: metrics.getMeter('payments'), prefix: 'resilience4j' };
 * ```
 */
export interface OpenTelemetryMetricsOptions {
  /** The `Meter` the instruments are created on (`@opentelemetry/api` 1.x). */
  readonly meter: Meter;
  /** The first word of every instrument name (default `'breakwater'`; `'resilience4j'` gives Resilience4j's names). */
  readonly prefix?: string | undefined;
  /** Bucket boundaries advised for the histograms (a breaker's call durations, an adaptive limiter's round trips), in seconds (default: prom-client's, 5 ms … 10 s). */
  readonly buckets?: readonly number[] | undefined;
}

/** prom-client's default buckets, in seconds: the same boundaries as `@breakwater/prometheus`. */
const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** OpenTelemetry's instrument-name syntax. */
const PREFIX = /^[A-Za-z][A-Za-z0-9_.\-/]{0,199}$/;

/**
 * The OpenTelemetry name of a series of docs/observability.md: the prefix, then dots between the prefix, the
 * kind and the rest (`breakwater.circuitbreaker.state`), without Prometheus's `_total` — an
 * exporter to Prometheus turns the dots into underscores and adds `_total` to counters, which
 * gives back the `@breakwater/prometheus` names.
 *
 * @example
 * ```ts
 * instrumentName('breakwater', 'circuitbreaker_not_permitted_calls_total'); // 'breakwater.circuitbreaker.not_permitted_calls'
 * ```
 */
export function instrumentName(prefix: string, series: string): string {
  return `${prefix}.${series.replace(/_total$/, '').replace('_', '.')}`;
}

/** A breaker's call recorder: its attributes built once per kind, each call one `record`. */
class BreakerCalls implements CallRecorder {
  readonly #attributes: Readonly<Record<ObservedCallKind, Attributes>>;
  constructor(
    private readonly histogram: Histogram,
    breaker: ObservedCircuitBreaker,
  ) {
    const name = labelValue(breaker.name);
    this.#attributes = { successful: { name, kind: 'successful' }, failed: { name, kind: 'failed' }, ignored: { name, kind: 'ignored' } };
  }
  record(kind: ObservedCallKind, elapsedMs: number): void {
    const attributes = this.#attributes[kind];
    if (attributes !== undefined) this.histogram.record(elapsedMs / 1000, attributes);
  }
}

/** An adaptive limiter's round-trip recorder: its attributes built once, each sampled call one `record`. */
class LimiterRtts implements RttRecorder {
  readonly #attributes: Attributes;
  constructor(
    private readonly histogram: Histogram,
    limiter: ObservedAdaptiveLimiter,
  ) {
    this.#attributes = { name: labelValue(limiter.name) };
  }
  record(rttMs: number): void {
    this.histogram.record(rttMs / 1000, this.#attributes);
  }
}

/**
 * Publishes Breakwater's components through an OpenTelemetry `Meter` (contract: docs/observability.md): every gauge and
 * counter of `@breakwater/prometheus` as an observable gauge or observable counter, read from
 * each component's `metrics` at collect time by one batch callback; a breaker's calls in one
 * histogram in seconds (`<prefix>.circuitbreaker.calls`, attributes `name` and `kind`), fed by its
 * `observeCalls` hook with attributes built once per breaker and kind; its transitions counted
 * from `stateTransition` events (`name`, `from`, `to`, `cause`); an adaptive limiter's round trips
 * in one histogram in seconds (`<prefix>.adaptive.rtt`, attribute `name`), fed by its
 * `observeCalls` hook (no event object; its `callFinished` events for a limiter without one).
 *
 * @example
 * ```ts
 * import { metrics } from '@opentelemetry/api';
 * import { OpenTelemetryMetrics } from '@breakwater/opentelemetry';
 *
 * const otel = new OpenTelemetryMetrics({ meter: metrics.getMeter('payments') });
 * const remove = otel.add(breakers);   // a CircuitBreakerRegistry: breakers created later are exported too
 * otel.add(retry);                     // or any single component
 * remove();
 * ```
 */
export class OpenTelemetryMetrics {
  /** The instrument name prefix. */
  readonly prefix: string;
  readonly #meter: Meter;
  readonly #components: ObservedComponents<BreakerCalls, LimiterRtts>;
  readonly #observables: Observable[];
  readonly #callback: (result: BatchObservableResult) => void;
  #closed = false;

  constructor(options: OpenTelemetryMetricsOptions) {
    const { meter, prefix = 'breakwater', buckets = DEFAULT_BUCKETS } = options ?? ({} as OpenTelemetryMetricsOptions);
    if (typeof meter?.createObservableGauge !== 'function' || typeof meter.addBatchObservableCallback !== 'function') {
      throw new TypeError(`OpenTelemetryMetrics: meter must be an @opentelemetry/api Meter, got ${describeValue(meter)}`);
    }
    if (typeof prefix !== 'string' || !PREFIX.test(prefix)) {
      throw new TypeError(
        `OpenTelemetryMetrics: prefix must start an OpenTelemetry instrument name (a letter, then letters, digits, _ . - /), got ${describeValue(prefix)}`,
      );
    }
    if (
      !Array.isArray(buckets) ||
      buckets.length === 0 ||
      buckets.some((b, i) => typeof b !== 'number' || !(b > 0) || !Number.isFinite(b) || (i > 0 && b <= buckets[i - 1]!))
    ) {
      throw new TypeError(`OpenTelemetryMetrics: buckets must be increasing finite numbers of seconds > 0, got ${describeValue(buckets)}`);
    }
    this.prefix = prefix;
    this.#meter = meter;
    const histogram = meter.createHistogram(instrumentName(prefix, 'circuitbreaker_calls'), {
      description: 'Recorded calls of the circuit breaker, by outcome, in seconds',
      unit: 's',
      advice: { explicitBucketBoundaries: [...buckets] },
    });
    const rtts = meter.createHistogram(instrumentName(prefix, 'adaptive_rtt'), {
      description: 'Round trips the adaptive limiter sampled (calls it ignored left out), in seconds',
      unit: 's',
      advice: { explicitBucketBoundaries: [...buckets] },
    });
    this.#components = new ObservedComponents(
      'OpenTelemetryMetrics',
      (breaker) => new BreakerCalls(histogram, breaker),
      (limiter) => new LimiterRtts(rtts, limiter),
    );
    this.#observables = OBSERVED_SERIES.map((s) => {
      const name = instrumentName(prefix, s.name);
      return s.type === 'gauge' ? meter.createObservableGauge(name, { description: s.help }) : meter.createObservableCounter(name, { description: s.help });
    });
    this.#callback = (result) => this.#observe(result);
    meter.addBatchObservableCallback(this.#callback, this.#observables);
  }

  /**
   * Exports a component (a `CircuitBreaker`, `Retry`, `TimeLimiter`, `Bulkhead`, `PoolBulkhead`,
   * `RateLimiter`, `AdaptiveLimiter`, `AdaptiveThrottle`, `Hedge` or chaos layer) or a whole registry of them: instances the registry creates later appear
   * at the next collection, removed, evicted or expired ones disappear. Returns the function
   * that stops exporting it (calling it twice does nothing more).
   *
   * @example
   * ```ts
   * const remove = otel.add(new CircuitBreakerRegistry());
   * remove();
   * ```
   */
  add(componentOrRegistry: ObservedComponent | ObservedRegistry): () => void {
    return this.#components.add(componentOrRegistry);
  }

  /**
   * Stops the batch callback: nothing is observed any more (the histograms keep what they have).
   * Instruments cannot be removed from a `Meter`; a closed exporter's add() still binds breakers and adaptive limiters.
   *
   * @example
   * ```ts
   * otel.close();
   * ```
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#meter.removeBatchObservableCallback(this.#callback, this.#observables);
  }

  /** One collection: every component read once, every series observed from that one read. */
  #observe(result: BatchObservableResult): void {
    const snapshot = this.#components.read();
    const out: ObservedSample[] = [];
    for (let i = 0; i < OBSERVED_SERIES.length; i++) {
      const s = OBSERVED_SERIES[i]!;
      const observable = this.#observables[i]!;
      out.length = 0;
      for (const entry of snapshot[s.of]) s.samples(entry as never, out);
      for (const sample of out) result.observe(observable, sample.value, sample.labels);
    }
  }
}
