import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from './latency-histogram.js';

// The histogram against the exact figure (sorted latencies, nearest rank): never above it, and
// below it by at most 1/128 of it (or 1/128 ms under 1 ms); exact for a latency on a bin's edge.
function exact(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

describe('LatencyHistogram', () => {
  it('reads whole and power-of-two latencies exactly: 40, 80, 0.5, 1, 1024 ms', () => {
    const h = new LatencyHistogram();
    for (const v of [40, 40, 80, 80]) h.record(v);
    expect([h.quantile(0.5), h.quantile(0.99), h.count, h.min, h.max]).toEqual([40, 80, 4, 40, 80]);
    for (const v of [0.5, 1, 1024]) {
      const one = new LatencyHistogram();
      one.record(v);
      expect(one.quantile(0.5)).toBe(v);
    }
    expect(new LatencyHistogram().quantile(0.5)).toBeNull();
  });

  it('a quantile is the exact one or below it by at most 1/128 of it (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double({ min: 0, max: 2, noNaN: true }), fc.double({ min: 0, max: 1e9, noNaN: true })), { minLength: 1, maxLength: 200 }),
        fc.constantFrom(0.5, 0.9, 0.99, 1),
        (values, q) => {
          const h = new LatencyHistogram();
          for (const v of values) h.record(v);
          const want = exact(values, q);
          const got = h.quantile(q)!;
          expect(got).toBeLessThanOrEqual(want);
          expect(want - got).toBeLessThanOrEqual(Math.max(want / 128, 1 / 128) + 1e-9);
        },
      ),
    );
  });

  it('adds another histogram as if its latencies had been recorded here; reset empties it', () => {
    const [a, b, both] = [new LatencyHistogram(), new LatencyHistogram(), new LatencyHistogram()];
    for (const v of [3, 7, 250]) a.record(v), both.record(v);
    for (const v of [0.25, 9000]) b.record(v), both.record(v);
    a.add(b);
    expect([a.count, a.min, a.max, a.quantile(0.5), a.quantile(0.99)]).toEqual([both.count, both.min, both.max, both.quantile(0.5), both.quantile(0.99)]);
    a.reset();
    expect([a.count, a.quantile(0.5)]).toEqual([0, null]);
  });
});
