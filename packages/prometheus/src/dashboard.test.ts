import { readFileSync } from 'node:fs';
import { AdaptiveLimiterRegistry, AdaptiveThrottleRegistry } from '@breakwater/adaptive';
import { BulkheadRegistry, PoolBulkheadRegistry } from '@breakwater/bulkhead';
import { latencyInjection } from '@breakwater/chaos';
import { CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import { RateLimiterRegistry } from '@breakwater/rate-limiter';
import { HedgeRegistry, RetryRegistry } from '@breakwater/retry';
import { TimeLimiterRegistry } from '@breakwater/time-limiter';
import { afterEach, describe, expect, it } from 'vitest';
import { expectNoLeakedTimers, exporter, newClock, seriesNames } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

// The Grafana dashboard the package ships (grafana-dashboard.json): every series its queries
// read is one the exporter publishes, and every series the exporter publishes is on a panel.
const dashboard = JSON.parse(readFileSync(new URL('../grafana-dashboard.json', import.meta.url), 'utf8')) as {
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
};
const queried = [...new Set(dashboard.panels.flatMap((p) => p.targets ?? []).flatMap((t) => t.expr.match(/breakwater_\w+/g) ?? []))].sort();

describe('grafana-dashboard.json', () => {
  it('queries only series the exporter publishes, and shows each of them (thread-pool sizes aside)', async () => {
    const { metrics, scrape } = exporter();
    const clock = newClock();
    const breakers = new CircuitBreakerRegistry({ defaultConfig: { clock } });
    const pools = new PoolBulkheadRegistry({ defaultConfig: { clock } });
    for (const r of [
      breakers,
      new RetryRegistry({ defaultConfig: { clock } }),
      new TimeLimiterRegistry({ defaultConfig: { clock } }),
      new BulkheadRegistry({ defaultConfig: { clock } }),
      pools,
      new RateLimiterRegistry({ defaultConfig: { clock } }),
      new AdaptiveLimiterRegistry({ defaultConfig: { clock } }),
      new AdaptiveThrottleRegistry({ defaultConfig: { clock } }),
      new HedgeRegistry({ defaultConfig: { clock } }),
    ]) {
      metrics.add(r);
      r.get('backend');
    }
    metrics.add(latencyInjection({ name: 'backend', latency: 100, clock })); // chaos has no registry
    breakers.get('backend').transitionToOpenState();
    const published = seriesNames(await scrape());
    expect(queried.filter((name) => !published.includes(name))).toEqual([]);
    const shownElsewhere = [
      'breakwater_circuitbreaker_calls_seconds_sum',
      'breakwater_adaptive_rtt_seconds_sum',
      'breakwater_adaptive_rtt_seconds_count',
      'breakwater_bulkhead_thread_pool_size',
      'breakwater_bulkhead_core_thread_pool_size',
      'breakwater_bulkhead_available_thread_count',
    ];
    expect(published.filter((name) => !queried.includes(name) && !shownElsewhere.includes(name))).toEqual([]);
    await pools.get('backend').close();
  });

  it('has the panels the issues ask for: state, both rates, causes, calls by kind, retries, bulkheads, limiters; adaptive limit vs in flight, throttle reject ratio; hedge outcomes, extra load and wins, chaos injections', () => {
    expect(dashboard.panels.filter((p) => p.type !== 'row').map((p) => p.title)).toEqual([
      'State',
      'Failure rate (threshold: failureRateThreshold, 50 % by default)',
      'Slow-call rate (threshold: slowCallRateThreshold, 100 % by default)',
      'What opened the breakers',
      'Transitions',
      'Calls by kind',
      'Call duration',
      'Window: buffered and slow calls',
      'Retried calls',
      'Time-limited calls',
      'Bulkheads: available of maximum',
      'Pool bulkheads',
      'Rate limiters',
      'Adaptive limit vs calls in flight',
      'Adaptive round trips and refusals',
      'Throttles: reject ratio',
      'Throttles: requests and accepts in the window',
      'Hedged calls by outcome',
      'Hedges: extra attempts per call, budget refusals',
      'Hedge wins by attempt (1 = the primary)',
      'Chaos: calls injected and not, by strategy',
    ]);
  });
});
