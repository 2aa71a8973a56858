import { CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import {
  breakerOnClock,
  breakerOpenedByFailureRate,
  breakerOpenThenLateCalls,
  breakerRegistryOfTwo,
  breakerThreeCalls,
  hundredCalls,
  smallBreakerConfig as small,
  spiedBreaker,
} from '@breakwater/exporter-scenarios';
import { readFileSync } from 'node:fs';
import { Registry, type OpenMetricsContentType } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { PrometheusMetrics } from './index.js';
import { expectNoLeakedTimers, exporter, newClock } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

describe('circuit breaker series (contract: docs/observability.md)', () => {
  it('a scripted run scrapes exactly: state, window counts, rates, not-permitted, the call histogram and its max', async () => {
    const { registry, metrics, scrape } = exporter({ buckets: [0.025, 0.1, 0.5] });
    await breakerThreeCalls((b) => metrics.add(b));

    expect(await scrape()).toEqual([
      'breakwater_circuitbreaker_state{name="pg",state="closed"} 1',
      'breakwater_circuitbreaker_state{name="pg",state="open"} 0',
      'breakwater_circuitbreaker_state{name="pg",state="half_open"} 0',
      'breakwater_circuitbreaker_state{name="pg",state="disabled"} 0',
      'breakwater_circuitbreaker_state{name="pg",state="forced_open"} 0',
      'breakwater_circuitbreaker_state{name="pg",state="metrics_only"} 0',
      'breakwater_circuitbreaker_not_permitted_calls_total{name="pg",kind="not_permitted"} 0',
      'breakwater_circuitbreaker_buffered_calls{name="pg",kind="successful"} 2',
      'breakwater_circuitbreaker_buffered_calls{name="pg",kind="failed"} 1',
      'breakwater_circuitbreaker_slow_calls{name="pg",kind="successful"} 0',
      'breakwater_circuitbreaker_slow_calls{name="pg",kind="failed"} 1',
      'breakwater_circuitbreaker_failure_rate{name="pg"} -1',
      'breakwater_circuitbreaker_slow_call_rate{name="pg"} -1',
      'breakwater_circuitbreaker_calls_seconds_max{name="pg",kind="successful"} 0.05',
      'breakwater_circuitbreaker_calls_seconds_max{name="pg",kind="failed"} 0.2',
      'breakwater_circuitbreaker_calls_seconds_max{name="pg",kind="ignored"} 0',
      'breakwater_circuitbreaker_calls_seconds_bucket{name="pg",kind="successful",le="0.025"} 1',
      'breakwater_circuitbreaker_calls_seconds_bucket{name="pg",kind="successful",le="0.1"} 2',
      'breakwater_circuitbreaker_calls_seconds_bucket{name="pg",kind="successful",le="0.5"} 2',
      'breakwater_circuitbreaker_calls_seconds_bucket{name="pg",kind="successful",le="+Inf"} 2',
      'breakwater_circuitbreaker_calls_seconds_sum{name="pg",kind="successful"} 0.07',
      'breakwater_circuitbreaker_calls_seconds_count{name="pg",kind="successful"} 2',
      'breakwater_circuitbreaker_calls_seconds_bucket{name="pg",kind="failed",le="0.025"} 0',
      'breakwater_circuitbreaker_calls_seconds_bucket{name="pg",kind="failed",le="0.1"} 0',
      'breakwater_circuitbreaker_calls_seconds_bucket{name="pg",kind="failed",le="0.5"} 1',
      'breakwater_circuitbreaker_calls_seconds_bucket{name="pg",kind="failed",le="+Inf"} 1',
      'breakwater_circuitbreaker_calls_seconds_sum{name="pg",kind="failed"} 0.2',
      'breakwater_circuitbreaker_calls_seconds_count{name="pg",kind="failed"} 1',
      'breakwater_circuitbreaker_calls_seconds_bucket{name="pg",kind="ignored",le="0.025"} 0',
      'breakwater_circuitbreaker_calls_seconds_bucket{name="pg",kind="ignored",le="0.1"} 0',
      'breakwater_circuitbreaker_calls_seconds_bucket{name="pg",kind="ignored",le="0.5"} 0',
      'breakwater_circuitbreaker_calls_seconds_bucket{name="pg",kind="ignored",le="+Inf"} 0',
      'breakwater_circuitbreaker_calls_seconds_sum{name="pg",kind="ignored"} 0',
      'breakwater_circuitbreaker_calls_seconds_count{name="pg",kind="ignored"} 0',
    ]);
    // HELP and TYPE as Prometheus reads them.
    const text = await registry.metrics();
    expect(text).toContain('# TYPE breakwater_circuitbreaker_calls_seconds histogram');
    expect(text).toContain('# TYPE breakwater_circuitbreaker_not_permitted_calls_total counter');
    expect(text).toContain('# TYPE breakwater_circuitbreaker_state gauge');
    // The max is of the calls since the previous scrape.
    expect(await scrape('breakwater_circuitbreaker_calls_seconds_max')).toEqual([
      'breakwater_circuitbreaker_calls_seconds_max{name="pg",kind="successful"} 0',
      'breakwater_circuitbreaker_calls_seconds_max{name="pg",kind="failed"} 0',
      'breakwater_circuitbreaker_calls_seconds_max{name="pg",kind="ignored"} 0',
    ]);
  });

  it('OPEN with its rates, refused calls counted, and every transition counted with its cause', async () => {
    const { metrics, scrape } = exporter();
    const { throughEveryCause, forcedOpenByFleet } = await breakerOpenedByFailureRate((b) => metrics.add(b));
    expect(
      await scrape('breakwater_circuitbreaker_state', 'breakwater_circuitbreaker_failure_rate', 'breakwater_circuitbreaker_not_permitted_calls_total'),
    ).toEqual([
      'breakwater_circuitbreaker_state{name="pg",state="closed"} 0',
      'breakwater_circuitbreaker_state{name="pg",state="open"} 1',
      'breakwater_circuitbreaker_state{name="pg",state="half_open"} 0',
      'breakwater_circuitbreaker_state{name="pg",state="disabled"} 0',
      'breakwater_circuitbreaker_state{name="pg",state="forced_open"} 0',
      'breakwater_circuitbreaker_state{name="pg",state="metrics_only"} 0',
      'breakwater_circuitbreaker_not_permitted_calls_total{name="pg",kind="not_permitted"} 1',
      'breakwater_circuitbreaker_failure_rate{name="pg"} 75',
    ]);

    await throughEveryCause();
    expect(await scrape('breakwater_circuitbreaker_transitions_total')).toEqual([
      'breakwater_circuitbreaker_transitions_total{name="pg",from="closed",to="open",cause="failure_rate"} 1',
      'breakwater_circuitbreaker_transitions_total{name="pg",from="open",to="half_open",cause="wait_elapsed"} 1',
      'breakwater_circuitbreaker_transitions_total{name="pg",from="half_open",to="closed",cause="half_open_trial"} 1',
      'breakwater_circuitbreaker_transitions_total{name="pg",from="closed",to="open",cause="slow_call_rate"} 1',
      'breakwater_circuitbreaker_transitions_total{name="pg",from="open",to="forced_open",cause="manual"} 1',
      'breakwater_circuitbreaker_transitions_total{name="pg",from="forced_open",to="closed",cause="manual"} 1',
    ]);
    forcedOpenByFleet(); // what RedisBreakerSync does
    expect(await scrape('breakwater_circuitbreaker_transitions_total')).toContain(
      'breakwater_circuitbreaker_transitions_total{name="pg",from="closed",to="forced_open",cause="fleet"} 1',
    );
  });

  it('a registry is bound as a whole: later instances appear, evicted and removed ones disappear and are no longer observed', async () => {
    const { metrics, scrape } = exporter();
    const { breakers, a, stop, replaceD } = breakerRegistryOfTwo((r) => metrics.add(r));
    const names = async () => (await scrape('breakwater_circuitbreaker_failure_rate')).map((l) => /name="(\w+)"/.exec(l)![1]);
    expect(await names()).toEqual(['a', 'b']);

    a.onError(10, new Error('boom'));
    breakers.get('c'); // evicts a, the least recently used
    expect(await names()).toEqual(['b', 'c']);
    expect(await scrape('breakwater_circuitbreaker_calls_seconds_count')).not.toContainEqual(expect.stringContaining('name="a"'));

    breakers.remove('b');
    expect(await names()).toEqual(['c']);

    replaceD();
    expect(await scrape('breakwater_circuitbreaker_calls_seconds_count')).toEqual([
      'breakwater_circuitbreaker_calls_seconds_count{name="c",kind="successful"} 0',
      'breakwater_circuitbreaker_calls_seconds_count{name="c",kind="failed"} 0',
      'breakwater_circuitbreaker_calls_seconds_count{name="c",kind="ignored"} 0',
      'breakwater_circuitbreaker_calls_seconds_count{name="d",kind="successful"} 1',
      'breakwater_circuitbreaker_calls_seconds_count{name="d",kind="failed"} 0',
      'breakwater_circuitbreaker_calls_seconds_count{name="d",kind="ignored"} 0',
    ]);

    stop();
    stop(); // a second call does nothing more
    expect(await scrape()).toEqual([]);
  });

  it('an instance expired by expireAfterAccess disappears on the next scrape, and is no longer observed', async () => {
    const { metrics, scrape } = exporter();
    const clock = newClock();
    const breakers = new CircuitBreakerRegistry({ defaultConfig: { ...small, clock }, expireAfterAccess: 1000, clock });
    metrics.add(breakers);
    const old = breakers.get('tenant-1');
    await clock.advance(600);
    breakers.get('tenant-2');
    await clock.advance(600);
    expect(await scrape('breakwater_circuitbreaker_failure_rate')).toEqual(['breakwater_circuitbreaker_failure_rate{name="tenant-2"} -1']);
    old.onSuccess(10);
    expect((await scrape('breakwater_circuitbreaker_calls_seconds_count')).filter((l) => l.includes('tenant-1'))).toEqual([]);
  });

  it('scrapes as OpenMetrics too (prom-client names the counters)', async () => {
    const registry = new Registry<OpenMetricsContentType>();
    registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    const metrics = new PrometheusMetrics({ registry });
    const { breaker } = breakerOnClock();
    metrics.add(breaker);
    breaker.transitionToOpenState();
    const text = await registry.metrics();
    expect(text).toContain('# TYPE breakwater_circuitbreaker_transitions counter');
    expect(text).toContain('breakwater_circuitbreaker_transitions_total{name="pg",from="closed",to="open",cause="manual"} 1');
    expect(text).toContain('breakwater_circuitbreaker_calls_seconds_count{name="pg",kind="successful"} 0');
    expect(text.endsWith('# EOF\n')).toBe(true);
  });

  it('costs nothing per call but the histogram: metrics read once per scrape, one observer, no event listener but stateTransition; all gone after remove', async () => {
    const { metrics, scrape } = exporter();
    const { breaker, readMetrics, on, stops } = spiedBreaker();

    const remove = metrics.add(breaker);
    expect(on.mock.calls.map((c) => c[0])).toEqual(['stateTransition']);
    expect(stops).toHaveLength(1);
    await hundredCalls(breaker);
    expect(readMetrics).not.toHaveBeenCalled();
    await scrape();
    expect(readMetrics).toHaveBeenCalledTimes(1);

    // Added twice (directly and through a registry, say): one binding, released with the last.
    const again = metrics.add(breaker);
    expect(stops).toHaveLength(1);
    remove();
    expect(stops[0]).not.toHaveBeenCalled();
    again();
    expect(stops[0]).toHaveBeenCalledTimes(1);
    expect(await scrape()).toEqual([]);
  });
});

describe('README: the rates of an OPEN breaker are not the rates that opened it', () => {
  it('says so, and it holds: late calls recorded while OPEN move the gauge to 25 %; 75 % is on the event, failure_rate on the transition', async () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(readme).toContain('**The rates of an OPEN breaker are not the rates that opened it.**');
    expect(readme).toContain('while the breaker is OPEN these gauges keep changing and can fall below the threshold');
    expect(readme).toContain("The rate at the moment of opening is on the breaker's `failureRateExceeded` / `slowCallRateExceeded` event");
    expect(readme).not.toMatch(/stay visible/);

    const { metrics, scrape } = exporter();
    const { exceeded, causes, lateCallsSucceed } = await breakerOpenThenLateCalls((b) => metrics.add(b));
    const series = ['breakwater_circuitbreaker_failure_rate', 'breakwater_circuitbreaker_transitions_total'];
    const open = 'breakwater_circuitbreaker_state{name="pg",state="open"} 1';
    expect(await scrape(...series, 'breakwater_circuitbreaker_state')).toEqual(
      expect.arrayContaining([open, 'breakwater_circuitbreaker_failure_rate{name="pg"} 75']),
    );
    await lateCallsSucceed();
    expect(await scrape('breakwater_circuitbreaker_state')).toContain(open);
    expect(await scrape(...series)).toEqual([
      'breakwater_circuitbreaker_failure_rate{name="pg"} 25',
      'breakwater_circuitbreaker_transitions_total{name="pg",from="closed",to="open",cause="failure_rate"} 1',
    ]);
    expect(exceeded).toEqual([75]);
    expect(causes).toEqual(['CLOSED → OPEN: failure_rate']);
  });
});
