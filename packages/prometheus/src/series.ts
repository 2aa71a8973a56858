import { CALL_KINDS, labelValue, OBSERVED_SERIES, type ObservedSample, type ObservedSeries, type ObservedSnapshot } from '@breakwater/observe';
import type { Registry, RegistryContentType } from 'prom-client';
import type { CallCell, CallCells, RttCell } from './breaker-binding.js';
import { pulledCounter, pulledGauge, pulledHistogram, type Sample } from './pulled.js';

/** What one scrape reads: every exported component once, its `metrics` read once (observe's reader). */
export type Snapshot = ObservedSnapshot<CallCells, RttCell>;

/** `_calls_seconds_max`: Prometheus only (an OTel histogram keeps its own max), read from this package's cells. */
const CALLS_MAX: ObservedSeries<'breakers'> = {
  name: 'circuitbreaker_calls_seconds_max',
  help: 'Longest recorded call since the previous scrape, in seconds',
  type: 'gauge',
  labelNames: ['name', 'kind'],
  of: 'breakers',
  samples: ({ c, binding }, out) => {
    const calls = binding?.calls as CallCells | undefined;
    const name = labelValue(c.name);
    if (calls) for (const kind of CALL_KINDS) out.push({ labels: { name, kind }, value: takeMax(calls.cells[kind]) });
  },
};

/** Every gauge and counter of docs/observability.md, with Resilience4j's Micrometer names (after the prefix): observe's, and the max after the rates. */
export const SCALARS: readonly ObservedSeries[] = (() => {
  const all = [...OBSERVED_SERIES];
  all.splice(all.findIndex((s) => s.name === 'circuitbreaker_slow_call_rate') + 1, 0, CALLS_MAX as unknown as ObservedSeries);
  return all;
})();

/** The max since the previous read, then 0 (Micrometer's `_max` decays over a window instead). */
function takeMax(cell: CallCell): number {
  const max = cell.max;
  cell.max = 0;
  return max;
}

/** A histogram's sample names and bucket bounds (`le` values), built once. */
interface HistogramNames {
  readonly bucket: string;
  readonly sum: string;
  readonly count: string;
  readonly bounds: readonly string[];
}

const histogramNames = (metric: string, buckets: readonly number[]): HistogramNames => ({
  bucket: `${metric}_bucket`,
  sum: `${metric}_sum`,
  count: `${metric}_count`,
  bounds: buckets.map(String),
});

/**
 * One histogram child's samples: `_bucket` (cumulative, `le`), `_sum` and `_count`, labelled
 * `name` (and `kind` when given): each label set written as a literal, no spread per sample.
 */
function cellSamples(out: Sample[], h: HistogramNames, name: string, kind: string | undefined, cell: CallCell): void {
  const labels = kind === undefined ? { name } : { name, kind };
  let cumulative = 0;
  for (let i = 0; i < cell.counts.length; i++) {
    cumulative += cell.counts[i]!;
    const le = h.bounds[i] ?? '+Inf';
    out.push({ labels: kind === undefined ? { name, le } : { name, kind, le }, value: cumulative, metricName: h.bucket });
  }
  out.push({ labels, value: cell.sum, metricName: h.sum });
  out.push({ labels, value: cell.count, metricName: h.count });
}

/** The samples of the call histogram, per breaker and kind. */
function callSamples(snapshot: Snapshot, h: HistogramNames): Sample[] {
  const out: Sample[] = [];
  for (const { c, binding } of snapshot.breakers) {
    const calls = binding?.calls;
    if (calls === undefined) continue;
    const name = labelValue(c.name);
    for (const kind of CALL_KINDS) cellSamples(out, h, name, kind, calls.cells[kind]);
  }
  return out;
}

/** The samples of the round-trip histogram, per adaptive limiter. */
function rttSamples(snapshot: Snapshot, h: HistogramNames): Sample[] {
  const out: Sample[] = [];
  for (const { c, binding } of snapshot.adaptiveLimiters) {
    const rtts = binding?.rtts;
    if (rtts !== undefined) cellSamples(out, h, labelValue(c.name), undefined, rtts.cell);
  }
  return out;
}

/** Registers every series of docs/observability.md on `registry`, read from `snapshot()` at each scrape. */
export function registerSeries(registry: Registry<RegistryContentType>, prefix: string, buckets: readonly number[], snapshot: () => Snapshot): void {
  for (const s of SCALARS) {
    const def = { name: `${prefix}_${s.name}`, help: s.help, labelNames: s.labelNames };
    const read = (): Sample[] => {
      const out: ObservedSample[] = [];
      for (const entry of snapshot()[s.of]) s.samples(entry as never, out);
      return out;
    };
    if (s.type === 'gauge') pulledGauge(def, registry, read);
    else pulledCounter(def, registry, read);
  }
  const calls = histogramNames(`${prefix}_circuitbreaker_calls_seconds`, buckets);
  pulledHistogram(
    { name: `${prefix}_circuitbreaker_calls_seconds`, help: 'Recorded calls of the circuit breaker, by outcome, in seconds', labelNames: ['name', 'kind'] },
    registry,
    buckets,
    () => callSamples(snapshot(), calls),
  );
  const rtts = histogramNames(`${prefix}_adaptive_rtt_seconds`, buckets);
  pulledHistogram(
    { name: `${prefix}_adaptive_rtt_seconds`, help: 'Round trips the adaptive limiter sampled (calls it ignored left out), in seconds', labelNames: ['name'] },
    registry,
    buckets,
    () => rttSamples(snapshot(), rtts),
  );
}
