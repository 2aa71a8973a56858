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
  /** How far above the initial interval the cap is (none if undefined). */
  const max = fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: undefined });

  /** Java's LongStream.iterate(initial, x -> (long) (x * m)).skip(attempt − 1). */
  const sequence = (i: number, m: number, n: number): number => {
    let x = i;
    for (let k = 1; k < n; k++) x = Math.trunc(x * m);
    return x;
  };

  it('ofExponentialBackoff = min(sequence(n), max)', () => {
    fc.assert(
      fc.property(initial, multiplier, max, attempt, (i, m, extra, n) => {
        const cap = extra === undefined ? undefined : i + extra;
        expect(IntervalFunction.ofExponentialBackoff(i, m, cap)(n)).toBe(Math.min(sequence(i, m, n), cap ?? Infinity));
      }),
      { numRuns: 300 },
    );
  });

  /** Resilience4j 2.3+'s IntervalFunctionCompanion.randomize, cast to long. */
  const randomize = (x: number, f: number, r: number): number => {
    const low = x - f * x;
    const high = x + f * x;
    return Math.trunc(Math.max(1, low + r * (high - low + 1)));
  };

  it('ofRandomized = trunc(max(1, min + r · (max − min + 1)))', () => {
    fc.assert(
      fc.property(initial, factor, draw, attempt, (ms, f, r, n) => {
        expect(
          IntervalFunction.ofRandomized(ms, f)(
            n,
            state(() => r),
          ),
        ).toBe(randomize(ms, f, r));
      }),
      { numRuns: 300 },
    );
  });

  it('ofRandomized spans [max(1, trunc(min)), ceil(max)] and nothing else', () => {
    // Draws up to 1 − 1e-9: a draw within about 1e-14 of 1 can round the formula up to max + 1,
    // in Resilience4j's doubles as in ours (the port is exact, rounding included).
    const fair = fc.double({ min: 0, max: 1 - 1e-9, noNaN: true });
    fc.assert(
      fc.property(initial, factor, fair, (ms, f, r) => {
        const v = IntervalFunction.ofRandomized(ms, f)(
          1,
          state(() => r),
        );
        expect(v).toBeGreaterThanOrEqual(Math.max(1, Math.trunc(ms - f * ms)));
        expect(v).toBeLessThanOrEqual(Math.max(1, Math.ceil(ms + f * ms)));
        expect(Number.isInteger(v)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('ofRandomized with an exact ± delta reaches every integer of [min, max], each for the same share of draws', () => {
    // interval 4k and factor in quarters: min and max are exact integers.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.constantFrom(0, 0.25, 0.5, 0.75, 1), (k, f) => {
        const ms = 4 * k;
        const low = ms - f * ms;
        const high = ms + f * ms;
        const buckets = high - low + 1;
        const fn = IntervalFunction.ofRandomized(ms, f);
        // One draw in the middle of each of the `buckets` equal slices of [0, 1).
        const seen = Array.from({ length: buckets }, (_, j) =>
          fn(
            1,
            state(() => (j + 0.5) / buckets),
          ),
        );
        const expected = Array.from({ length: buckets }, (_, j) => Math.max(1, low + j));
        expect(seen).toEqual(expected);
        expect(
          fn(
            1,
            state(() => 0),
          ),
        ).toBe(Math.max(1, low));
        expect(
          fn(
            1,
            state(() => 1 - 1e-9),
          ),
        ).toBe(high);
      }),
      { numRuns: 200 },
    );
  });

  it('ofExponentialRandomBackoff = min(randomize(sequence(n)), max)', () => {
    fc.assert(
      fc.property(initial, multiplier, factor, draw, max, attempt, (i, m, f, r, extra, n) => {
        const cap = extra === undefined ? undefined : i + extra;
        const x = sequence(i, m, n);
        const expected = x === Infinity ? Infinity : randomize(x, f, r);
        expect(
          IntervalFunction.ofExponentialRandomBackoff(
            i,
            m,
            f,
            cap,
          )(
            n,
            state(() => r),
          ),
        ).toBe(Math.min(expected, cap ?? Infinity));
      }),
      { numRuns: 300 },
    );
  });

  it('a maxInterval below the initial interval is refused by both exponential factories', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 10_000 }).chain((i) => fc.tuple(fc.constant(i), fc.integer({ min: 1, max: i - 1 }))),
        multiplier,
        factor,
        ([i, below], m, f) => {
          expect(() => IntervalFunction.ofExponentialBackoff(i, m, below)).toThrow(RangeError);
          expect(() => IntervalFunction.ofExponentialRandomBackoff(i, m, f, below)).toThrow(RangeError);
          expect(() => IntervalFunction.ofExponentialBackoff(i, m, i)).not.toThrow();
        },
      ),
      { numRuns: 100 },
    );
  });

  it('ofDecorrelatedJitter = min(max, trunc(base + r · (3·previous − base))), always in [base, max]', () => {
    fc.assert(
      fc.property(initial, fc.integer({ min: 0, max: 1_000_000 }), draw, fc.integer({ min: 0, max: 3_000_000 }), attempt, (base, extra, r, previous, n) => {
        const cap = base + extra;
        const prev = n > 1 && previous >= base ? previous : base;
        const v = IntervalFunction.ofDecorrelatedJitter(base, cap)(
          n,
          state(() => r, previous),
        );
        expect(v).toBe(Math.min(cap, Math.trunc(base + r * (prev * 3 - base))));
        expect(v).toBeGreaterThanOrEqual(base);
        expect(v).toBeLessThanOrEqual(cap);
      }),
      { numRuns: 300 },
    );
  });
});
