import { describe, expect, it } from 'vitest';
import { BELOW_MINIMUM, closedMetrics, FAILURE_EXCEEDED } from './metrics.js';
import { Outcome } from './outcome.js';

const settings = { failureRateThreshold: 50, slowCallRateThreshold: 100, minimumNumberOfCalls: 2, slidingWindowSize: 2 };

describe('StateMetrics.record: the verdict after each outcome', () => {
  it('COUNT_BASED: successes after a clear verdict keep it clear; an error is judged again', () => {
    const m = closedMetrics({ ...settings, slidingWindowType: 'COUNT_BASED', slidingWindowSize: 4, minimumNumberOfCalls: 4 }, 0);
    expect([Outcome.SUCCESS, Outcome.SUCCESS, Outcome.SUCCESS].map((o) => m.record(o, 0))).toEqual([BELOW_MINIMUM, BELOW_MINIMUM, BELOW_MINIMUM]);
    expect(m.record(Outcome.SUCCESS, 0)).toBe(0);
    expect(m.record(Outcome.SUCCESS, 0)).toBe(0);
    expect(m.record(Outcome.ERROR, 0)).toBe(0); // 1 of 4
    expect(m.record(Outcome.ERROR, 0)).toBe(FAILURE_EXCEEDED); // 2 of 4
  });

  it('TIME_BASED: a clear verdict does not outlive its second (buckets fall out at the next)', () => {
    const m = closedMetrics({ ...settings, slidingWindowType: 'TIME_BASED' }, 0);
    m.record(Outcome.SUCCESS, 0);
    expect(m.record(Outcome.SUCCESS, 500)).toBe(0);
    expect(m.record(Outcome.SUCCESS, 900)).toBe(0);
    // Second 2: second 0 fell out, one call is left, below the minimum of 2.
    expect(m.record(Outcome.SUCCESS, 2_000)).toBe(BELOW_MINIMUM);
  });
});
