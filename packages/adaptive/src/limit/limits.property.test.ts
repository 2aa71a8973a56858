import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LimitAlgorithm, LimitSample } from './algorithm.js';
import { aimd } from './aimd.js';
import { gradient2 } from './gradient2.js';
import { vegas } from './vegas.js';
import { windowed } from './windowed.js';

/** Numbers a broken clock or a buggy caller could produce. */
const hostile = fc.oneof(
  fc.double(),
  fc.integer({ min: -5, max: 5000 }),
  fc.double({ min: 0.01, max: 10_000, noNaN: true }),
  fc.constantFrom(0, -0, -1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.MAX_VALUE, Number.MIN_VALUE, 1e-300),
);

const sample = fc.record({ at: hostile, rtt: hostile, inFlight: hostile, didDrop: fc.boolean() });

/** Three limits that fit together: min <= initial <= max. */
const limits = fc
  .tuple(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 300 }))
  .map(([minLimit, a, b]) => ({ minLimit, initialLimit: minLimit + Math.min(a, b), maxLimit: minLimit + Math.max(a, b) }));

const build = fc.oneof(
  fc.record({ limits, backoffRatio: fc.double({ min: 0.5, max: 0.99, noNaN: true }) }).map(({ limits: l, backoffRatio }) => ({
    bounds: l,
    make: () => aimd({ ...l, backoffRatio }),
  })),
  fc
    .record({ limits, smoothing: fc.double({ min: 0.01, max: 1, noNaN: true }), draws: fc.array(hostile, { minLength: 1 }) })
    .map(({ limits: l, smoothing, draws }) => ({
      bounds: l,
      make: () => {
        let i = 0;
        return vegas({ ...l, smoothing, probeMultiplier: 1, random: () => draws[i++ % draws.length]! });
      },
    })),
  fc
    .record({
      limits,
      smoothing: fc.double({ min: 0.01, max: 1, noNaN: true }),
      queueSize: fc.integer({ min: 0, max: 20 }),
      longWindow: fc.integer({ min: 1, max: 50 }),
    })
    .map(({ limits: l, smoothing, queueSize, longWindow }) => ({
      bounds: l,
      make: () => gradient2({ ...l, smoothing, queueSize, longWindow }),
    })),
);

function holds(algorithm: LimitAlgorithm, bounds: { minLimit: number; maxLimit: number }, samples: readonly LimitSample[]): void {
  const check = (limit: number) => {
    expect(Number.isInteger(limit)).toBe(true);
    expect(limit).toBeGreaterThanOrEqual(bounds.minLimit);
    expect(limit).toBeLessThanOrEqual(bounds.maxLimit);
  };
  check(algorithm.limit);
  for (const s of samples) {
    const returned = algorithm.onSample(s);
    check(returned);
    expect(algorithm.limit).toBe(returned);
  }
}

describe('every algorithm, any samples', () => {
  it('the limit is an integer in [minLimit, maxLimit], never NaN, and onSample returns it', () => {
    fc.assert(
      fc.property(build, fc.array(sample, { maxLength: 300 }), ({ bounds, make }, samples) => {
        holds(make(), bounds, samples);
      }),
      { numRuns: 300 },
    );
  });

  it('the same through a window (windows of 1 to 5 calls, 0 to 50 ms)', () => {
    fc.assert(
      fc.property(
        build,
        fc.array(sample, { maxLength: 300 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 50 }),
        ({ bounds, make }, samples, windowSize, span) => {
          holds(windowed(make(), { windowSize, minWindowTime: span, maxWindowTime: span }), bounds, samples);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('once poisoned by nothing: after any hostile prefix, clean overload still lowers a limit above its minimum', () => {
    // A state NaN or Infinity crept into would stop answering: drops must still move every algorithm down.
    fc.assert(
      fc.property(build, fc.array(sample, { maxLength: 200 }), ({ bounds, make }, prefix) => {
        const algorithm = make();
        for (const s of prefix) algorithm.onSample(s);
        let limit = algorithm.limit;
        for (let i = 0; i < 200_000 && limit > bounds.minLimit; i++) limit = algorithm.onSample({ at: 0, rtt: 10, inFlight: limit, didDrop: true });
        expect(limit).toBe(bounds.minLimit);
      }),
      { numRuns: 200 },
    );
  });
});

/** AIMD as its rule reads, written the slow way: the model the factory is held against. */
function aimdModel(o: { initialLimit: number; minLimit: number; maxLimit: number; backoffRatio: number; timeout: number }) {
  let limit = o.initialLimit;
  return (s: LimitSample): number => {
    const rttIsReal = typeof s.rtt === 'number' && Number.isFinite(s.rtt) && s.rtt > 0;
    const inFlight = typeof s.inFlight === 'number' && Number.isFinite(s.inFlight) && s.inFlight >= 0 ? s.inFlight : 0;
    let next = limit;
    if (s.didDrop === true || (rttIsReal && s.rtt > o.timeout)) {
      next = Math.floor(limit * o.backoffRatio);
    } else if (inFlight + inFlight >= limit) {
      next = limit + 1;
    }
    if (next < o.minLimit) next = o.minLimit;
    if (next > o.maxLimit) next = o.maxLimit;
    limit = next;
    return limit;
  };
}

describe('aimd against its model', () => {
  it('every sample moves it exactly as the model', () => {
    fc.assert(
      fc.property(
        limits,
        fc.double({ min: 0.5, max: 0.99, noNaN: true }),
        fc.integer({ min: 1, max: 200 }),
        fc.array(fc.record({ at: fc.constant(0), rtt: hostile, inFlight: fc.oneof(hostile, fc.integer({ min: 0, max: 400 })), didDrop: fc.boolean() }), {
          maxLength: 300,
        }),
        (l, backoffRatio, timeout, samples) => {
          const algorithm = aimd({ ...l, backoffRatio, timeout });
          const model = aimdModel({ ...l, backoffRatio, timeout });
          for (const s of samples) expect(algorithm.onSample(s)).toBe(model(s));
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** The window, written the slow way: keep every call of the open window, decide from the list. */
function windowModel(o: { windowSize: number; minWindowTime: number; maxWindowTime: number; minRttThreshold: number }) {
  let calls: { at: number; rtt: number; inFlight: number; didDrop: boolean }[] = [];
  let lastAt = 0;
  return (s: LimitSample): LimitSample | undefined => {
    const realRtt = typeof s.rtt === 'number' && Number.isFinite(s.rtt) && s.rtt >= o.minRttThreshold;
    if (!s.didDrop && !realRtt) return undefined;
    const at = Number.isFinite(s.at) ? s.at : lastAt;
    lastAt = at;
    calls.push({ at, rtt: s.rtt, inFlight: s.inFlight, didDrop: s.didDrop });
    const timed = calls.filter((c) => !c.didDrop);
    const lowest = timed.length === 0 ? Infinity : Math.min(...timed.map((c) => c.rtt));
    const span = Math.min(o.maxWindowTime, Math.max(o.minWindowTime, 2 * lowest));
    if (calls.length < o.windowSize || at - calls[0]!.at < span) return undefined;
    const counts = calls.map((c) => c.inFlight).filter((n) => Number.isFinite(n));
    const summary = {
      at,
      rtt: timed.length === 0 ? 0 : timed.reduce((sum, c) => sum + c.rtt, 0) / timed.length,
      inFlight: Math.max(0, ...counts),
      didDrop: calls.some((c) => c.didDrop),
    };
    calls = [];
    return summary;
  };
}

describe('windowed against its model', () => {
  it('forwards exactly the windows the model closes, with their summaries', () => {
    const call = fc.record({
      at: fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY)),
      rtt: fc.oneof(fc.integer({ min: 0, max: 500 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -1)),
      inFlight: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constantFrom(Number.NaN, -1)),
      didDrop: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 0, max: 300 }),
        fc.constantFrom(0, 0.1, 5),
        fc.array(call, { maxLength: 300 }),
        (windowSize, a, b, minRttThreshold, calls) => {
          // Times kept in order, as a clock gives them (a NaN or Infinity left where it falls).
          let t = 0;
          const ordered = calls.map((c) => (Number.isFinite(c.at) ? { ...c, at: (t += c.at % 50) } : c));
          const options = { windowSize, minWindowTime: Math.min(a, b), maxWindowTime: Math.max(a, b), minRttThreshold };
          const fed: LimitSample[] = [];
          const inner: LimitAlgorithm = { name: 'inner', limit: 1, onSample: (s) => (fed.push(s), 1) };
          const w = windowed(inner, options);
          const model = windowModel(options);
          const expected: LimitSample[] = [];
          for (const c of ordered) {
            w.onSample(c);
            const summary = model(c);
            if (summary !== undefined) expected.push(summary);
          }
          expect(fed.map((s) => ({ ...s, rtt: 0 }))).toEqual(expected.map((s) => ({ ...s, rtt: 0 })));
          for (const [i, s] of fed.entries()) expect(s.rtt).toBeCloseTo(expected[i]!.rtt, 9);
        },
      ),
      { numRuns: 300 },
    );
  });
});
