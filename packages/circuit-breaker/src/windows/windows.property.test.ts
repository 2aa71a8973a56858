import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../outcome.js';
import { CountWindow } from './count-window.js';
import { TimeWindow } from './time-window.js';

type Step = { outcome: Outcome; advance: number };

const outcome = fc.constantFrom<Outcome>(0, 1, 2, 3);

/** A brute-force recount of the calls a list of recorded (outcome, time) holds. */
function recount(calls: { outcome: Outcome; at: number }[]) {
  return {
    calls: calls.length,
    failed: calls.filter((c) => c.outcome & 1).length,
    slow: calls.filter((c) => c.outcome & 2).length,
    slowFailed: calls.filter((c) => c.outcome === 3).length,
  };
}

describe('sliding windows against a brute-force recount', () => {
  it('COUNT_BASED holds exactly the last N calls', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(outcome, { maxLength: 200 }), (size, outcomes) => {
        const w = new CountWindow(size);
        const all: { outcome: Outcome; at: number }[] = [];
        for (const o of outcomes) {
          w.record(o);
          all.push({ outcome: o, at: 0 });
          const expected = recount(all.slice(-size));
          expect({ calls: w.calls, failed: w.failed, slow: w.slow, slowFailed: w.slowFailed }).toEqual(expected);
          expect(w.outcomes()).toEqual(all.slice(-size).map((c) => c.outcome)); // what a snapshot keeps
        }
      }),
    );
  });

  it('TIME_BASED holds exactly the calls of the current second and the N−1 before it', () => {
    const step = fc.record<Step>({ outcome, advance: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 30_000 })) });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: -100_000, max: 100_000 }),
        fc.array(fc.tuple(step, fc.boolean()), { maxLength: 150 }),
        (size, start, steps) => {
          const w = new TimeWindow(size, start);
          const all: { outcome: Outcome; at: number }[] = [];
          let now = start;
          for (const [s, readOnly] of steps) {
            now += s.advance;
            if (!readOnly) {
              w.record(s.outcome, now);
              all.push({ outcome: s.outcome, at: now });
            }
            const second = Math.floor(now / 1000);
            const expected = recount(all.filter((c) => Math.floor(c.at / 1000) > second - size));
            const t = w.at(now);
            expect({ calls: t.calls, failed: t.failed, slow: t.slow, slowFailed: t.slowFailed }).toEqual(expected);
            expect(Math.min(t.calls, t.failed, t.slow, t.slowFailed)).toBeGreaterThanOrEqual(0);
            // What a snapshot keeps rebuilds the window: its buckets added to a fresh one.
            const copy = new TimeWindow(size, now);
            for (const b of w.buckets(now)) copy.addBucket(b);
            const c = copy.at(now);
            expect({ calls: c.calls, failed: c.failed, slow: c.slow, slowFailed: c.slowFailed }).toEqual(expected);
          }
        },
      ),
    );
  });
});
