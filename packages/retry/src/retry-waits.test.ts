import { VirtualClock } from '@breakwater/core';
import { track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IntervalFunction, Retry, type RetryConfig } from './index.js';
import { randoms, scripted } from '../test/test-support.js';

let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

function retry(config: RetryConfig = {}): Retry {
  return new Retry('pg', { clock, ...config });
}

describe('Retry: waits', () => {
  it('waits intervalFunction(attempt) after attempt n', async () => {
    const r = retry({ maxAttempts: 5, intervalFunction: IntervalFunction.ofExponentialBackoff(100, 2) });
    const { fn, starts } = scripted(clock, [{ reject: 'e' }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call.error).toBe('e');
    // waits 100, 200, 400, 800
    expect(starts).toEqual([0, 100, 300, 700, 1500]);
  });

  it('hands intervalBiFunction the outcome of the failed attempt', async () => {
    const seen: unknown[] = [];
    const r = retry({
      maxAttempts: 3,
      retryOnResult: (v) => v === 'busy',
      intervalBiFunction: (attempt, outcome) => {
        seen.push([attempt, outcome]);
        return 'error' in outcome ? 1000 : 10;
      },
    });
    const boom = new Error('boom');
    const { fn, starts } = scripted(clock, [{ reject: boom }, { value: 'busy' }, { value: 'ok' }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call.value).toBe('ok');
    expect(seen).toEqual([
      [1, { error: boom }],
      [2, { result: 'busy' }],
    ]);
    expect(starts).toEqual([0, 1000, 1010]);
  });

  it("hands interval functions the Retry's random and the previous wait", async () => {
    const states: [number, number][] = [];
    const r = retry({
      maxAttempts: 4,
      random: randoms(0.25),
      intervalFunction: (attempt, state) => {
        states.push([state!.random(), state!.previousWaitMs]);
        return attempt * 10;
      },
    });
    const { fn } = scripted(clock, [{ reject: 'e' }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call.error).toBe('e');
    expect(states).toEqual([
      [0.25, 0],
      [0.25, 10],
      [0.25, 20],
    ]);
  });

  it('runs decorrelated jitter on the call’s own previous waits', async () => {
    const r = retry({ maxAttempts: 4, random: randoms(1 - Number.EPSILON), intervalFunction: IntervalFunction.ofDecorrelatedJitter(100, 10_000) });
    const { fn, starts } = scripted(clock, [{ reject: 'e' }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call.error).toBe('e');
    // With random ≈ 1 each wait is just under 3 × the previous one: 299, 896, 2687.
    expect(starts).toEqual([0, 299, 299 + 896, 299 + 896 + 2687]);
  });

  it('waits 0 ms without any timer', async () => {
    const r = retry({ maxAttempts: 3, waitDuration: 0 });
    const { fn, starts } = scripted(clock, [{ reject: 'e' }]);
    const call = r.execute(fn);
    expect(clock.pendingTimers).toBe(0);
    await expect(call).rejects.toBe('e');
    expect(starts).toEqual([0, 0, 0]);
  });

  it('uses no real timer at all, even through p-retry (deterministic on a VirtualClock)', async () => {
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    try {
      const r = retry({ maxAttempts: 4, waitDuration: 50 });
      const { fn } = scripted(clock, [{ reject: new TypeError('t') }, { reject: 'x' }, { reject: new Error('e') }, { value: 'ok' }]);
      const call = track(r.execute(fn));
      await clock.runAll();
      expect(call.value).toBe('ok');
      const zeroWaits = retry({ maxAttempts: 4, waitDuration: 0 });
      await expect(zeroWaits.execute(scripted(clock, [{ reject: 'x' }]).fn)).rejects.toBe('x');
      expect(setTimeoutSpy).not.toHaveBeenCalled();
    } finally {
      setTimeoutSpy.mockRestore();
    }
  });

  // An interval function returning a bad wait falls back to the previous one: retry-hardening.test.ts.
});
