// The adaptive layers (@breakwater/adaptive's real AdaptiveLimiter and AdaptiveThrottle): how they
// print, the limiter's partition view taken once at build time, the limiter's place held until fn
// really settles (as a bulkhead's slot), and what each order of layers lets the limiter sample.
import { AdaptiveLimiter, AdaptiveThrottle } from '@breakwater/adaptive';
import { RequestNotPermittedError, TimeoutError, VirtualClock } from '@breakwater/core';
import { TimeLimiter } from '@breakwater/time-limiter';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decorate } from './index.js';
import { deaf, racer, recorder, watch } from '../test/test-support.js';

let clock = new VirtualClock();
afterEach(() => {
  // A fresh clock for the next test even when this one failed, so one failure does not cascade.
  const pending = clock.pendingTimers;
  clock = new VirtualClock();
  expect(pending).toBe(0);
});

/** An adaptive limiter on the test's clock with a fixed limit, sampling every call (no window). */
function limiter(config: ConstructorParameters<typeof AdaptiveLimiter>[1] = {}): AdaptiveLimiter {
  return new AdaptiveLimiter('pg', { algorithm: { name: 'fixed', limit: 2, onSample: () => 2 }, window: false, clock, ...config });
}

/** What the limiter's `callFinished` events told: `rtt drop|sample|ignored`. */
function finished(l: AdaptiveLimiter): string[] {
  const seen: string[] = [];
  l.on('callFinished', (e) => seen.push(`${e.rtt} ${e.ignored ? 'ignored' : e.didDrop ? 'drop' : 'sample'}`));
  return seen;
}

describe('withAdaptiveLimiter', () => {
  it('prints as AdaptiveLimiter, runs the call in a place under the limit, and samples it', async () => {
    const l = limiter();
    const samples = finished(l);
    const pipeline = decorate().withAdaptiveLimiter(l);
    expect(pipeline.describe()).toBe("AdaptiveLimiter 'pg' → fn");
    expect(pipeline.policies).toEqual([l]);
    const call = watch(pipeline.execute(deaf(clock, 30, 'rows')));
    await clock.advance(0);
    expect([l.inFlight, l.metrics.waiting]).toEqual([1, 0]);
    await clock.advance(30);
    expect(call.outcomes).toEqual([['value', 'rows']]);
    expect(l.inFlight).toBe(0);
    expect(samples).toEqual(['30 sample']);
  });

  it('with a partition: inPartition(partition) called once, at build time; every call runs in it', async () => {
    const l = limiter({ partitions: { critical: 0.5, batch: 0.5 } });
    const inPartition = vi.spyOn(l, 'inPartition');
    const permitted: (string | undefined)[] = [];
    l.on('callPermitted', (e) => permitted.push(e.partition));
    const pipeline = decorate().withAdaptiveLimiter(l, { partition: 'batch' });
    expect(inPartition.mock.calls).toEqual([['batch']]);
    expect(pipeline.describe()).toBe("AdaptiveLimiter 'pg' (partition batch) → fn");
    expect(pipeline.policies).toEqual([l]);
    const calls = [pipeline.execute(deaf(clock, 10, 1)), pipeline.execute(deaf(clock, 10, 2))];
    await clock.advance(0);
    expect(l.metrics.partitions).toEqual({ critical: { guaranteed: 1, inFlight: 0, waiting: 0 }, batch: { guaranteed: 1, inFlight: 2, waiting: 0 } });
    await clock.advance(10);
    await expect(Promise.all(calls)).resolves.toEqual([1, 2]);
    expect(permitted).toEqual(['batch', 'batch']);
    expect(inPartition).toHaveBeenCalledTimes(1);
    expect(decorate().withAdaptiveLimiter(l, {}).describe()).toBe("AdaptiveLimiter 'pg' → fn");
    // A partition view given as the limiter, or through with(), prints its partition the same way.
    const critical = l.inPartition('critical');
    expect(decorate().withAdaptiveLimiter(critical).describe()).toBe("AdaptiveLimiter 'pg' (partition critical) → fn");
    expect(decorate().with(critical).describe()).toBe("AdaptiveLimiter 'pg' (partition critical) → fn");
    expect(decorate().with(critical).policies).toEqual([critical]);
    expect(decorate().withAdaptiveLimiter(l, { partition: undefined }).describe()).toBe("AdaptiveLimiter 'pg' → fn");
  });

  it('refuses, when the pipeline is built, an unknown partition (the limiter’s error), bad options, and a limiter with no inPartition', () => {
    const l = limiter({ partitions: { critical: 0.5, batch: 0.5 } });
    expect(() => decorate().withAdaptiveLimiter(l, { partition: 'bulk' })).toThrow(
      new RangeError("AdaptiveLimiter 'pg': unknown partition 'bulk' (partitions: 'critical', 'batch')"),
    );
    expect(() => decorate().withAdaptiveLimiter(l, { partiton: 'batch' } as never)).toThrow(
      new TypeError("withAdaptiveLimiter: unknown option 'partiton' (known options: partition)"),
    );
    expect(() => decorate().withAdaptiveLimiter(l, 'batch' as never)).toThrow(new TypeError("withAdaptiveLimiter: options must be an object, got 'batch'"));
    expect(() => decorate().withAdaptiveLimiter(l, { partition: 7 } as never)).toThrow(
      new TypeError('withAdaptiveLimiter: partition must be a non-empty string, got 7'),
    );
    expect(() => decorate().withAdaptiveLimiter(l, { partition: '' })).toThrow(
      new TypeError("withAdaptiveLimiter: partition must be a non-empty string, got ''"),
    );
    const handMade = recorder('adaptiveLimiter', 'mine', []);
    expect(decorate().withAdaptiveLimiter(handMade).describe()).toBe("AdaptiveLimiter 'mine' → fn");
    expect(() => decorate().withAdaptiveLimiter(handMade, { partition: 'batch' })).toThrow(
      new TypeError("withAdaptiveLimiter: AdaptiveLimiter 'mine' has no inPartition(partition) method, so its calls cannot run in partition 'batch'"),
    );
    const broken = { ...handMade, inPartition: () => null as never };
    expect(() => decorate().withAdaptiveLimiter(broken, { partition: 'batch' })).toThrow(
      new TypeError("withAdaptiveLimiter: AdaptiveLimiter 'mine'.inPartition('batch') must return a policy (with an execute method), got null"),
    );
    expect(() => decorate().withAdaptiveLimiter(new AdaptiveThrottle('api', { clock }) as never)).toThrow(
      new TypeError("withAdaptiveLimiter: expected a policy of kind 'adaptiveLimiter', got kind 'throttle' (AdaptiveThrottle 'api')"),
    );
  });

  it("a refusal is the limiter's RequestNotPermittedError, and nothing inside the layer runs", async () => {
    const log: string[] = [];
    const l = limiter();
    const pipeline = decorate()
      .withAdaptiveLimiter(l)
      .with(recorder('custom', 'inner', log));
    const running = [pipeline.execute(deaf(clock, 10, 1)), pipeline.execute(deaf(clock, 10, 2))];
    await clock.advance(0);
    await expect(pipeline.execute(() => 3)).rejects.toBeInstanceOf(RequestNotPermittedError);
    expect(log).toEqual(['>inner', '>inner']);
    await clock.advance(10);
    await Promise.all(running);
  });
});

describe('the adaptive limiter keeps its place until fn really settles (as a bulkhead its slot)', () => {
  it("after the caller's abort, while the layers inside it end at once: the place is freed when fn ends, and the call feeds no sample", async () => {
    const l = limiter();
    const samples = finished(l);
    const caller = new AbortController();
    const pipeline = decorate().withAdaptiveLimiter(l).with(racer('custom', 'inner'));
    const call = watch(pipeline.execute(deaf(clock, 200, 'late'), { signal: caller.signal }));
    await clock.advance(10);
    const reason = new Error('user left');
    caller.abort(reason);
    await clock.advance(0);
    expect(call.outcomes).toEqual([['error', reason]]);
    expect(l.inFlight).toBe(1);
    await clock.advance(189);
    expect(l.inFlight).toBe(1);
    await clock.advance(1);
    expect(l.inFlight).toBe(0);
    expect(samples).toEqual(['200 ignored']);
  });

  it('a time limiter inside the limiter: the time-out is a drop, and the place is freed with it', async () => {
    const l = limiter();
    const samples = finished(l);
    const pipeline = decorate()
      .withAdaptiveLimiter(l)
      .withTimeLimiter(new TimeLimiter('pg', { timeoutDuration: 50, clock }));
    expect(pipeline.warnings).toEqual([]);
    const call = watch(pipeline.execute(deaf(clock, 200, 'late')));
    await clock.advance(50);
    expect(call.outcomes).toEqual([['error', new TimeoutError('pg', 50)]]);
    expect(l.inFlight).toBe(0);
    expect(samples).toEqual(['50 drop']);
    await clock.advance(150);
  });

  it('a time limiter outside the limiter (TIME_LIMITER_OUTSIDE_ADAPTIVE_LIMITER): the place is held until fn ends, and no drop is seen', async () => {
    const l = limiter();
    const samples = finished(l);
    const pipeline = decorate()
      .withTimeLimiter(new TimeLimiter('pg', { timeoutDuration: 50, clock }))
      .withAdaptiveLimiter(l)
      .with(racer('custom', 'inner'));
    expect(pipeline.warnings.map((w) => w.code)).toEqual(['TIME_LIMITER_OUTSIDE_ADAPTIVE_LIMITER']);
    const call = watch(pipeline.execute(deaf(clock, 200, 'late')));
    await clock.advance(50);
    expect(call.outcomes).toEqual([['error', new TimeoutError('pg', 50)]]);
    expect(l.inFlight).toBe(1);
    await clock.advance(150);
    expect(l.inFlight).toBe(0);
    expect(samples).toEqual(['200 ignored']);
    // With the limiter right around fn, the abandoned call that succeeds late is a slow success.
    const direct = decorate()
      .withTimeLimiter(new TimeLimiter('pg', { timeoutDuration: 50, clock }))
      .withAdaptiveLimiter(l);
    const late = watch(direct.execute(deaf(clock, 200, 'late')));
    await clock.advance(200);
    expect(late.outcomes).toEqual([['error', new TimeoutError('pg', 50)]]);
    expect(samples).toEqual(['200 ignored', '200 sample']);
  });
});

describe('withThrottle', () => {
  it('prints as AdaptiveThrottle; counts each call as a request and its outcome; a local rejection runs nothing inside it', async () => {
    const log: string[] = [];
    let draw = 0.99; // above every ratio: nothing rejected until the draw is 0
    const throttle = new AdaptiveThrottle('api', { random: () => draw, clock });
    const pipeline = decorate()
      .withThrottle(throttle)
      .with(recorder('custom', 'inner', log));
    expect(pipeline.describe()).toBe("AdaptiveThrottle 'api' → custom 'inner' → fn");
    await expect(pipeline.execute(() => 'ok')).resolves.toBe('ok');
    for (let i = 0; i < 3; i++) await expect(pipeline.execute(() => Promise.reject(new Error('503')))).rejects.toThrow('503');
    expect(throttle.metrics).toEqual({ requests: 4, accepts: 1, rejected: 0, rejectRatio: 2 / 5 });
    draw = 0;
    await expect(pipeline.execute(() => 'not asked')).rejects.toBeInstanceOf(RequestNotPermittedError);
    expect(log).toEqual(['>inner', '<inner', '>inner', '<inner', '>inner', '<inner', '>inner', '<inner']);
    expect(throttle.metrics).toMatchObject({ requests: 5, accepts: 1, rejected: 1 });
    expect(() => decorate().withThrottle(limiter() as never)).toThrow(
      new TypeError("withThrottle: expected a policy of kind 'throttle', got kind 'adaptiveLimiter' (AdaptiveLimiter 'pg')"),
    );
  });

  it("outside an adaptive limiter: the limiter's refusal is not counted in the throttle's window (the backend never saw it)", async () => {
    const throttle = new AdaptiveThrottle('api', { random: () => 0.99, clock }); // above the cap of 0.9: it never refuses
    const l = limiter();
    const pipeline = decorate().withThrottle(throttle).withAdaptiveLimiter(l);
    expect(pipeline.warnings).toEqual([]);
    const running = [pipeline.execute(deaf(clock, 10, 1)), pipeline.execute(deaf(clock, 10, 2))];
    await clock.advance(0);
    await expect(pipeline.execute(() => 3)).rejects.toBeInstanceOf(RequestNotPermittedError);
    expect(throttle.metrics).toMatchObject({ requests: 0, accepts: 0, rejected: 0 }); // the two in flight are counted when answered
    await clock.advance(10);
    await Promise.all(running);
    expect(throttle.metrics).toMatchObject({ requests: 2, accepts: 2, rejectRatio: 0 });
  });
});
