import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlidingCounts } from './sliding-counts.js';

/**
 * The brute-force model: keep every event; the window at `now` holds the events whose slice
 * `floor(t / sliceMs)` is among the `slices` last ones, i.e. `> floor(now / sliceMs) − slices`.
 */
function model(events: { t: number; kind: 'call' | 'retry' }[], now: number, slices: number, sliceMs: number) {
  const current = Math.floor(now / sliceMs);
  const inWindow = events.filter((e) => Math.floor(e.t / sliceMs) > current - slices);
  return { calls: inWindow.filter((e) => e.kind === 'call').length, retries: inWindow.filter((e) => e.kind === 'retry').length };
}

describe('SlidingCounts against a brute-force model', () => {
  it('counts exactly the events of the last `slices` slices, whatever the timing', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom(1, 7.5, 100, 1000),
        fc.integer({ min: -50_000, max: 50_000 }),
        fc.array(
          fc.record({
            dt: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 30_000 })),
            kind: fc.constantFrom('call', 'retry', 'read'),
          }),
          {
            maxLength: 120,
          },
        ),
        (slices, sliceMs, start, ops) => {
          const counts = new SlidingCounts(slices, sliceMs);
          const events: { t: number; kind: 'call' | 'retry' }[] = [];
          let now = start;
          for (const op of ops) {
            now += op.dt;
            if (op.kind === 'call') {
              counts.addCall(now);
              events.push({ t: now, kind: 'call' });
            } else if (op.kind === 'retry') {
              counts.addRetry(now);
              events.push({ t: now, kind: 'retry' });
            } else {
              const expected = model(events, now, slices, sliceMs);
              expect(counts.calls(now)).toBe(expected.calls);
              expect(counts.retries(now)).toBe(expected.retries);
            }
          }
          const expected = model(events, now, slices, sliceMs);
          expect({ calls: counts.calls(now), retries: counts.retries(now) }).toEqual(expected);
        },
      ),
      { numRuns: 400 },
    );
  });
});
