import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LimitAlgorithm, LimitSample } from './algorithm.js';
import { aimd } from './aimd.js';
import { windowed, windowedOf } from './windowed.js';

/** An algorithm that records what it is fed; its limit counts the samples. */
function recorder(): LimitAlgorithm & { readonly fed: LimitSample[] } {
  const fed: LimitSample[] = [];
  return {
    name: 'recorder',
    fed,
    get limit() {
      return fed.length + 1;
    },
    onSample(sample) {
      fed.push(sample);
      return fed.length + 1;
    },
  };
}

const ok = (at: number, rtt: number, inFlight = 1) => ({ at, rtt, inFlight, didDrop: false });

describe('windowed: Netflix WindowedLimit', () => {
  it('10 calls and 1 s make a window: one sample of the average rtt, the largest in-flight count, any drop', () => {
    const inner = recorder();
    const w = windowed(inner);
    expect(w.name).toBe('recorder');
    for (let i = 0; i < 9; i++) expect(w.onSample(ok(i * 100, 10 + i, i))).toBe(1); // at 0 … 800
    expect(w.onSample({ at: 900, rtt: 0, inFlight: 30, didDrop: true })).toBe(1); // 10 calls, 900 ms: not yet
    expect(w.onSample(ok(1000, 20, 2))).toBe(2); // 11 calls, 1000 ms: closes
    expect(inner.fed).toEqual([{ at: 1000, rtt: (10 + 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 20) / 10, inFlight: 30, didDrop: true }]);
    expect(w.limit).toBe(2);
  });

  it('a second is not enough without 10 calls: the window waits for them', () => {
    const inner = recorder();
    const w = windowed(inner);
    for (let i = 0; i < 9; i++) w.onSample(ok(i * 1000, 5));
    expect(inner.fed).toEqual([]);
    w.onSample(ok(60_000, 5));
    expect(inner.fed).toEqual([{ at: 60_000, rtt: 5, inFlight: 1, didDrop: false }]);
  });

  it('calls faster than minRttThreshold (100 µs) are not samples; a drop always is, its rtt never', () => {
    const inner = recorder();
    const w = windowed(inner);
    for (let i = 0; i < 20; i++) w.onSample(ok(i * 100, 0.05));
    w.onSample(ok(3000, Number.NaN));
    w.onSample(ok(3000, Number.POSITIVE_INFINITY));
    expect(inner.fed).toEqual([]);
    for (let i = 0; i < 9; i++) w.onSample({ at: 4000 + i, rtt: 5000, inFlight: 3, didDrop: true });
    w.onSample({ at: 5000, rtt: Number.NaN, inFlight: 4, didDrop: true });
    expect(inner.fed).toEqual([{ at: 5000, rtt: 0, inFlight: 4, didDrop: true }]); // only drops: rtt 0
  });

  it('a window lasts clamp(2 · its lowest rtt, minWindowTime, maxWindowTime)', () => {
    const inner = recorder();
    const w = windowed(inner, { minWindowTime: 100, maxWindowTime: 1000, windowSize: 2 });
    w.onSample(ok(0, 300)); // opens; 2 · 300 = 600 ms
    w.onSample(ok(599, 300));
    expect(inner.fed).toHaveLength(0);
    w.onSample(ok(600, 300));
    expect(inner.fed).toHaveLength(1);
    w.onSample(ok(700, 30)); // opens; 2 · 30 = 60 → 100 ms (the minimum)
    w.onSample(ok(799, 30));
    expect(inner.fed).toHaveLength(1);
    w.onSample(ok(800, 30));
    expect(inner.fed).toHaveLength(2);
    w.onSample(ok(1000, 900)); // opens; 1800 → 1000 ms (the maximum)
    w.onSample(ok(2000, 900));
    expect(inner.fed.map((s) => s.at)).toEqual([600, 800, 2000]);
  });

  it('a time that is not a number is read as the last time seen', () => {
    const inner = recorder();
    const w = windowed(inner, { windowSize: 2, minWindowTime: 10, maxWindowTime: 10 });
    w.onSample(ok(Number.NaN, 1)); // opens at 0 (nothing seen yet)
    w.onSample(ok(20, 1)); // closes
    w.onSample(ok(Number.POSITIVE_INFINITY, 1)); // opens at 20
    w.onSample(ok(25, 1));
    expect(inner.fed.map((s) => s.at)).toEqual([20]);
    w.onSample(ok(30, 1));
    expect(inner.fed.map((s) => s.at)).toEqual([20, 30]);
  });

  it('AIMD through a window moves once a window', () => {
    const w = windowed(aimd({ initialLimit: 20 }));
    for (let i = 0; i < 50; i++) w.onSample(ok(i * 100, 10, 20)); // 5 s: windows close at 1000, 2100, 3200, 4300
    expect(w.limit).toBe(24);
  });
});

describe('windowed: options', () => {
  it.each([
    [{ windowSize: 0 }, RangeError, 'windowed: windowSize must be an integer >= 1, got 0'],
    [{ minWindowTime: -1 }, RangeError, 'windowed: minWindowTime must be >= 0, got -1'],
    [{ minWindowTime: '2s', maxWindowTime: '1s' }, RangeError, "windowed: maxWindowTime must be >= minWindowTime (2000), got '1s'"],
    [{ minRttThreshold: 'fast' }, TypeError, "windowed: minRttThreshold must be a duration (ms, or a string like '250ms', '10s', '1.5m', '2h'), got 'fast'"],
    [{ size: 10 }, TypeError, "windowed: unknown option 'size'"],
  ])('%o', (options, kind, message) => {
    expect(() => windowed(aimd(), options as never)).toThrow(kind);
    expect(() => windowed(aimd(), options as never)).toThrow(message);
  });

  it('a minWindowTime over 1 s raises the default maxWindowTime with it', () => {
    const inner = recorder();
    const w = windowed(inner, { minWindowTime: '2s', windowSize: 1 });
    w.onSample(ok(0, 1));
    w.onSample(ok(1999, 1));
    w.onSample(ok(2000, 1));
    expect(inner.fed.map((s) => s.at)).toEqual([2000]);
  });

  it('the algorithm must be one', () => {
    expect(() => windowed(null as never)).toThrow(new TypeError('windowed: algorithm must be a LimitAlgorithm (name, limit, onSample), got null'));
    expect(() => windowed({ name: 'x' } as never)).toThrow(TypeError);
  });

  it("fed numbers (the limiter's path, no object per call) it does what it does fed LimitSample objects (property)", () => {
    const value = fc.oneof(fc.double({ min: 0, max: 50 }), fc.constantFrom(0, 0.05, Number.NaN, Infinity, -1));
    fc.assert(
      fc.property(
        fc.array(fc.record({ dt: fc.double({ min: 0, max: 300, noNaN: true }), rtt: value, inFlight: value, didDrop: fc.boolean() }), { maxLength: 80 }),
        fc.record({ minWindowTime: fc.constantFrom(0, 100, 1000), windowSize: fc.constantFrom(1, 3, 10) }),
        (steps, options) => {
          const byObject = recorder();
          const byNumbers = recorder();
          const a = windowed(byObject, options);
          const b = windowed(byNumbers, options);
          const numbers = windowedOf(b)!;
          expect(numbers).toBeDefined();
          let at = 0;
          for (const s of steps) {
            at += s.dt;
            expect(numbers.add(at, s.rtt, s.inFlight, s.didDrop)).toBe(a.onSample({ at, rtt: s.rtt, inFlight: s.inFlight, didDrop: s.didDrop }));
          }
          expect(byNumbers.fed).toEqual(byObject.fed);
        },
      ),
      { numRuns: 300 },
    );
    expect(windowedOf(aimd())).toBeUndefined(); // a LimitAlgorithm of its own is fed objects
  });
});
