import {
  AggregationTemporality,
  DataPointType,
  MeterProvider,
  MetricReader,
  type HistogramMetricData,
  type MetricData,
  type ViewOptions,
} from '@opentelemetry/sdk-metrics';
import { expect } from 'vitest';
import { OpenTelemetryMetrics, type OpenTelemetryMetricsOptions } from '../src/index.js';

// The clock bookkeeping is the scenarios' own (one list of clocks for the scenarios and the tests).
export { expectNoLeakedTimers, newClock } from '@breakwater/exporter-scenarios';

/** A reader the test collects by hand: no timer, no real-time wait. */
class HandReader extends MetricReader {
  constructor(temporality: AggregationTemporality, cardinalityLimit?: number) {
    super({ aggregationTemporalitySelector: () => temporality, ...(cardinalityLimit === undefined ? {} : { cardinalitySelector: () => cardinalityLimit }) });
  }
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

const attrs = (a: Record<string, unknown>): string =>
  Object.entries(a)
    .map(([k, v]) => `${k}="${String(v)}"`)
    .join(',');

/** One line per data point: `name{attributes} value`; a histogram's `count=… sum=… buckets=…`. */
export function lines(metrics: readonly MetricData[], names: readonly string[] = []): string[] {
  const out: string[] = [];
  for (const m of metrics) {
    const name = m.descriptor.name;
    if (names.length > 0 && !names.includes(name)) continue;
    if (m.dataPointType === DataPointType.HISTOGRAM) {
      for (const p of (m as HistogramMetricData).dataPoints) {
        const v = p.value;
        out.push(`${name}{${attrs(p.attributes)}} count=${v.count} sum=${+v.sum!.toFixed(9)} buckets=${v.buckets.counts.join(',')}`);
      }
    } else {
      for (const p of m.dataPoints) out.push(`${name}{${attrs(p.attributes)}} ${String(p.value)}`);
    }
  }
  return out.sort();
}

/**
 * A real MeterProvider with a hand-collected reader (cumulative unless told), and an exporter on its
 * meter. `sdk` sets the reader's cardinality limit (its `cardinalitySelector`) and the provider's views.
 */
export function exporter(
  options: Omit<OpenTelemetryMetricsOptions, 'meter'> = {},
  temporality = AggregationTemporality.CUMULATIVE,
  sdk: { readonly cardinalityLimit?: number; readonly views?: ViewOptions[] } = {},
) {
  const reader = new HandReader(temporality, sdk.cardinalityLimit);
  const provider = new MeterProvider({ readers: [reader], ...(sdk.views === undefined ? {} : { views: sdk.views }) });
  const meter = provider.getMeter('breakwater-test');
  const metrics = new OpenTelemetryMetrics({ meter, ...options });
  /** Every metric of one collection. */
  const collectAll = async (): Promise<MetricData[]> => {
    const { resourceMetrics, errors } = await reader.collect();
    expect(errors).toEqual([]);
    return resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
  };
  /** The data-point lines of one collection whose instrument is one of `names` (all without `names`), sorted. */
  const collect = async (...names: string[]): Promise<string[]> => lines(await collectAll(), names);
  return { provider, reader, meter, metrics, collect, collectAll };
}
