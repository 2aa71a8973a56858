import { describe, expect, it } from 'vitest';
import { Outcome } from '../outcome.js';
import { CountWindow } from './count-window.js';

const totals = (w: CountWindow) => ({ calls: w.calls, failed: w.failed, slow: w.slow, slowFailed: w.slowFailed });

// Resilience4j's FixedSizeSlidingWindowMetricsTest, in our words.
describe('CountWindow (COUNT_BASED)', () => {
  it('starts empty', () => {
    expect(totals(new CountWindow(4))).toEqual({ calls: 0, failed: 0, slow: 0, slowFailed: 0 });
  });

  it('records each kind of outcome', () => {
    const w = new CountWindow(10);
    w.record(Outcome.ERROR);
    w.record(Outcome.SUCCESS);
    w.record(Outcome.SLOW_SUCCESS);
    w.record(Outcome.SLOW_ERROR);
    expect(totals(w)).toEqual({ calls: 4, failed: 2, slow: 2, slowFailed: 1 });
  });

  it('keeps only the last N calls, subtracting what it overwrites', () => {
    const w = new CountWindow(5);
    for (const o of [Outcome.ERROR, Outcome.ERROR, Outcome.SLOW_SUCCESS, Outcome.SUCCESS, Outcome.SUCCESS]) w.record(o);
    expect(totals(w)).toEqual({ calls: 5, failed: 2, slow: 1, slowFailed: 0 });
    w.record(Outcome.SUCCESS); // overwrites the first error
    expect(totals(w)).toEqual({ calls: 5, failed: 1, slow: 1, slowFailed: 0 });
    w.record(Outcome.SUCCESS);
    w.record(Outcome.SUCCESS); // the slow one is gone too
    expect(totals(w)).toEqual({ calls: 5, failed: 0, slow: 0, slowFailed: 0 });
  });

  it('a window of one holds the last call only', () => {
    const w = new CountWindow(1);
    w.record(Outcome.SLOW_ERROR);
    expect(totals(w)).toEqual({ calls: 1, failed: 1, slow: 1, slowFailed: 1 });
    w.record(Outcome.SUCCESS);
    expect(totals(w)).toEqual({ calls: 1, failed: 0, slow: 0, slowFailed: 0 });
  });

  it('ignores time: a burst of failures still counts an hour later', () => {
    const w = new CountWindow(10);
    for (let i = 0; i < 3; i++) w.record(Outcome.ERROR);
    expect(w.at().failed).toBe(3);
  });

  it('has a constant epoch: a call leaves it only as a newer one takes its place', () => {
    const w = new CountWindow(2);
    expect(w.epoch).toBe(0);
    for (const o of [Outcome.ERROR, Outcome.SUCCESS, Outcome.SUCCESS]) w.record(o);
    expect(w.epoch).toBe(0);
  });

  it('lists the calls it holds, oldest first, before and after the ring wraps', () => {
    const w = new CountWindow(3);
    w.record(Outcome.ERROR);
    w.record(Outcome.SLOW_SUCCESS);
    expect(w.outcomes()).toEqual([Outcome.ERROR, Outcome.SLOW_SUCCESS]);
    w.record(Outcome.SUCCESS);
    w.record(Outcome.SLOW_ERROR);
    expect(w.outcomes()).toEqual([Outcome.SLOW_SUCCESS, Outcome.SUCCESS, Outcome.SLOW_ERROR]);
  });
});
