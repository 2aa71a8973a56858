import { sleep, VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { AdaptiveLimiter, vegas, type AdaptiveLimiterConfig } from './index.js';

// The limiter end to end, through execute, on a VirtualClock: 40 callers loop against a backend
// that serves `capacity` calls at once in 10 ms and slows in proportion beyond (rtt = 10 ms ·
// max(1, running / capacity)). A limit that finds itself settles near the capacity, where the
// latency stays near the no-load latency, and follows the capacity when it halves.

interface Run {
  /** The limit at each second. */
  readonly limits: number[];
  /** The backend's rtt of each call, by the second the call started. */
  readonly rtts: number[][];
  /** The calls served, by second. */
  readonly served: number[];
}

async function closedLoop(config: AdaptiveLimiterConfig, capacityAt: (t: number) => number, seconds: number): Promise<Run> {
  const clock = new VirtualClock();
  const limiter = new AdaptiveLimiter('loop', { maxWaitDuration: Infinity, maxQueue: Infinity, clock, ...config });
  let running = 0;
  const end = seconds * 1000;
  const rtts: number[][] = Array.from({ length: seconds }, () => []);
  const served: number[] = new Array<number>(seconds).fill(0);
  const backend = async (): Promise<void> => {
    running++;
    const second = Math.floor(clock.now() / 1000);
    const rtt = 10 * Math.max(1, running / capacityAt(clock.now()));
    if (second < seconds) rtts[second]!.push(rtt);
    await sleep(clock, rtt);
    running--;
    if (second < seconds) served[second]!++;
  };
  const callers = Array.from({ length: 40 }, async () => {
    while (clock.now() < end) await limiter.execute(backend);
  });
  const limits: number[] = [];
  for (let s = 0; s < seconds; s++) {
    await clock.advance(1000);
    limits.push(limiter.limit);
  }
  await clock.advance(1000); // the last calls end
  await Promise.all(callers);
  expect(limiter.inFlight).toBe(0);
  expect(clock.pendingTimers).toBe(0);
  return { limits, rtts, served };
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('AdaptiveLimiter in a closed loop (vegas, the default window)', () => {
  it('settles near the capacity with the latency near the no-load latency, and follows a halving', async () => {
    // Vegas's probe jitter fixed, so the run is the same every time.
    const { limits, rtts, served } = await closedLoop({ algorithm: vegas({ random: () => 0.5 }) }, (t) => (t < 60_000 ? 20 : 10), 120);
    // Capacity 20: the limit settles at 26 (Vegas keeps α..β = 3..6 calls queued at the backend),
    // so the backend's rtt is 10 · 26/20 = 13 ms, 1.3 × its no-load latency.
    expect(limits.slice(30, 60)).toEqual(new Array(30).fill(26));
    // Capacity 10 from 60 s: one step down a window (lg = 1), 15 from 70 s: rtt 15 ms, 1.5 ×.
    const followed = limits.findIndex((l, s) => s >= 60 && l <= 15);
    expect(followed).toBe(70);
    expect(limits.slice(70, 120)).toEqual(new Array(50).fill(15));
    // The backend's own rtt, and its goodput against what its capacity serves at 10 ms (2000, then 1000 a second).
    expect(median(rtts.slice(30, 60).flat())).toBe(13);
    expect(median(rtts.slice(70, 120).flat())).toBe(15);
    expect(Math.min(...served.slice(30, 59))).toBeGreaterThanOrEqual(0.9 * 2000);
    expect(Math.min(...served.slice(70, 119))).toBeGreaterThanOrEqual(0.9 * 1000);
  }, 60_000);
});
