import { systemClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { driveOnClock } from '../test/test-support.js';

// The one test of this package on real time (docs/conventions.md: a system timer never fires before its due
// time). It asserts counts — no cycle ever runs more than limitForPeriod calls, no call starts
// before the cycle it was granted for — and never a speed: how many calls fit in the span depends
// on the machine, and a waiter that runs late because the event loop lagged is not an over-grant.
describe('RateLimiter on systemClock (real time, bounded: about 0.4 s)', () => {
  it('5 per 10 ms, 40 callers for 300 ms: no cycle runs more than 5 calls, no waiter starts early', async () => {
    const report = await driveOnClock(systemClock, { limitForPeriod: 5, limitRefreshPeriod: 10, callers: 40, spanMs: 300 });
    const ran = report.calls.filter((c) => !Number.isNaN(c.ranAt));
    // Every call was served (at most 40 / 5 cycles ahead, far within the 1 s timeout)...
    expect(report.refused).toBe(0);
    expect(ran).toHaveLength(report.calls.length);
    // ... most of them after a wait on a system timer (40 callers on 5 permits a cycle).
    expect(ran.filter((c) => c.waitMs > 0).length).toBeGreaterThanOrEqual(report.calls.length / 2);
    expect(report.offCycle).toEqual([]);
    expect(report.early).toEqual([]);
    const overGranted = [...report.perCycle].filter(([, n]) => n > 5).map(([cycle, n]) => `cycle ${cycle}: ${n} calls`);
    expect(overGranted).toEqual([]);
    expect([...report.perCycle.values()].reduce((a, b) => a + b, 0)).toBe(ran.length);
  });
});
