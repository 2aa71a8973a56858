import { AdaptiveLimiter } from '@breakwater/adaptive';
import { adaptiveLimiterTwoRunningOneWaiting, everyAdaptiveRegistryWithOne, throttleRejectingOneOfFour } from '@breakwater/exporter-scenarios';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { expectNoLeakedTimers, exporter, newClock } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

const LIMITER = ['breakwater.adaptive.limit', 'breakwater.adaptive.in_flight', 'breakwater.adaptive.waiting', 'breakwater.adaptive.rejected_calls'];

describe('adaptive limiter and throttle instruments (contract: docs/observability.md)', () => {
  it('adaptive limiter: limit, in flight, waiting, refusals, and the round trips it sampled in a histogram in seconds', async () => {
    const { metrics, collect } = exporter({ buckets: [0.01, 0.025, 0.1] });
    const { finish } = await adaptiveLimiterTwoRunningOneWaiting((c) => metrics.add(c));
    expect(await collect(...LIMITER, 'breakwater.adaptive.rtt')).toEqual([
      'breakwater.adaptive.in_flight{name="pg"} 2',
      'breakwater.adaptive.limit{name="pg"} 2',
      'breakwater.adaptive.rejected_calls{name="pg"} 1',
      'breakwater.adaptive.waiting{name="pg"} 1',
    ]);
    await finish();
    // A (20 ms, a sample) and C (50 ms, a drop); B, an error that is no drop, fed no sample.
    expect(await collect(...LIMITER, 'breakwater.adaptive.rtt')).toEqual([
      'breakwater.adaptive.in_flight{name="pg"} 0',
      'breakwater.adaptive.limit{name="pg"} 1',
      'breakwater.adaptive.rejected_calls{name="pg"} 1',
      'breakwater.adaptive.rtt{name="pg"} count=2 sum=0.07 buckets=0,1,1,0',
      'breakwater.adaptive.waiting{name="pg"} 0',
    ]);
  });

  it('throttle: reject ratio, and the requests and accepts of its window, which fall as it slides', async () => {
    const { metrics, collect } = exporter();
    const { windowSlides } = await throttleRejectingOneOfFour((c) => metrics.add(c));
    expect(await collect()).toEqual([
      'breakwater.throttle.accepts{name="search"} 1',
      'breakwater.throttle.reject_ratio{name="search"} 0.4',
      'breakwater.throttle.requests{name="search"} 4',
    ]);
    await windowSlides();
    expect(await collect()).toEqual([
      'breakwater.throttle.accepts{name="search"} 0',
      'breakwater.throttle.reject_ratio{name="search"} 0',
      'breakwater.throttle.requests{name="search"} 0',
    ]);
  });

  it('registries of both kinds; a limiter bound once (through observeCalls, no event listener), its histogram made once, let go with the last add', async () => {
    const { meter, metrics, collect } = exporter();
    everyAdaptiveRegistryWithOne((r) => metrics.add(r), 'backendA');
    expect(await collect(...LIMITER, 'breakwater.throttle.reject_ratio')).toEqual([
      'breakwater.adaptive.in_flight{name="backendA"} 0',
      'breakwater.adaptive.limit{name="backendA"} 20',
      'breakwater.adaptive.rejected_calls{name="backendA"} 0',
      'breakwater.adaptive.waiting{name="backendA"} 0',
      'breakwater.throttle.reject_ratio{name="backendA"} 0',
    ]);
    const limiter = new AdaptiveLimiter('pg', { clock: newClock() });
    const on = vi.spyOn(limiter, 'on');
    const observeCalls = vi.spyOn(limiter, 'observeCalls');
    const first = metrics.add(limiter);
    const second = metrics.add(limiter);
    expect([observeCalls.mock.calls.length, on.mock.calls.length]).toEqual([1, 0]); // the per-call hook: no event object per call
    const histogram = vi.spyOn(meter, 'createHistogram');
    await limiter.execute(async () => 'ok');
    await limiter.execute(async () => 'ok');
    expect(histogram).not.toHaveBeenCalled();
    expect(await collect('breakwater.adaptive.rtt')).toEqual(['breakwater.adaptive.rtt{name="pg"} count=2 sum=0 buckets=2,0,0,0,0,0,0,0,0,0,0,0']);
    first();
    await limiter.execute(async () => 'ok');
    expect(await collect('breakwater.adaptive.rtt')).toEqual(['breakwater.adaptive.rtt{name="pg"} count=3 sum=0 buckets=3,0,0,0,0,0,0,0,0,0,0,0']);
    second();
    await limiter.execute(async () => 'not recorded');
    expect(await collect('breakwater.adaptive.rtt')).toEqual(['breakwater.adaptive.rtt{name="pg"} count=3 sum=0 buckets=3,0,0,0,0,0,0,0,0,0,0,0']);
  });
});
