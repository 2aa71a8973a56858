import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HedgeDelaySetting } from './hedge-config.js';
import { HedgeDelay, hedgeDelayBucket, hedgeDelayBucketUpper } from './hedge-delay.js';

// HedgeDelay's percentile held against a brute-force model: every duration kept in a sorted
// array, the window cut by the same slices (a duration recorded in slice s counts while the
// newest slice is below s + 10), the nearest-rank percentile read exactly (contract: docs/hedging.md).

const BUCKETS = 249;
const STEP = 2 ** (1 / 8);

type Op = { readonly kind: 'record'; readonly dt: number; readonly ms: number } | { readonly kind: 'read'; readonly dt: number };

const duration = fc.oneof(fc.integer({ min: 0, max: 400 }), fc.double({ min: 0, max: 5000, noNaN: true }), fc.constantFrom(0, 1, 2 ** 31, 2 ** 32, 1e12, 0.5));

const ops: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('record' as const), dt: fc.integer({ min: 0, max: 30 }), ms: duration }) },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('read' as const), dt: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 2000 })) }),
    },
  ),
  { maxLength: 200 },
);

/** The model: what the percentile is, exactly, over the durations in the window. */
function modelPercentile(samples: readonly { slice: number; ms: number }[], nowSlice: number, p: number): number[] {
  return samples
    .filter((s) => s.slice > nowSlice - 10)
    .map((s) => s.ms)
    .sort((a, b) => a - b)
    .slice(Math.max(1, Math.ceil(p * samples.filter((s) => s.slice > nowSlice - 10).length - 1e-9)) - 1);
}

describe('HedgeDelay against a sorted-array model (fast-check)', () => {
  it('answers the nearest-rank percentile of the window, read as the upper bound of its bucket (never below it, at most one bucket above)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        fc.constantFrom(10, 100, 250, 1000),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 10_000 }),
        ops,
        (percentile, windowMs, minSamples, start, script) => {
          const setting: HedgeDelaySetting = { kind: 'percentile', percentile, windowMs, minSamples, initialMs: 777 };
          const delay = new HedgeDelay(setting);
          const samples: { slice: number; ms: number }[] = [];
          const sliceMs = windowMs / 10;
          let now = start;
          for (const op of script) {
            now += op.dt;
            const nowSlice = Math.floor(now / sliceMs);
            if (op.kind === 'record') {
              delay.record(op.ms, now);
              samples.push({ slice: nowSlice, ms: op.ms });
              continue;
            }
            const inWindow = samples.filter((s) => s.slice > nowSlice - 10);
            const answer = delay.current(now);
            if (inWindow.length < minSamples) {
              expect(answer).toBe(777);
              continue;
            }
            const exact = modelPercentile(samples, nowSlice, percentile)[0]!;
            expect(answer).toBe(hedgeDelayBucketUpper(hedgeDelayBucket(exact)));
            if (exact <= 2 ** 31) {
              expect(answer).toBeGreaterThanOrEqual(exact);
              expect(answer).toBeLessThanOrEqual(Math.max(1, exact * STEP * (1 + 1e-12)));
            } else expect(answer).toBe(2 ** 31);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('buckets a duration in the smallest bucket whose upper bound holds it', () => {
    const uppers = Array.from({ length: BUCKETS }, (_, i) => hedgeDelayBucketUpper(i));
    expect(uppers[0]).toBe(1);
    expect(uppers[BUCKETS - 1]).toBe(2 ** 31);
    fc.assert(
      fc.property(fc.oneof(fc.double({ min: 0, max: 2 ** 31, noNaN: true }), fc.constantFrom(...uppers), fc.integer({ min: 0, max: 100_000 })), (ms) => {
        const expected = uppers.findIndex((upper) => ms <= upper);
        expect(hedgeDelayBucket(ms)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
    for (const upper of uppers) {
      expect(hedgeDelayBucket(upper)).toBe(uppers.indexOf(upper));
      expect(hedgeDelayBucket(upper * (1 + 1e-12))).toBe(Math.min(BUCKETS - 1, uppers.indexOf(upper) + 1));
    }
  });
});

describe('HedgeDelay', () => {
  it('answers a fixed delay, whatever is recorded', () => {
    const delay = new HedgeDelay({ kind: 'fixed', ms: -1 });
    delay.record(5, 0);
    expect(delay.current(0)).toBe(-1);
  });

  it('answers initial until minSamples durations are in the window, and again once they left it', () => {
    const delay = new HedgeDelay({ kind: 'percentile', percentile: 0.5, windowMs: 1000, minSamples: 2, initialMs: 500 });
    delay.record(100, 0);
    expect(delay.current(0)).toBe(500);
    delay.record(100, 50);
    expect(delay.current(50)).toBe(hedgeDelayBucketUpper(hedgeDelayBucket(100)));
    expect(delay.current(999)).toBeCloseTo(107.63, 2);
    expect(delay.current(1000)).toBe(500); // the slice of t = 0 left the window
  });

  it('ignores a duration that is not a number >= 0', () => {
    const delay = new HedgeDelay({ kind: 'percentile', percentile: 0.5, windowMs: 1000, minSamples: 1, initialMs: 500 });
    delay.record(Number.NaN, 0);
    delay.record(-1, 0);
    expect(delay.current(0)).toBe(500);
  });
});
