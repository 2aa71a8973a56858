import { AdaptiveLimiter } from '@breakwater/adaptive';
import { adaptiveLimiterTwoRunningOneWaiting, everyAdaptiveRegistryWithOne, throttleRejectingOneOfFour } from '@breakwater/exporter-scenarios';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { expectNoLeakedTimers, exporter, newClock, seriesNames } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

const ADAPTIVE_GAUGES = [
  'breakwater_adaptive_limit',
  'breakwater_adaptive_in_flight',
  'breakwater_adaptive_waiting',
  'breakwater_adaptive_rejected_calls_total',
];
const RTT = ['breakwater_adaptive_rtt_seconds_bucket', 'breakwater_adaptive_rtt_seconds_sum', 'breakwater_adaptive_rtt_seconds_count'];

describe('adaptive limiter and throttle series (contract: docs/observability.md)', () => {
  it('adaptive limiter: limit, in flight, waiting, refusals, and the round trips it sampled in a histogram', async () => {
    const { metrics, scrape } = exporter({ buckets: [0.01, 0.025, 0.1] });
    const { finish } = await adaptiveLimiterTwoRunningOneWaiting((c) => metrics.add(c));
    expect(await scrape(...ADAPTIVE_GAUGES, ...RTT)).toEqual([
      'breakwater_adaptive_limit{name="pg"} 2',
      'breakwater_adaptive_in_flight{name="pg"} 2',
      'breakwater_adaptive_waiting{name="pg"} 1',
      'breakwater_adaptive_rejected_calls_total{name="pg"} 1',
      'breakwater_adaptive_rtt_seconds_bucket{name="pg",le="0.01"} 0',
      'breakwater_adaptive_rtt_seconds_bucket{name="pg",le="0.025"} 0',
      'breakwater_adaptive_rtt_seconds_bucket{name="pg",le="0.1"} 0',
      'breakwater_adaptive_rtt_seconds_bucket{name="pg",le="+Inf"} 0',
      'breakwater_adaptive_rtt_seconds_sum{name="pg"} 0',
      'breakwater_adaptive_rtt_seconds_count{name="pg"} 0',
    ]);
    await finish();
    // A (20 ms, a sample) and C (50 ms, a drop) are in the histogram; B, an error that is no drop, fed no sample.
    expect(await scrape(...ADAPTIVE_GAUGES, ...RTT)).toEqual([
      'breakwater_adaptive_limit{name="pg"} 1',
      'breakwater_adaptive_in_flight{name="pg"} 0',
      'breakwater_adaptive_waiting{name="pg"} 0',
      'breakwater_adaptive_rejected_calls_total{name="pg"} 1',
      'breakwater_adaptive_rtt_seconds_bucket{name="pg",le="0.01"} 0',
      'breakwater_adaptive_rtt_seconds_bucket{name="pg",le="0.025"} 1',
      'breakwater_adaptive_rtt_seconds_bucket{name="pg",le="0.1"} 2',
      'breakwater_adaptive_rtt_seconds_bucket{name="pg",le="+Inf"} 2',
      'breakwater_adaptive_rtt_seconds_sum{name="pg"} 0.07',
      'breakwater_adaptive_rtt_seconds_count{name="pg"} 2',
    ]);
  });

  it('throttle: reject ratio, and the requests and accepts of its window, which fall as it slides', async () => {
    const { metrics, scrape } = exporter();
    const { windowSlides } = await throttleRejectingOneOfFour((c) => metrics.add(c));
    expect(await scrape()).toEqual([
      'breakwater_throttle_reject_ratio{name="search"} 0.4',
      'breakwater_throttle_requests{name="search"} 4',
      'breakwater_throttle_accepts{name="search"} 1',
    ]);
    await windowSlides();
    expect(await scrape()).toEqual([
      'breakwater_throttle_reject_ratio{name="search"} 0',
      'breakwater_throttle_requests{name="search"} 0',
      'breakwater_throttle_accepts{name="search"} 0',
    ]);
  });

  it('registries of both kinds: instances made later are exported; a limiter is bound once, and let go with the last add', async () => {
    const { metrics, scrape } = exporter();
    everyAdaptiveRegistryWithOne((r) => metrics.add(r), 'backendA');
    expect(seriesNames(await scrape())).toEqual(
      [...ADAPTIVE_GAUGES, ...RTT, 'breakwater_throttle_reject_ratio', 'breakwater_throttle_requests', 'breakwater_throttle_accepts'].sort(),
    );
    const limiter = new AdaptiveLimiter('pg', { clock: newClock() });
    const on = vi.spyOn(limiter, 'on');
    const observeCalls = vi.spyOn(limiter, 'observeCalls');
    const first = metrics.add(limiter);
    const second = metrics.add(limiter);
    expect([observeCalls.mock.calls.length, on.mock.calls.length]).toEqual([1, 0]); // the per-call hook: no event object per call
    await limiter.execute(async () => 'ok');
    expect(await scrape('breakwater_adaptive_rtt_seconds_count')).toEqual([
      'breakwater_adaptive_rtt_seconds_count{name="pg"} 1',
      'breakwater_adaptive_rtt_seconds_count{name="backendA"} 0',
    ]);
    first();
    second();
    expect(await scrape('breakwater_adaptive_limit')).toEqual(['breakwater_adaptive_limit{name="backendA"} 20']);
  });
});
