import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { AdaptiveThrottle } from './index.js';

/** A seeded generator of numbers in [0, 1) (a 32-bit LCG): the same draws every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('AdaptiveThrottle in a loop (Google SRE: the client sends about k × what the backend accepts)', () => {
  it('against a backend that accepts 100 requests a second of the 300 offered, answering at once, about 200 a second reach it', async () => {
    const clock = new VirtualClock();
    const throttle = new AdaptiveThrottle('api', { clock, random: seeded(42) });
    const seconds = 360;
    const reached = new Array<number>(seconds).fill(0);
    const accepted = new Array<number>(seconds).fill(0);
    let budget = 0; // the backend accepts one request per 10 ms; beyond, it refuses at once (a 503)
    for (let tick = 0; tick < seconds * 100; tick++) {
      budget = 1;
      const second = Math.floor(tick / 100);
      for (let i = 0; i < 3; i++) {
        await throttle
          .execute(() => {
            reached[second]!++;
            if (budget === 0) throw new Error('503');
            budget--;
            accepted[second]!++;
          })
          .catch(() => {});
      }
      await clock.advance(10);
    }
    const last = (xs: number[]) => xs.slice(seconds - 120).reduce((a, b) => a + b, 0) / 120;
    // Steady state: the client sheds (requests − 2·accepts)/(requests + 1) of what it offers, so
    // what reaches the backend is about k = 2 times what it accepts (the SRE book's rule). Now and
    // then all three requests of a tick are shed, so a few of the backend's 100 a second go unused.
    expect(last(accepted)).toBeGreaterThan(90);
    expect(last(reached) / last(accepted)).toBeGreaterThan(1.97);
    expect(last(reached) / last(accepted)).toBeLessThan(2.05);
    const { requests, accepts, rejected, rejectRatio } = throttle.metrics;
    expect(requests).toBe(34_200); // 300 a second over the 114 s of the 19 full buckets and this one's start
    expect(rejected / requests).toBeCloseTo(rejectRatio, 1);
    expect(rejectRatio).toBeCloseTo((requests - 2 * accepts) / (requests + 1), 12);
    expect(clock.pendingTimers).toBe(0);
  }, 60_000);

  it('the same with every answer 50 ms late (15 calls in flight at any time, counted only when answered): still about 200 a second reach it', async () => {
    const clock = new VirtualClock();
    const throttle = new AdaptiveThrottle('api', { clock, random: seeded(42) });
    const seconds = 360;
    const reached = new Array<number>(seconds).fill(0);
    const accepted = new Array<number>(seconds).fill(0);
    const calls: Promise<unknown>[] = [];
    let budget = 0; // one request per 10 ms is accepted as it arrives; the answer (success or 503) comes 50 ms later
    for (let tick = 0; tick < seconds * 100; tick++) {
      budget = 1;
      const second = Math.floor(tick / 100);
      for (let i = 0; i < 3; i++) {
        const call = throttle.execute(() => {
          reached[second]!++;
          const ok = budget > 0;
          if (ok) {
            budget--;
            accepted[second]!++;
          }
          return new Promise<void>((resolve, reject) => clock.setTimeout(() => (ok ? resolve() : reject(new Error('503'))), 50));
        });
        calls.push(call.catch(() => {}));
      }
      await clock.advance(10);
    }
    await clock.advance(50);
    await Promise.all(calls);
    const last = (xs: number[]) => xs.slice(seconds - 120).reduce((a, b) => a + b, 0) / 120;
    expect(last(accepted)).toBeGreaterThan(90);
    expect(last(reached) / last(accepted)).toBeGreaterThan(1.97);
    expect(last(reached) / last(accepted)).toBeLessThan(2.05);
    const { requests, accepts, rejectRatio } = throttle.metrics;
    expect(rejectRatio).toBeCloseTo((requests - 2 * accepts) / (requests + 1), 12);
    expect(clock.pendingTimers).toBe(0);
  }, 60_000);
});
