import type { PoolBulkhead } from '@breakwater/bulkhead';
import { FaultInjection } from '@breakwater/chaos';
import { OBSERVED_SERIES } from '@breakwater/observe';
import {
  bulkheadHoldingOneOfThree,
  everyAdaptiveRegistryWithOne,
  everyRegistryWithOne,
  hedgeRegistryWithOne,
  oneOfEachKindAndRegistry,
  poolBulkheadOneRunningOneQueued,
  rateLimiterWithOneWaiter,
  retryFourOutcomes,
  timeLimiterThreeOutcomes,
} from '@breakwater/exporter-scenarios';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { instrumentName, OpenTelemetryMetrics } from './index.js';
import { expectNoLeakedTimers, exporter, newClock } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

describe('retry, time limiter, bulkheads and rate limiter instruments (contract: docs/observability.md)', () => {
  it('breakwater.retry.calls counts the four outcomes', async () => {
    const { metrics, collect } = exporter();
    await retryFourOutcomes((c) => metrics.add(c));
    expect(await collect()).toEqual([
      'breakwater.retry.calls{name="pg",kind="failed_with_retry"} 1',
      'breakwater.retry.calls{name="pg",kind="failed_without_retry"} 0',
      'breakwater.retry.calls{name="pg",kind="successful_with_retry"} 1',
      'breakwater.retry.calls{name="pg",kind="successful_without_retry"} 1',
    ]);
  });

  it('breakwater.timelimiter.calls counts successes, failures and time-outs', async () => {
    const { metrics, collect } = exporter();
    await timeLimiterThreeOutcomes((c) => metrics.add(c));
    expect(await collect()).toEqual([
      'breakwater.timelimiter.calls{name="inventory",kind="failed"} 1',
      'breakwater.timelimiter.calls{name="inventory",kind="successful"} 1',
      'breakwater.timelimiter.calls{name="inventory",kind="timeout"} 1',
    ]);
  });

  it('bulkhead gauges: available and maximum concurrent calls, read while a call holds a slot', async () => {
    const { metrics, collect } = exporter();
    const { release } = bulkheadHoldingOneOfThree((c) => metrics.add(c));
    expect(await collect()).toEqual([
      'breakwater.bulkhead.available_concurrent_calls{name="db"} 2',
      'breakwater.bulkhead.max_allowed_concurrent_calls{name="db"} 3',
    ]);
    await release();
    expect(await collect('breakwater.bulkhead.available_concurrent_calls')).toEqual(['breakwater.bulkhead.available_concurrent_calls{name="db"} 3']);
  });

  it('pool bulkhead gauges', async () => {
    const { metrics, collect } = exporter();
    const { finish } = poolBulkheadOneRunningOneQueued((c) => metrics.add(c));
    expect(await collect()).toEqual([
      'breakwater.bulkhead.active_thread_count{name="cpu"} 1',
      'breakwater.bulkhead.available_thread_count{name="cpu"} 1',
      'breakwater.bulkhead.core_thread_pool_size{name="cpu"} 1',
      'breakwater.bulkhead.max_thread_pool_size{name="cpu"} 2',
      'breakwater.bulkhead.queue_capacity{name="cpu"} 5',
      'breakwater.bulkhead.queue_depth{name="cpu"} 1',
      'breakwater.bulkhead.thread_pool_size{name="cpu"} 1',
    ]);
    await finish();
  });

  it('rate limiter gauges: available permissions and waiting calls', async () => {
    const { metrics, collect } = exporter();
    const { refresh } = await rateLimiterWithOneWaiter((c) => metrics.add(c));
    expect(await collect()).toEqual(['breakwater.ratelimiter.available_permissions{name="api"} -1', 'breakwater.ratelimiter.waiting_threads{name="api"} 1']);
    await refresh();
    expect(await collect()).toEqual(['breakwater.ratelimiter.available_permissions{name="api"} 1', 'breakwater.ratelimiter.waiting_threads{name="api"} 0']);
  });

  it('refuses what it cannot export, and a prefix, buckets or meter it cannot use', () => {
    const { metrics } = exporter();
    const meter = new MeterProvider().getMeter('t');
    expect(() => metrics.add({ kind: 'fallback', name: 'x' } as never)).toThrow(
      /OpenTelemetryMetrics.add: expected a circuit breaker, retry, .* or a registry of them, got/,
    );
    expect(() => new OpenTelemetryMetrics({ meter, prefix: '1app' })).toThrow(/prefix must start an OpenTelemetry instrument name/);
    expect(() => new OpenTelemetryMetrics({ meter, buckets: [1, 0.5] })).toThrow(/buckets must be increasing/);
    expect(() => new OpenTelemetryMetrics({ meter: {} as never })).toThrow(/meter must be an @opentelemetry\/api Meter/);
  });
});

describe('names: dots, which a Prometheus exporter of OTel turns back into the @breakwater/prometheus names', () => {
  /** What an exporter to Prometheus does with an OTel name: dots to underscores, `_total` on monotonic counters. */
  const asPrometheus = (name: string, counter: boolean): string => `${name.replaceAll('.', '_')}${counter ? '_total' : ''}`;

  it('every gauge and counter of docs/observability.md, each kind, collected with prefix resilience4j', async () => {
    const { metrics, collect, collectAll } = exporter({ prefix: 'resilience4j' });
    const { breakers, pools } = everyRegistryWithOne((r) => metrics.add(r), 'backendA');
    everyAdaptiveRegistryWithOne((r) => metrics.add(r), 'backendA');
    hedgeRegistryWithOne((r) => metrics.add(r), 'backendA');
    metrics.add(new FaultInjection('backendA', { fault: new Error('injected'), clock: newClock() })); // chaos has no registry
    breakers.get('backendA').transitionToOpenState();
    breakers.get('backendA').transitionToClosedState();
    breakers.get('backendA').onSuccess(5);
    const collected = await collectAll();
    const names = collected.map((m) => m.descriptor.name).sort();
    // The round-trip histogram has no data point until a limiter samples a call.
    expect(names).toEqual([...OBSERVED_SERIES.map((s) => instrumentName('resilience4j', s.name)), 'resilience4j.circuitbreaker.calls'].sort());
    // Through an exporter to Prometheus: the names of @breakwater/prometheus with the same prefix.
    const scraped = collected.map((m) =>
      asPrometheus(
        m.descriptor.name,
        OBSERVED_SERIES.some((s) => s.type === 'counter' && instrumentName('resilience4j', s.name) === m.descriptor.name),
      ),
    );
    expect(scraped).toEqual(
      expect.arrayContaining([
        'resilience4j_circuitbreaker_state',
        'resilience4j_circuitbreaker_not_permitted_calls_total',
        'resilience4j_circuitbreaker_transitions_total',
        'resilience4j_retry_calls_total',
        'resilience4j_bulkhead_queue_depth',
        'resilience4j_ratelimiter_waiting_threads',
        'resilience4j_adaptive_limit',
        'resilience4j_adaptive_rejected_calls_total',
        'resilience4j_throttle_reject_ratio',
        'resilience4j_hedge_wins_total',
        'resilience4j_chaos_calls_total',
      ]),
    );
    for (const s of OBSERVED_SERIES) expect(asPrometheus(instrumentName('resilience4j', s.name), s.type === 'counter')).toBe(`resilience4j_${s.name}`);
    const lines = await collect();
    expect(lines).toContain('resilience4j.circuitbreaker.state{name="backendA",state="closed"} 1');
    expect(lines).toContain('resilience4j.circuitbreaker.transitions{name="backendA",from="open",to="closed",cause="manual"} 1');
    expect(lines).toContain('resilience4j.circuitbreaker.calls{name="backendA",kind="successful"} count=1 sum=0.005 buckets=1,0,0,0,0,0,0,0,0,0,0,0');
    expect(lines).toContain('resilience4j.retry.calls{name="backendA",kind="successful_without_retry"} 0');
    await pools.get('backendA').close();
  });

  it("the real components' types are what add() takes: each kind and every registry", () => {
    const { metrics } = exporter();
    for (const c of oneOfEachKindAndRegistry()) metrics.add(c)();
    const typed: (p: PoolBulkhead) => () => void = (p) => metrics.add(p);
    expect(typeof typed).toBe('function');
  });
});
