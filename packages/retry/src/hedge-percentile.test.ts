import { type CallContext, VirtualClock } from '@breakwater/core';
import { track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hedgeDelayBucket, hedgeDelayBucketUpper } from './hedge-delay.js';
import { Hedge } from './index.js';
import { manualAttempts } from '../test/hedge-support.js';

// A percentile delay, through the Hedge (contract: docs/hedging.md): what is recorded (the call's
// duration, to its winning success) and the share of calls it hedges.

let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

const upper = (ms: number): number => hedgeDelayBucketUpper(hedgeDelayBucket(ms));

describe('Hedge with delay { percentile }', () => {
  it('waits initial until minSamples successes, then the percentile of the calls’ durations', async () => {
    const hedge = new Hedge('search', { clock, delay: { percentile: 0.5, minSamples: 2, initial: 1000 } });
    const { fn, attempts } = manualAttempts(clock, { rejectOnAbort: true });
    for (const ms of [100, 300]) {
      const call = track(hedge.execute(fn));
      await clock.advance(ms);
      attempts.at(-1)!.resolve(ms);
      await clock.advance(0);
      expect(call.value).toBe(ms);
    }
    expect(hedge.metrics.numberOfHedgedAttempts).toBe(0);
    const call = track(hedge.execute(fn));
    const startedAt = clock.now();
    await clock.advance(107);
    expect(attempts).toHaveLength(3);
    await clock.advance(1);
    expect(attempts).toHaveLength(4);
    expect(attempts[3]!.startedAt - startedAt).toBeCloseTo(upper(100), 9);
    attempts[3]!.resolve('hedge');
    await clock.advance(0);
    expect(call.value).toBe('hedge');
  });

  it('records the call’s duration, from its start to the winning success, not the winning attempt’s', async () => {
    const hedge = new Hedge('search', { clock, delay: { percentile: 0.5, minSamples: 1, initial: 100 } });
    const { fn, attempts } = manualAttempts(clock, { rejectOnAbort: true });
    const first = track(hedge.execute(fn));
    await clock.advance(100); // the hedge starts at 100 and answers 5 ms later
    await clock.advance(5);
    attempts[1]!.resolve('hedge');
    await clock.advance(0);
    expect(first.value).toBe('hedge');
    const second = track(hedge.execute(fn));
    const startedAt = clock.now();
    await clock.advance(200);
    expect(attempts[3]!.startedAt - startedAt).toBeCloseTo(upper(105), 9); // not upper(5)
    attempts[2]!.resolve('primary');
    await clock.advance(0);
    expect(second.value).toBe('primary');
  });

  it('records no failed call: neither an unhandled error nor a call every attempt of which failed', async () => {
    const hedge = new Hedge('search', {
      clock,
      delay: { percentile: 0.5, minSamples: 1, initial: 100 },
      shouldHandle: (o) => 'error' in o && o.error !== 'fatal',
    });
    const { fn, attempts } = manualAttempts(clock, { rejectOnAbort: true });
    const fatal = track(hedge.execute(fn));
    await clock.advance(10);
    attempts[0]!.reject('fatal');
    await clock.advance(0);
    expect(fatal.error).toBe('fatal');
    const failed = track(hedge.execute(fn));
    await clock.advance(10);
    attempts[1]!.reject('down');
    await clock.advance(10);
    attempts[2]!.reject('down again');
    await clock.advance(0);
    expect(failed.error).toBe('down');
    const third = track(hedge.execute(fn));
    await clock.advance(99);
    expect(attempts).toHaveLength(4); // still the initial 100 ms
    await clock.advance(1);
    expect(attempts).toHaveLength(5);
    attempts[3]!.resolve('ok');
    await clock.advance(0);
    expect(third.value).toBe('ok');
  });

  it('hedges about 1 - p of the calls once warm (p = 0.9, exponential latencies)', async () => {
    const hedge = new Hedge('search', { clock, delay: { percentile: 0.9, window: '10m' } });
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return (seed + 0.5) / 2 ** 31;
    };
    const fn = (ctx: CallContext): Promise<number> =>
      new Promise((resolve, reject) => {
        const latency = Math.round(-Math.log(random()) * 50);
        const timer = clock.setTimeout(() => resolve(latency), latency);
        ctx.signal.addEventListener('abort', () => {
          clock.clearTimeout(timer);
          reject(ctx.signal.reason);
        });
      });
    const calls = 2000;
    for (let i = 0; i < calls; i++) {
      const call = track(hedge.execute(fn));
      while (!call.settled) await clock.advance(clock.nextTimerAt === undefined ? 0 : clock.nextTimerAt - clock.now());
    }
    const m = hedge.metrics;
    expect(m.numberOfSuccessfulCalls).toBe(calls);
    // The first 20 calls wait the initial 2 s (none hedged); then the p90 of the calls' durations (0.083 with this seed).
    const share = m.numberOfHedgedAttempts / (calls - 20);
    expect(share).toBeGreaterThan(0.05);
    expect(share).toBeLessThanOrEqual(0.1);
  });
});
