import { describe, expect, it } from 'vitest';
import { ExpAvg } from './exp-avg.js';
import { log10Int } from './log10.js';

describe('ExpAvg: Netflix ExpAvgMeasurementTest, in our words', () => {
  it('the first 10 values are a plain mean, then factor 2 / (window + 1)', () => {
    const avg = new ExpAvg(100, 10);
    expect(avg.started).toBe(false);
    const means = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19].map((v) => avg.add(v));
    expect(means).toEqual([10, 10.5, 11, 11.5, 12, 12.5, 13, 13.5, 14, 14.5]);
    expect(avg.add(100)).toBeCloseTo(14.5 + (85.5 * 2) / 101, 12); // 16.19…
    expect(avg.started).toBe(true);
  });

  it('huge values do not overflow to Infinity', () => {
    const avg = new ExpAvg(600, 10);
    for (let i = 0; i < 20; i++) avg.add(Number.MAX_VALUE);
    expect(avg.value).toBe(Number.MAX_VALUE);
  });

  it('scale multiplies the average', () => {
    const avg = new ExpAvg(600, 10);
    avg.add(100);
    avg.scale(0.95);
    expect(avg.value).toBe(95);
  });
});

describe('log10Int: Netflix Log10RootIntFunction', () => {
  it('max(1, ⌊log10⌋) of the whole part', () => {
    expect([0, 1, 9, 9.99, 10, 99, 100, 999, 1000, 9999, 10000, 20000].map(log10Int)).toEqual([1, 1, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4]);
    expect(log10Int(Number.NaN)).toBe(1);
  });
});
