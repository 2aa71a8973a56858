import { readFileSync } from 'node:fs';
import {
  breakerOnClock,
  breakerOpenedByFailureRate,
  breakerOpenThenLateCalls,
  breakerRegistryOfTwo,
  breakerThreeCalls,
  hundredCalls,
  spiedBreaker,
} from '@breakwater/exporter-scenarios';
import { AggregationTemporality, DataPointType, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OpenTelemetryMetrics } from './index.js';
import { expectNoLeakedTimers, exporter, lines } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

describe('circuit breaker instruments (contract: docs/observability.md)', () => {
  it('a scripted run collects exactly: state, window counts, rates, not-permitted and the call histogram in seconds', async () => {
    const { metrics, collect, collectAll } = exporter({ buckets: [0.025, 0.1, 0.5] });
    await breakerThreeCalls((b) => metrics.add(b));

    expect(await collect()).toEqual([
      'breakwater.circuitbreaker.buffered_calls{name="pg",kind="failed"} 1',
      'breakwater.circuitbreaker.buffered_calls{name="pg",kind="successful"} 2',
      'breakwater.circuitbreaker.calls{name="pg",kind="failed"} count=1 sum=0.2 buckets=0,0,1,0',
      'breakwater.circuitbreaker.calls{name="pg",kind="successful"} count=2 sum=0.07 buckets=1,1,0,0',
      'breakwater.circuitbreaker.failure_rate{name="pg"} -1',
      'breakwater.circuitbreaker.not_permitted_calls{name="pg",kind="not_permitted"} 0',
      'breakwater.circuitbreaker.slow_call_rate{name="pg"} -1',
      'breakwater.circuitbreaker.slow_calls{name="pg",kind="failed"} 1',
      'breakwater.circuitbreaker.slow_calls{name="pg",kind="successful"} 0',
      'breakwater.circuitbreaker.state{name="pg",state="closed"} 1',
      'breakwater.circuitbreaker.state{name="pg",state="disabled"} 0',
      'breakwater.circuitbreaker.state{name="pg",state="forced_open"} 0',
      'breakwater.circuitbreaker.state{name="pg",state="half_open"} 0',
      'breakwater.circuitbreaker.state{name="pg",state="metrics_only"} 0',
      'breakwater.circuitbreaker.state{name="pg",state="open"} 0',
    ]);
    // The instruments' kinds and units as an OTel backend reads them.
    const byName = new Map((await collectAll()).map((m) => [m.descriptor.name, m]));
    const calls = byName.get('breakwater.circuitbreaker.calls')!;
    expect(calls.dataPointType).toBe(DataPointType.HISTOGRAM);
    expect(calls.descriptor.unit).toBe('s');
    const histogramPoint = calls.dataPoints.find((p) => p.attributes['kind'] === 'successful')!.value as {
      min: number;
      max: number;
      buckets: { boundaries: number[] };
    };
    expect([histogramPoint.min, histogramPoint.max, histogramPoint.buckets.boundaries]).toEqual([0.02, 0.05, [0.025, 0.1, 0.5]]);
    expect(byName.get('breakwater.circuitbreaker.state')!.dataPointType).toBe(DataPointType.GAUGE);
    const notPermitted = byName.get('breakwater.circuitbreaker.not_permitted_calls')!;
    expect(notPermitted.dataPointType).toBe(DataPointType.SUM);
    expect(notPermitted.dataPointType === DataPointType.SUM && notPermitted.isMonotonic).toBe(true);
  });

  it('OPEN with its rates, refused calls counted, and every transition counted with its cause', async () => {
    const { metrics, collect } = exporter();
    const { throughEveryCause, forcedOpenByFleet } = await breakerOpenedByFailureRate((b) => metrics.add(b));
    expect(await collect('breakwater.circuitbreaker.state', 'breakwater.circuitbreaker.failure_rate', 'breakwater.circuitbreaker.not_permitted_calls')).toEqual(
      [
        'breakwater.circuitbreaker.failure_rate{name="pg"} 75',
        'breakwater.circuitbreaker.not_permitted_calls{name="pg",kind="not_permitted"} 1',
        'breakwater.circuitbreaker.state{name="pg",state="closed"} 0',
        'breakwater.circuitbreaker.state{name="pg",state="disabled"} 0',
        'breakwater.circuitbreaker.state{name="pg",state="forced_open"} 0',
        'breakwater.circuitbreaker.state{name="pg",state="half_open"} 0',
        'breakwater.circuitbreaker.state{name="pg",state="metrics_only"} 0',
        'breakwater.circuitbreaker.state{name="pg",state="open"} 1',
      ],
    );

    await throughEveryCause();
    expect(await collect('breakwater.circuitbreaker.transitions')).toEqual([
      'breakwater.circuitbreaker.transitions{name="pg",from="closed",to="open",cause="failure_rate"} 1',
      'breakwater.circuitbreaker.transitions{name="pg",from="closed",to="open",cause="slow_call_rate"} 1',
      'breakwater.circuitbreaker.transitions{name="pg",from="forced_open",to="closed",cause="manual"} 1',
      'breakwater.circuitbreaker.transitions{name="pg",from="half_open",to="closed",cause="half_open_trial"} 1',
      'breakwater.circuitbreaker.transitions{name="pg",from="open",to="forced_open",cause="manual"} 1',
      'breakwater.circuitbreaker.transitions{name="pg",from="open",to="half_open",cause="wait_elapsed"} 1',
    ]);
    forcedOpenByFleet(); // what RedisBreakerSync does
    expect(await collect('breakwater.circuitbreaker.transitions')).toContain(
      'breakwater.circuitbreaker.transitions{name="pg",from="closed",to="forced_open",cause="fleet"} 1',
    );
  });

  it('a registry is bound as a whole: later instances appear, evicted and removed ones are no longer observed and, with DELTA temporality, disappear', async () => {
    const { metrics, collect } = exporter({ buckets: [1] }, AggregationTemporality.DELTA);
    const { breakers, a, stop, replaceD } = breakerRegistryOfTwo((r) => metrics.add(r));
    const names = async () => (await collect('breakwater.circuitbreaker.failure_rate')).map((l) => /name="(\w+)"/.exec(l)![1]);
    expect(await names()).toEqual(['a', 'b']);

    breakers.get('c'); // evicts a, the least recently used
    a.onError(10, new Error('boom'));
    expect(await names()).toEqual(['b', 'c']);
    expect(await collect('breakwater.circuitbreaker.calls')).toEqual([]);

    breakers.remove('b');
    expect(await names()).toEqual(['c']);

    const replacement = replaceD();
    replacement.transitionToOpenState();
    expect(await collect('breakwater.circuitbreaker.calls', 'breakwater.circuitbreaker.transitions')).toEqual([
      'breakwater.circuitbreaker.calls{name="d",kind="successful"} count=1 sum=0.01 buckets=1,0',
      'breakwater.circuitbreaker.transitions{name="d",from="closed",to="open",cause="manual"} 1',
    ]);

    stop();
    stop(); // a second call does nothing more
    replacement.onSuccess(10);
    expect(await collect()).toEqual([]);
  });

  it("with CUMULATIVE temporality the SDK keeps a removed breaker's last values (opentelemetry-js#4096): they are frozen, no longer observed", async () => {
    const { metrics, collect } = exporter();
    const { breaker } = breakerOnClock();
    const remove = metrics.add(breaker);
    breaker.onSuccess(10);
    const before = await collect();
    remove();
    breaker.transitionToOpenState();
    breaker.onSuccess(10);
    expect(await collect()).toEqual(before);
    expect(before).toContain('breakwater.circuitbreaker.state{name="pg",state="closed"} 1');
  });

  it('costs nothing per call but the histogram: metrics read once per collection, one observer, no event listener but stateTransition', async () => {
    const { metrics, collect } = exporter();
    const { breaker, readMetrics, on, stops } = spiedBreaker();
    const remove = metrics.add(breaker);
    expect(on.mock.calls.map((c) => c[0])).toEqual(['stateTransition']);
    expect(stops).toHaveLength(1);
    await hundredCalls(breaker);
    expect(readMetrics).not.toHaveBeenCalled();
    await collect();
    expect(readMetrics).toHaveBeenCalledTimes(1);
    const again = metrics.add(breaker);
    remove();
    expect(stops[0]).not.toHaveBeenCalled();
    again();
    expect(stops[0]).toHaveBeenCalledTimes(1);
  });

  it('the histogram gets one attributes object per breaker and kind, built once', async () => {
    const provider = new MeterProvider();
    const meter = provider.getMeter('t');
    const record = vi.fn();
    const createHistogram = meter.createHistogram.bind(meter);
    vi.spyOn(meter, 'createHistogram').mockImplementation((name, options) => {
      const h = createHistogram(name, options);
      vi.spyOn(h, 'record').mockImplementation(record);
      return h;
    });
    const metrics = new OpenTelemetryMetrics({ meter });
    const { breaker } = breakerOnClock();
    metrics.add(breaker);
    breaker.onSuccess(10);
    breaker.onSuccess(20);
    breaker.onError(30, new Error('x'));
    expect(record.mock.calls.map((c) => c[0])).toEqual([0.01, 0.02, 0.03]);
    expect(record.mock.calls[0]![1]).toBe(record.mock.calls[1]![1]);
    expect(record.mock.calls[0]![1]).toEqual({ name: 'pg', kind: 'successful' });
    expect(record.mock.calls[2]![1]).toEqual({ name: 'pg', kind: 'failed' });
    await provider.shutdown();
  });

  it('works with the in-memory exporter behind a PeriodicExportingMetricReader (forceFlush, no wait); close() stops the observations (DELTA: nothing left to export)', async () => {
    const memory = new InMemoryMetricExporter(AggregationTemporality.DELTA);
    const reader = new PeriodicExportingMetricReader({ exporter: memory, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({ readers: [reader] });
    const metrics = new OpenTelemetryMetrics({ meter: provider.getMeter('payments'), prefix: 'resilience4j' });
    const { breaker } = breakerOnClock();
    metrics.add(breaker);
    breaker.transitionToOpenState();
    await reader.forceFlush();
    const exported = memory
      .getMetrics()
      .at(-1)!
      .scopeMetrics.flatMap((s) => s.metrics);
    expect(lines(exported, ['resilience4j.circuitbreaker.transitions', 'resilience4j.circuitbreaker.state']).filter((l) => !l.endsWith(' 0'))).toEqual([
      'resilience4j.circuitbreaker.state{name="pg",state="open"} 1',
      'resilience4j.circuitbreaker.transitions{name="pg",from="closed",to="open",cause="manual"} 1',
    ]);
    metrics.close();
    metrics.close();
    memory.reset();
    await reader.forceFlush();
    expect(lines(memory.getMetrics().flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics)))).toEqual([]);
    await provider.shutdown();
  });
});

describe('README: the rates of an OPEN breaker are not the rates that opened it', () => {
  it('says so, and it holds: late calls recorded while OPEN move the gauge to 25 %; 75 % is on the event, failure_rate on the transition', async () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(readme).toContain('**The rates of an OPEN breaker are not the rates that opened it.**');
    expect(readme).toContain('while the breaker is OPEN these gauges keep changing and can fall below the threshold');
    expect(readme).toContain("The rate at the moment of opening is on the breaker's `failureRateExceeded` / `slowCallRateExceeded` event");

    const { metrics, collect } = exporter();
    const { exceeded, causes, lateCallsSucceed } = await breakerOpenThenLateCalls((b) => metrics.add(b));
    const instruments = ['breakwater.circuitbreaker.failure_rate', 'breakwater.circuitbreaker.transitions'];
    const open = 'breakwater.circuitbreaker.state{name="pg",state="open"} 1';
    expect(await collect(...instruments, 'breakwater.circuitbreaker.state')).toEqual(
      expect.arrayContaining([open, 'breakwater.circuitbreaker.failure_rate{name="pg"} 75']),
    );
    await lateCallsSucceed();
    expect(await collect('breakwater.circuitbreaker.state')).toContain(open);
    expect(await collect(...instruments)).toEqual([
      'breakwater.circuitbreaker.failure_rate{name="pg"} 25',
      'breakwater.circuitbreaker.transitions{name="pg",from="closed",to="open",cause="failure_rate"} 1',
    ]);
    expect(exceeded).toEqual([75]);
    expect(causes).toEqual(['CLOSED → OPEN: failure_rate']);
  });
});
