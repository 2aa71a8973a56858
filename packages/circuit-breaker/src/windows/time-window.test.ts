import { describe, expect, it } from 'vitest';
import { Outcome } from '../outcome.js';
import { TimeWindow } from './time-window.js';

const totals = (w: TimeWindow, now: number) => {
  const t = w.at(now);
  return { calls: t.calls, failed: t.failed, slow: t.slow, slowFailed: t.slowFailed };
};

// Resilience4j's SlidingTimeWindowMetricsTest, in our words.
describe('TimeWindow (TIME_BASED)', () => {
  it('records each kind of outcome in the current second', () => {
    const w = new TimeWindow(5, 0);
    w.record(Outcome.ERROR, 0);
    w.record(Outcome.SUCCESS, 10);
    w.record(Outcome.SLOW_SUCCESS, 20);
    w.record(Outcome.SLOW_ERROR, 999);
    expect(totals(w, 999)).toEqual({ calls: 4, failed: 2, slow: 2, slowFailed: 1 });
  });

  it('keeps the current second and the N−1 before it', () => {
    const w = new TimeWindow(5, 0);
    w.record(Outcome.ERROR, 0); // second 0
    w.record(Outcome.ERROR, 1_500); // second 1
    w.record(Outcome.SUCCESS, 4_999); // second 4
    expect(totals(w, 4_999).calls).toBe(3);
    expect(totals(w, 5_000)).toEqual({ calls: 2, failed: 1, slow: 0, slowFailed: 0 }); // second 0 fell out
    expect(totals(w, 6_000)).toEqual({ calls: 1, failed: 0, slow: 0, slowFailed: 0 });
    expect(totals(w, 9_999).calls).toBe(0);
  });

  it('empties by itself after N seconds without traffic, and after any larger jump', () => {
    const w = new TimeWindow(3, 0);
    for (let t = 0; t < 3000; t += 100) w.record(Outcome.SLOW_ERROR, t);
    expect(totals(w, 2_999).calls).toBe(30);
    expect(totals(w, 1_000_000)).toEqual({ calls: 0, failed: 0, slow: 0, slowFailed: 0 });
    w.record(Outcome.SUCCESS, 1_000_001);
    expect(totals(w, 1_000_001).calls).toBe(1);
  });

  it('moves on record as well as on read', () => {
    const w = new TimeWindow(2, 0);
    w.record(Outcome.ERROR, 0);
    w.record(Outcome.SUCCESS, 2_000); // second 0 is out before this one counts
    expect(w.calls).toBe(1);
    expect(w.failed).toBe(0);
  });

  it('a window of one second holds the current second only', () => {
    const w = new TimeWindow(1, 0);
    w.record(Outcome.ERROR, 999);
    expect(totals(w, 999).failed).toBe(1);
    expect(totals(w, 1000).failed).toBe(0);
  });

  it('starts its seconds at the clock reading it was built at', () => {
    const w = new TimeWindow(2, 123_456);
    w.record(Outcome.ERROR, 123_456);
    expect(totals(w, 124_999).failed).toBe(1);
    expect(totals(w, 125_000).failed).toBe(0);
  });

  it('works on a clock that reads negative times', () => {
    const w = new TimeWindow(3, -5_500);
    w.record(Outcome.ERROR, -5_500); // second -6
    w.record(Outcome.SUCCESS, -3_100); // second -4
    expect(totals(w, -3_100)).toEqual({ calls: 2, failed: 1, slow: 0, slowFailed: 0 });
    expect(totals(w, -3_000)).toEqual({ calls: 1, failed: 0, slow: 0, slowFailed: 0 }); // second -6 fell out
    w.record(Outcome.SLOW_ERROR, 500); // second 0
    expect(totals(w, 500)).toEqual({ calls: 1, failed: 1, slow: 1, slowFailed: 1 });
  });

  it('has the second it has moved to as its epoch (a new one may drop buckets)', () => {
    const w = new TimeWindow(3, 1_500);
    expect(w.epoch).toBe(1);
    w.record(Outcome.SUCCESS, 1_999);
    expect(w.epoch).toBe(1);
    w.at(4_000);
    expect(w.epoch).toBe(4);
    w.at(3_000); // a reading before the newest second does not move it back
    expect(w.epoch).toBe(4);
  });

  it('lists the buckets holding calls, oldest first, and adds a bucket only for a second it holds', () => {
    const w = new TimeWindow(3, 0);
    w.record(Outcome.ERROR, 100);
    w.record(Outcome.SLOW_ERROR, 2_100);
    expect(w.buckets(2_500)).toEqual([
      { second: 0, calls: 1, failed: 1, slow: 0, slowFailed: 0 },
      { second: 2, calls: 1, failed: 1, slow: 1, slowFailed: 1 },
    ]);
    const copy = new TimeWindow(3, 2_500);
    copy.addBucket({ second: -1, calls: 5, failed: 5, slow: 0, slowFailed: 0 }); // fell out
    copy.addBucket({ second: 3, calls: 5, failed: 5, slow: 0, slowFailed: 0 }); // not yet
    for (const b of w.buckets(2_500)) copy.addBucket(b);
    expect(totals(copy, 2_500)).toEqual(totals(w, 2_500));
    expect(totals(copy, 3_000)).toEqual({ calls: 1, failed: 1, slow: 1, slowFailed: 1 });
  });
});
