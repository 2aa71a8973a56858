import { CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type MetricData } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenTelemetryMetrics } from './index.js';
import { expectNoLeakedTimers, exporter, newClock } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

const OVERFLOW = 'otel.metric.overflow';

/** The points of one instrument: how many carry a breaker's name, and whether the SDK's overflow point is there. */
function points(collected: readonly MetricData[], instrument: string): { named: number; names: number; overflow: boolean } {
  const all = collected.find((m) => m.descriptor.name === instrument)!.dataPoints as readonly { attributes: Record<string, unknown> }[];
  const named = all.filter((p) => typeof p.attributes['name'] === 'string');
  return { named: named.length, names: new Set(named.map((p) => p.attributes['name'])).size, overflow: all.some((p) => p.attributes[OVERFLOW] === true) };
}

/** `n` breakers in one registry, each with one recorded call. */
function breakers(n: number): CircuitBreakerRegistry {
  const registry = new CircuitBreakerRegistry({ defaultConfig: { clock: newClock() } });
  for (let i = 0; i < n; i++) registry.get(`b${i}`);
  return registry;
}

describe("the SDK's cardinality limit (README: Many breakers)", () => {
  it('by default (2,000 attribute sets per instrument) folds 2,500 breakers into one overflow point, and the six-state gauge from 334 breakers on', async () => {
    const { metrics, collectAll } = exporter();
    metrics.add(breakers(2_500));
    const collected = await collectAll();
    expect(points(collected, 'breakwater.circuitbreaker.failure_rate')).toEqual({ named: 1_999, names: 1_999, overflow: true });
    expect(points(collected, 'breakwater.circuitbreaker.state')).toEqual({ named: 1_999, names: 334, overflow: true });

    const fewer = exporter();
    fewer.metrics.add(breakers(333));
    expect(points(await fewer.collectAll(), 'breakwater.circuitbreaker.state')).toEqual({ named: 6 * 333, names: 333, overflow: false });
    const more = exporter();
    more.metrics.add(breakers(334));
    expect(points(await more.collectAll(), 'breakwater.circuitbreaker.state').overflow).toBe(true);
  });

  it("raised as the README says, on the reader (PeriodicExportingMetricReader's cardinalityLimits): 2,500 breakers give 2,500 distinct points, 15,000 states", async () => {
    const memory = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    // The README's setup:
    const reader = new PeriodicExportingMetricReader({ exporter: memory, exportIntervalMillis: 3_600_000, cardinalityLimits: { default: 20_000 } });
    const provider = new MeterProvider({ readers: [reader] });
    const otel = new OpenTelemetryMetrics({ meter: provider.getMeter('payments') });
    otel.add(breakers(2_500));
    await reader.forceFlush();
    const collected = memory
      .getMetrics()
      .at(-1)!
      .scopeMetrics.flatMap((s) => s.metrics);
    expect(points(collected, 'breakwater.circuitbreaker.failure_rate')).toEqual({ named: 2_500, names: 2_500, overflow: false });
    expect(points(collected, 'breakwater.circuitbreaker.state')).toEqual({ named: 15_000, names: 2_500, overflow: false });
    otel.close();
    await provider.shutdown();
  });

  it('raised on any reader (cardinalitySelector) or by a view (aggregationCardinalityLimit); a view without one keeps 2,000 whatever the reader says', async () => {
    const onReader = exporter({}, AggregationTemporality.CUMULATIVE, { cardinalityLimit: 20_000 });
    onReader.metrics.add(breakers(2_500));
    expect(points(await onReader.collectAll(), 'breakwater.circuitbreaker.failure_rate')).toEqual({ named: 2_500, names: 2_500, overflow: false });

    const byView = exporter({}, AggregationTemporality.CUMULATIVE, { views: [{ instrumentName: 'breakwater.*', aggregationCardinalityLimit: 20_000 }] });
    byView.metrics.add(breakers(2_500));
    const viewed = await byView.collectAll();
    expect(points(viewed, 'breakwater.circuitbreaker.failure_rate')).toEqual({ named: 2_500, names: 2_500, overflow: false });
    expect(points(viewed, 'breakwater.circuitbreaker.state')).toEqual({ named: 15_000, names: 2_500, overflow: false });

    const viewWithout = exporter({}, AggregationTemporality.CUMULATIVE, { cardinalityLimit: 20_000, views: [{ instrumentName: 'breakwater.*' }] });
    viewWithout.metrics.add(breakers(2_500));
    expect(points(await viewWithout.collectAll(), 'breakwater.circuitbreaker.failure_rate')).toEqual({ named: 1_999, names: 1_999, overflow: true });
  });

  it('counts the attribute sets of removed breakers too, with DELTA temporality as with CUMULATIVE: size it for every breaker the process will have', async () => {
    for (const temporality of [AggregationTemporality.DELTA, AggregationTemporality.CUMULATIVE]) {
      const { metrics, collectAll } = exporter({}, temporality, { cardinalityLimit: 8 }); // 7 sets, then the overflow point
      const registry = new CircuitBreakerRegistry({ defaultConfig: { clock: newClock() } });
      metrics.add(registry);
      for (let i = 0; i < 5; i++) registry.get(`old${i}`);
      expect(points(await collectAll(), 'breakwater.circuitbreaker.failure_rate'), String(temporality)).toEqual({ named: 5, names: 5, overflow: false });
      for (let i = 0; i < 5; i++) registry.remove(`old${i}`);
      for (let i = 0; i < 5; i++) registry.get(`new${i}`);
      const after = points(await collectAll(), 'breakwater.circuitbreaker.failure_rate');
      expect(after.overflow, String(temporality)).toBe(true);
      expect(after.names, String(temporality)).toBe(temporality === AggregationTemporality.DELTA ? 2 : 7); // DELTA: new0, new1 (the old ones no longer reported); CUMULATIVE: the old ones frozen too
    }
  });
});
