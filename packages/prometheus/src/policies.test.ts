import type { PoolBulkhead } from '@breakwater/bulkhead';
import {
  bulkheadHoldingOneOfThree,
  everyRegistryWithOne,
  oneOfEachKindAndRegistry,
  poolBulkheadOneRunningOneQueued,
  rateLimiterWithOneWaiter,
  retryFourOutcomes,
  timeLimiterThreeOutcomes,
} from '@breakwater/exporter-scenarios';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { PrometheusMetrics } from './index.js';
import { expectNoLeakedTimers, exporter, seriesNames } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

describe('retry, time limiter, bulkheads and rate limiter series (contract: docs/observability.md)', () => {
  it('retry_calls_total counts the four outcomes', async () => {
    const { metrics, scrape } = exporter();
    await retryFourOutcomes((c) => metrics.add(c));
    expect(await scrape()).toEqual([
      'breakwater_retry_calls_total{name="pg",kind="successful_without_retry"} 1',
      'breakwater_retry_calls_total{name="pg",kind="successful_with_retry"} 1',
      'breakwater_retry_calls_total{name="pg",kind="failed_without_retry"} 0',
      'breakwater_retry_calls_total{name="pg",kind="failed_with_retry"} 1',
    ]);
  });

  it('timelimiter_calls_total counts successes, failures and time-outs', async () => {
    const { metrics, scrape } = exporter();
    await timeLimiterThreeOutcomes((c) => metrics.add(c));
    expect(await scrape()).toEqual([
      'breakwater_timelimiter_calls_total{name="inventory",kind="successful"} 1',
      'breakwater_timelimiter_calls_total{name="inventory",kind="failed"} 1',
      'breakwater_timelimiter_calls_total{name="inventory",kind="timeout"} 1',
    ]);
  });

  it('bulkhead gauges: available and maximum concurrent calls, read while a call holds a slot', async () => {
    const { metrics, scrape } = exporter();
    const { release } = bulkheadHoldingOneOfThree((c) => metrics.add(c));
    expect(await scrape()).toEqual([
      'breakwater_bulkhead_available_concurrent_calls{name="db"} 2',
      'breakwater_bulkhead_max_allowed_concurrent_calls{name="db"} 3',
    ]);
    await release();
    expect(await scrape('breakwater_bulkhead_available_concurrent_calls')).toEqual(['breakwater_bulkhead_available_concurrent_calls{name="db"} 3']);
  });

  it("pool bulkhead gauges, with Resilience4j's thread-pool bulkhead names", async () => {
    const { metrics, scrape } = exporter();
    const { finish } = poolBulkheadOneRunningOneQueued((c) => metrics.add(c));
    expect(await scrape()).toEqual([
      'breakwater_bulkhead_queue_depth{name="cpu"} 1',
      'breakwater_bulkhead_queue_capacity{name="cpu"} 5',
      'breakwater_bulkhead_thread_pool_size{name="cpu"} 1',
      'breakwater_bulkhead_core_thread_pool_size{name="cpu"} 1',
      'breakwater_bulkhead_max_thread_pool_size{name="cpu"} 2',
      'breakwater_bulkhead_active_thread_count{name="cpu"} 1',
      'breakwater_bulkhead_available_thread_count{name="cpu"} 1',
    ]);
    await finish();
  });

  it('rate limiter gauges: available permissions and waiting calls', async () => {
    const { metrics, scrape } = exporter();
    const { refresh } = await rateLimiterWithOneWaiter((c) => metrics.add(c));
    expect(await scrape()).toEqual(['breakwater_ratelimiter_available_permissions{name="api"} -1', 'breakwater_ratelimiter_waiting_threads{name="api"} 1']);
    await refresh();
    expect(await scrape()).toEqual(['breakwater_ratelimiter_available_permissions{name="api"} 1', 'breakwater_ratelimiter_waiting_threads{name="api"} 0']);
  });

  it('refuses what it cannot export, and a prefix or buckets Prometheus would refuse', () => {
    const { metrics } = exporter();
    expect(() => metrics.add({ kind: 'fallback', name: 'x' } as never)).toThrow(/expected a circuit breaker, retry, .* or a registry of them, got/);
    expect(() => new PrometheusMetrics({ registry: new Registry(), prefix: 'my-app' })).toThrow(/prefix must be a Prometheus metric name/);
    expect(() => new PrometheusMetrics({ registry: new Registry(), buckets: [1, 0.5] })).toThrow(/buckets must be increasing/);
    expect(() => new PrometheusMetrics({ registry: {} as Registry })).toThrow(/registry must be a prom-client Registry/);
  });
});

/**
 * The series the Resilience4j Grafana dashboard (grafana_dashboard.json in resilience4j/resilience4j)
 * queries, and what Resilience4j's Micrometer binders publish that the dashboard leaves out. Two
 * of its queries read series Resilience4j itself stopped publishing in 1.0 and are not here:
 * `resilience4j_circuitbreaker_calls_total` (now `_not_permitted_calls_total`) and
 * `resilience4j_circuitbreaker_max_buffered_calls`.
 */
const DASHBOARD = [
  'resilience4j_circuitbreaker_state',
  'resilience4j_circuitbreaker_failure_rate',
  'resilience4j_circuitbreaker_calls_seconds_count',
  'resilience4j_circuitbreaker_calls_seconds_sum',
  'resilience4j_circuitbreaker_calls_seconds_bucket',
  'resilience4j_circuitbreaker_buffered_calls',
  'resilience4j_retry_calls_total',
  'resilience4j_bulkhead_available_concurrent_calls',
  'resilience4j_bulkhead_max_allowed_concurrent_calls',
];
const RESILIENCE4J_MICROMETER = [
  'resilience4j_circuitbreaker_calls_seconds_max',
  'resilience4j_circuitbreaker_not_permitted_calls_total',
  'resilience4j_circuitbreaker_slow_calls',
  'resilience4j_circuitbreaker_slow_call_rate',
  'resilience4j_timelimiter_calls_total',
  'resilience4j_bulkhead_queue_depth',
  'resilience4j_bulkhead_queue_capacity',
  'resilience4j_bulkhead_thread_pool_size',
  'resilience4j_bulkhead_core_thread_pool_size',
  'resilience4j_bulkhead_max_thread_pool_size',
  'resilience4j_bulkhead_active_thread_count',
  'resilience4j_bulkhead_available_thread_count',
  'resilience4j_ratelimiter_available_permissions',
  'resilience4j_ratelimiter_waiting_threads',
];

describe("prefix 'resilience4j': Resilience4j's names and labels", () => {
  it('every series the Resilience4j dashboard queries, and every other series of its Micrometer binders, with their labels', async () => {
    const { metrics, scrape } = exporter({ prefix: 'resilience4j' });
    const { breakers, pools } = everyRegistryWithOne((r) => metrics.add(r), 'backendA');
    breakers.get('backendA').transitionToOpenState();
    const lines = await scrape();
    expect(seriesNames(lines)).toEqual([...DASHBOARD, ...RESILIENCE4J_MICROMETER, 'resilience4j_circuitbreaker_transitions_total'].sort());
    // The dashboard's label matchers: state values in lower case, kind values as Resilience4j's.
    expect(lines).toContain('resilience4j_circuitbreaker_state{name="backendA",state="open"} 1');
    expect(lines).toContain('resilience4j_circuitbreaker_state{name="backendA",state="forced_open"} 0');
    expect(lines).toContain('resilience4j_circuitbreaker_state{name="backendA",state="half_open"} 0');
    expect(lines).toContain('resilience4j_circuitbreaker_not_permitted_calls_total{name="backendA",kind="not_permitted"} 0');
    expect(lines).toContain('resilience4j_circuitbreaker_calls_seconds_count{name="backendA",kind="ignored"} 0');
    expect(lines).toContain('resilience4j_retry_calls_total{name="backendA",kind="successful_without_retry"} 0');
    expect(lines).toContain('resilience4j_circuitbreaker_transitions_total{name="backendA",from="closed",to="open",cause="manual"} 1');
    await pools.get('backendA').close();
  });

  it("the real components' types are what add() takes: each kind, the worker pool and every registry", () => {
    const { metrics } = exporter();
    for (const c of oneOfEachKindAndRegistry()) metrics.add(c)();
    // A PoolBulkhead type-checks too (not built here: it would need closing).
    const typed: (p: PoolBulkhead) => () => void = (p) => metrics.add(p);
    expect(typeof typed).toBe('function');
  });
});
