import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IntervalFunction, type IntervalState } from './index.js';

const state = (random: () => number, previousWaitMs = 0): IntervalState => ({ random, previousWaitMs });

describe('IntervalFunction against the formulas, recomputed directly', () => {
  const attempt = fc.integer({ min: 1, max: 60 });
  const initial = fc.integer({ min: 1, max: 10_000 });
  const multiplier = fc.double({ min: 1, max: 4, noNaN: true });
  const factor = fc.double({ min: 0, max: 1, noNaN: true });
  const draw = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
  const max = fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: undefined });

  /** Java's LongStream.iterate(initial, x -> (long) (x * m)).skip(attempt − 1). */
  const sequence = (i: number, m: number, n: number): number => {
    let x = i;
    for (let k = 1; k < n; k++) x = Math.trunc(x * m);
    return x;
  };

  it('ofExponentialBackoff = min(sequence(n), max)', () => {
    fc.assert(
      fc.property(initial, multiplier, max, attempt, (i, m, cap, n) => {
        expect(IntervalFunction.ofExponentialBackoff(i, m, cap)(n)).toBe(Math.min(sequence(i, m, n), cap ?? Infinity));
      }),
      { numRuns: 300 },
    );
  });

  it('ofRandomized = max(1, trunc(ms − f·ms + r · 2f·ms))', () => {
    fc.assert(
      fc.property(initial, factor, draw, attempt, (ms, f, r, n) => {
        const low = ms - f * ms;
        const high = ms + f * ms;
        expect(IntervalFunction.ofRandomized(ms, f)(n, state(() => r))).toBe(Math.max(1, Math.trunc(low + r * (high - low))));
      }),
      { numRuns: 300 },
    );
  });

  it('ofExponentialRandomBackoff = min(max(1, trunc(randomize(sequence(n)))), max)', () => {
    fc.assert(
      fc.property(initial, multiplier, factor, draw, max, attempt, (i, m, f, r, cap, n) => {
        const x = sequence(i, m, n);
        const low = x - f * x;
        const high = x + f * x;
        const expected = x === Infinity ? Infinity : Math.max(1, Math.trunc(low + r * (high - low)));
        expect(IntervalFunction.ofExponentialRandomBackoff(i, m, f, cap)(n, state(() => r))).toBe(Math.min(expected, cap ?? Infinity));
      }),
      { numRuns: 300 },
    );
  });

  it('ofDecorrelatedJitter = min(max, trunc(base + r · (3·previous − base))), always in [base, max]', () => {
    fc.assert(
      fc.property(initial, fc.integer({ min: 0, max: 1_000_000 }), draw, fc.integer({ min: 0, max: 3_000_000 }), attempt, (base, extra, r, previous, n) => {
        const cap = base + extra;
        const prev = n > 1 && previous >= base ? previous : base;
        const v = IntervalFunction.ofDecorrelatedJitter(base, cap)(n, state(() => r, previous));
        expect(v).toBe(Math.min(cap, Math.trunc(base + r * (prev * 3 - base))));
        expect(v).toBeGreaterThanOrEqual(base);
        expect(v).toBeLessThanOrEqual(cap);
      }),
      { numRuns: 300 },
    );
  });
});
