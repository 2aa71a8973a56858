import type { CircuitBreaker } from '@breakwater/circuit-breaker';
import { LatencyHistogram } from './latency-histogram.js';
import type { TimeSeries } from './report.js';

/** What a series reads at each bucket's end besides the breaker: an adaptive limiter's limit, the backend's capacity. */
export interface SeriesGauges {
  readonly limit?: (() => number) | undefined;
  readonly capacity?: (() => number) | undefined;
}

/**
 * The run over time, added up bucket by bucket as it goes (a few numbers per bucket, never a
 * record per request). The breaker's rates, window and state are read at each bucket's end.
 * At most `maxBuckets` buckets: the last one is left open (`nextEnd` Infinity) and closed at the
 * run's end, so an answer days after the traffic folds into it instead of adding a bucket per width.
 */
export class SeriesRecorder {
  requests = 0;
  rejected = 0;
  failed = 0;
  succeeded = 0;
  /** Latencies of the requests that succeeded in the current bucket. */
  readonly latency = new LatencyHistogram();
  /** End of the current bucket, ms (Infinity for the last one, which runs to the end of the run). */
  nextEnd: number;
  /** Start of the current bucket, ms. */
  start = 0;
  readonly #t: number[] = [];
  readonly #requests: number[] = [];
  readonly #rejected: number[] = [];
  readonly #failed: number[] = [];
  readonly #failureRate: (number | null)[] = [];
  readonly #slowCallRate: (number | null)[] = [];
  readonly #windowFill: number[] = [];
  readonly #state: string[] = [];
  readonly #succeeded: number[] = [];
  readonly #p50: (number | null)[] = [];
  readonly #limit: number[] = [];
  readonly #capacity: (number | null)[] = [];
  readonly #perSecond: number;
  #endMs = 0;

  constructor(
    readonly bucketMs: number,
    readonly breaker: CircuitBreaker | undefined,
    readonly maxBuckets: number,
    readonly gauges: SeriesGauges = {},
  ) {
    this.nextEnd = maxBuckets <= 1 ? Infinity : bucketMs;
    this.#perSecond = 1000 / bucketMs;
  }

  /** Closes the current bucket at `end` (the clock reads it; `nextEnd` unless it is the last bucket) and opens the next. */
  close(end = this.nextEnd): void {
    const width = end - this.start;
    const perSecond = width === this.bucketMs ? this.#perSecond : 1000 / width;
    this.#t.push(this.start);
    this.#requests.push(this.requests * perSecond);
    this.#rejected.push(this.rejected * perSecond);
    this.#failed.push(this.failed * perSecond);
    this.#succeeded.push(this.succeeded * perSecond);
    this.#p50.push(this.latency.quantile(0.5));
    this.requests = this.rejected = this.failed = this.succeeded = 0;
    this.latency.reset();
    const { limit, capacity } = this.gauges;
    if (limit !== undefined) this.#limit.push(limit());
    if (capacity !== undefined) {
      const c = capacity();
      this.#capacity.push(c === Infinity ? null : c);
    }
    const breaker = this.breaker;
    if (breaker === undefined) {
      this.#failureRate.push(null);
      this.#slowCallRate.push(null);
      this.#windowFill.push(0);
      this.#state.push('NONE');
    } else {
      const m = breaker.metrics;
      const c = breaker.config;
      this.#failureRate.push(m.failureRate < 0 ? null : m.failureRate);
      this.#slowCallRate.push(m.slowCallRate < 0 ? null : m.slowCallRate);
      // COUNT_BASED: calls over the ring's size; TIME_BASED: calls over the minimum that makes the rates count.
      const size = c.slidingWindowType === 'COUNT_BASED' ? c.slidingWindowSize : c.minimumNumberOfCalls;
      this.#windowFill.push(Math.min(1, m.numberOfBufferedCalls / size));
      this.#state.push(breaker.state);
    }
    this.#endMs = end;
    this.start = end;
    this.nextEnd = this.#t.length >= this.maxBuckets - 1 ? Infinity : end + this.bucketMs;
  }

  /** The series of every closed bucket. */
  result(): TimeSeries {
    return {
      bucketMs: this.bucketMs,
      endMs: this.#endMs,
      t: this.#t,
      requestsPerSecond: this.#requests,
      rejectedPerSecond: this.#rejected,
      failedPerSecond: this.#failed,
      failureRate: this.#failureRate,
      slowCallRate: this.#slowCallRate,
      windowFill: this.#windowFill,
      state: this.#state,
      succeededPerSecond: this.#succeeded,
      latencyP50Ms: this.#p50,
      ...(this.gauges.limit === undefined ? {} : { limit: this.#limit }),
      ...(this.gauges.capacity === undefined ? {} : { capacity: this.#capacity }),
    };
  }
}

const NICE = [10, 20, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000];

/** The most buckets a series of `bucketMs` may have for `trafficMs` of traffic: its points over the traffic, as many again after it. */
export function maxBuckets(trafficMs: number, bucketMs: number): number {
  return 2 * Math.max(1, Math.ceil(trafficMs / bucketMs));
}

/** The default bucket: the smallest round width that keeps the series within about 300 points (at least 100 ms). */
export function defaultBucketMs(durationMs: number): number {
  const wanted = Math.max(100, durationMs / 300);
  return NICE.find((n) => n >= wanted) ?? Math.ceil(wanted / 3_600_000) * 3_600_000;
}
