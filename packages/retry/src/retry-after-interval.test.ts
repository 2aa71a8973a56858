import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { IntervalFunction, Retry, retryAfterInterval } from './index.js';

// (contract: docs/retry.md) retryAfterInterval: a server's Retry-After carried by the error, capped.
class Throttled extends Error {
  constructor(readonly retryAfterMs: number | undefined) {
    super('throttled');
  }
}

describe('retryAfterInterval', () => {
  it("waits the error's retryAfterMs, at most maxWait; otherwise the fallback", () => {
    const f = retryAfterInterval('10s', IntervalFunction.ofExponentialBackoff(100, 2));
    expect(f(1, { error: new Throttled(2000) })).toBe(2000);
    expect(f(1, { error: new Throttled(0) })).toBe(0);
    expect(f(2, { error: new Throttled(60_000) })).toBe(10_000);
    expect(f(3, { error: new Throttled(undefined) })).toBe(400);
    expect(f(1, { error: new Error('plain') })).toBe(100);
    expect(f(2, { result: { retryAfterMs: 5 } })).toBe(200);
    for (const odd of [Number.NaN, -1, Infinity, '2000', null]) expect(f(1, { error: { retryAfterMs: odd } })).toBe(100);
    expect(retryAfterInterval(1000)(1, { error: 'a string' })).toBe(500);
    expect(retryAfterInterval(1000, '250ms')(1, { error: new Throttled(undefined) })).toBe(250);
  });

  it('refuses bad arguments at once, naming them', () => {
    expect(() => retryAfterInterval(-1)).toThrow(/retryAfterInterval: maxWait must be a finite number of ms >= 0, got -1/);
    expect(() => retryAfterInterval(Infinity)).toThrow(RangeError);
    expect(() => retryAfterInterval('soon' as never)).toThrow(/maxWait must be a duration.*got 'soon'/);
    expect(() => retryAfterInterval(1000, -5)).toThrow(/otherwise must be a finite number of ms >= 0, got -5/);
    expect(() => retryAfterInterval(1000, {} as never)).toThrow(/otherwise must be an interval function or a duration/);
  });

  it("is a Retry's intervalBiFunction: the next attempt starts after the server's wait, on the clock", async () => {
    const clock = new VirtualClock();
    const retry = new Retry('api', { maxAttempts: 3, intervalBiFunction: retryAfterInterval('5s', 100), clock });
    const waits: number[] = [];
    retry.on('retry', (e) => waits.push(e.waitMs));
    const started: number[] = [];
    const call = retry.execute((ctx) => {
      started.push(clock.now());
      if (ctx.attempt === 1) throw new Throttled(2000);
      if (ctx.attempt === 2) throw new Throttled(60_000);
      return 'ok';
    });
    await clock.advance(10_000);
    await expect(call).resolves.toBe('ok');
    expect(waits).toEqual([2000, 5000]);
    expect(started).toEqual([0, 2000, 7000]);
    expect(clock.pendingTimers).toBe(0);
  });
});
