import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { RateLimiter } from './index.js';

// Real worker threads on real time, bounded: 4 threads take permits for 300 ms (6 cycles of 50 ms).
// The assertions are on counts, never on speed.
const hammer = new URL('../test/fixtures/hammer.mjs', import.meta.url);
const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.terminate()));
});

const monotonicMs = () => {
  const t = process.hrtime();
  return t[0] * 1e3 + t[1] / 1e6;
};

interface Report {
  readonly threadId: number;
  readonly granted: readonly number[];
  readonly refused: number;
}

describe('RateLimiter.shared — real worker threads', () => {
  it('four threads hammering one limit never get more than limitForPeriod per cycle in total', async () => {
    const limit = 20;
    const period = 50;
    const limiter = RateLimiter.shared('hammered', { limitForPeriod: limit, limitRefreshPeriod: period, timeoutDuration: 60 });
    // The origin of the cycles, in the process's monotonic clock (the state's float64 at byte 24).
    const origin = new Float64Array(limiter.handle.buffer)[3]!;
    const ready: Promise<unknown>[] = [];
    for (let i = 0; i < 4; i++) {
      const worker = new Worker(hammer, { workerData: { handle: limiter.handle, origin, period }, execArgv: ['--conditions=@breakwater/source'] });
      workers.push(worker);
      ready.push(once(worker, 'message'));
    }
    await Promise.all(ready);
    // Start at the next cycle start, all together, and stop 6 cycles later.
    const start = origin + (Math.floor((monotonicMs() - origin) / period) + 1) * period;
    const reports = workers.map((w) => once(w, 'message').then(([report]) => report as Report));
    for (const w of workers) w.postMessage({ start, until: start + 6 * period });
    const all = await Promise.all(reports);

    const perCycle = new Map<number, number>();
    for (const report of all) for (const cycle of report.granted) perCycle.set(cycle, (perCycle.get(cycle) ?? 0) + 1);
    const over = [...perCycle].filter(([, n]) => n > limit);
    expect(over).toEqual([]);
    // The run did hammer: four threads, six cycles or more, most of them filled to the limit, many refusals.
    expect(new Set(all.map((r) => r.threadId)).size).toBe(4);
    expect(perCycle.size).toBeGreaterThanOrEqual(6);
    expect([...perCycle.values()].filter((n) => n === limit).length).toBeGreaterThanOrEqual(5);
    expect(all.reduce((n, r) => n + r.refused, 0)).toBeGreaterThan(4 * 6);
    // Every thread got permits.
    expect(all.every((r) => r.granted.length > 0)).toBe(true);
  }, 30_000);
});
