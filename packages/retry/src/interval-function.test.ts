import { describe, expect, it } from 'vitest';
import { IntervalFunction, type IntervalState } from './index.js';
import { randoms } from '../test/test-support.js';

const state = (random: () => number, previousWaitMs = 0): IntervalState => ({ random, previousWaitMs });

describe('IntervalFunction (Resilience4j IntervalFunctionTest)', () => {
  it('of: the same interval for every attempt; 500 ms by default', () => {
    const f = IntervalFunction.of(250);
    expect([1, 2, 10].map((n) => f(n))).toEqual([250, 250, 250]);
    expect(IntervalFunction.of()(1)).toBe(500);
    expect(IntervalFunction.of('2s')(1)).toBe(2000);
  });

  it('rejects a non-positive interval in every factory', () => {
    const bad: (() => unknown)[] = [
      () => IntervalFunction.of(0),
      () => IntervalFunction.of(-1),
      () => IntervalFunction.ofExponentialBackoff(100, 1, 0),
      () => IntervalFunction.ofExponentialBackoff(100, 1, -1),
      () => IntervalFunction.ofExponentialBackoff(0),
      () => IntervalFunction.ofExponentialRandomBackoff(100, 1, 0.5, 0),
      () => IntervalFunction.ofExponentialRandomBackoff(100, 1, 0.5, -1),
      () => IntervalFunction.ofExponentialRandomBackoff(0),
      () => IntervalFunction.ofRandomized(0),
      () => IntervalFunction.ofDecorrelatedJitter(0, 100),
    ];
    for (const build of bad) expect(build).toThrow(RangeError);
  });

  it('passes positive intervals', () => {
    for (const ms of [10, 99, 981]) {
      expect(() => IntervalFunction.of(ms)).not.toThrow();
      expect(() => IntervalFunction.ofRandomized(ms)).not.toThrow();
      expect(() => IntervalFunction.ofExponentialBackoff(ms)).not.toThrow();
      expect(() => IntervalFunction.ofExponentialRandomBackoff(ms)).not.toThrow();
      expect(() => IntervalFunction.ofExponentialBackoff(ms, 1, ms)).not.toThrow();
      expect(() => IntervalFunction.ofExponentialRandomBackoff(ms, 1, 0.5, ms)).not.toThrow();
    }
  });

  it('rejects an attempt below 1, passes 1 and 2', () => {
    const fns = [
      IntervalFunction.of(),
      IntervalFunction.ofRandomized(),
      IntervalFunction.ofExponentialBackoff(),
      IntervalFunction.ofExponentialRandomBackoff(),
      IntervalFunction.ofDecorrelatedJitter(100, 1000),
    ];
    for (const f of fns) {
      expect(() => f(0)).toThrow('IntervalFunction: attempt must be an integer >= 1, got 0');
      expect(() => f(1.5)).toThrow(RangeError);
      expect(() => f(1)).not.toThrow();
      expect(() => f(2)).not.toThrow();
    }
  });

  it('rejects a randomization factor outside [0, 1], passes the ones inside', () => {
    expect(() => IntervalFunction.ofRandomized(100, -0.0001)).toThrow('IntervalFunction.ofRandomized: randomizationFactor must be in [0, 1], got -0.0001');
    expect(() => IntervalFunction.ofRandomized(100, 1.0001)).toThrow(RangeError);
    expect(() => IntervalFunction.ofExponentialRandomBackoff(100, 1.5, 1.0001)).toThrow(RangeError);
    for (const factor of [0, 0.1, 0.25, 0.5, 0.75, 1]) {
      expect(() => IntervalFunction.ofRandomized(100, factor)).not.toThrow();
      expect(() => IntervalFunction.ofExponentialRandomBackoff(100, 1.5, factor)).not.toThrow();
    }
  });

  it('rejects a multiplier below 1 and passes one just above', () => {
    expect(() => IntervalFunction.ofExponentialBackoff(100, 0.5)).toThrow(
      'IntervalFunction.ofExponentialBackoff: multiplier must be a finite number >= 1, got 0.5',
    );
    expect(() => IntervalFunction.ofExponentialRandomBackoff(100, Number.NaN)).toThrow(RangeError);
    expect(() => IntervalFunction.ofExponentialBackoff(100, 1.0001)).not.toThrow();
    expect(() => IntervalFunction.ofExponentialRandomBackoff(100, 1.0001)).not.toThrow();
  });

  it('names the factory and the argument in a TypeError for a wrong type', () => {
    expect(() => IntervalFunction.of('soon' as never)).toThrow(TypeError);
    expect(() => IntervalFunction.of('soon' as never)).toThrow(
      "IntervalFunction.of: interval must be a duration (ms, or a string like '250ms', '10s'), got 'soon'",
    );
    expect(() => IntervalFunction.ofExponentialBackoff(100, '2' as never)).toThrow(
      "IntervalFunction.ofExponentialBackoff: multiplier must be a number, got '2'",
    );
    expect(() => IntervalFunction.ofRandomized(100, null as never)).toThrow(TypeError);
  });

  it('ofRandomized stays within ± factor', () => {
    const f = IntervalFunction.ofRandomized(100, 0.5);
    for (let i = 1; i < 50; i++) {
      const v = f(i);
      expect(v).toBeGreaterThanOrEqual(50);
      expect(v).toBeLessThanOrEqual(150);
    }
  });

  it('ofExponentialBackoff grows strictly and is capped by max', () => {
    const f = IntervalFunction.ofExponentialBackoff(100, 1.5);
    for (let i = 2, prev = f(1); i < 50; i++) {
      const v = f(i);
      expect(v).toBeGreaterThan(prev);
      prev = v;
    }
    const capped = IntervalFunction.ofExponentialBackoff(100, 2, 100_000);
    for (let i = 2, prev = capped(1); i < 12; i++) {
      const v = capped(i);
      expect(v).toBeGreaterThan(prev);
      prev = v;
    }
    expect(capped(12)).toBe(100_000);
    expect(capped(13)).toBe(100_000);
  });

  it('ofExponentialBackoff truncates at every step, as Java casts to long', () => {
    const f = IntervalFunction.ofExponentialBackoff(333, 1.5);
    // 333 → 499 (499.5) → 748 (748.5) → 1122 → 1683
    expect([1, 2, 3, 4, 5].map((n) => f(n))).toEqual([333, 499, 748, 1122, 1683]);
    // Not round(333 × 1.5^4) = 1686: truncation compounds.
    expect(Math.round(333 * 1.5 ** 4)).toBe(1686);
    // A fixed point: 1 × 1.5 truncates back to 1, for ever.
    expect(IntervalFunction.ofExponentialBackoff(1, 1.5)(1_000_000)).toBe(1);
  });

  it('has Resilience4j defaults: 500 ms, × 1.5, ± 0.5', () => {
    expect([1, 2, 3].map((n) => IntervalFunction.ofExponentialBackoff()(n))).toEqual([500, 750, 1125]);
    const lowest = IntervalFunction.ofExponentialRandomBackoff();
    expect(
      [1, 2, 3].map((n) =>
        lowest(
          n,
          state(() => 0),
        ),
      ),
    ).toEqual([250, 375, 562]);
    expect(
      IntervalFunction.ofRandomized()(
        1,
        state(() => 0),
      ),
    ).toBe(250);
  });

  it('ofExponentialRandomBackoff stays around the exponential sequence', () => {
    const f = IntervalFunction.ofExponentialRandomBackoff(100, 1.5, 0.5);
    let expected = 100;
    for (let i = 1; i < 50; i++) {
      const v = f(i);
      expect(v).toBeGreaterThanOrEqual(Math.trunc(expected * 0.5) - 1);
      expect(v).toBeLessThanOrEqual(Math.trunc(expected * 1.5) + 1);
      expected = Math.trunc(expected * 1.5);
    }
  });

  it('ofExponentialRandomBackoff with max: randomises the uncapped value, then caps it', () => {
    const f = IntervalFunction.ofExponentialRandomBackoff(100, 1.5, 0.5, 100_000);
    let expected = 100;
    for (let i = 1; i < 50; i++) {
      const v = f(i);
      expect(v === 100_000 || (v >= Math.trunc(expected * 0.5) - 1 && v <= Math.trunc(expected * 1.5) + 1)).toBe(true);
      expected = Math.trunc(expected * 1.5);
    }
    // Late attempts are capped, whatever the draw.
    expect(
      f(
        60,
        state(() => 0),
      ),
    ).toBe(100_000);
    expect(
      f(
        2000,
        state(() => 0.5),
      ),
    ).toBe(100_000);
  });

  it('randomised values are never below 1 ms (factor 1 can draw 0)', () => {
    expect(
      IntervalFunction.ofRandomized(10, 1)(
        1,
        state(() => 0),
      ),
    ).toBe(1);
    expect(
      IntervalFunction.ofExponentialRandomBackoff(
        10,
        2,
        1,
      )(
        3,
        state(() => 0),
      ),
    ).toBe(1);
  });

  it('uses the random source it is handed', () => {
    const f = IntervalFunction.ofRandomized(1000, 0.5);
    expect(f(1, state(randoms(0)))).toBe(500);
    expect(f(1, state(randoms(0.5)))).toBe(1000); // 500 + 0.5 × 1001 = 1000.5
    expect(f(1, state(randoms(0.999)))).toBe(1499);
    expect(f(1, state(randoms(1 - 1e-9)))).toBe(1500);
  });

  it('randomises as Resilience4j 2.3+ does: min + random × (max − min + 1), so the top value is reached', () => {
    // IntervalFunctionCompanion.randomize: max(1.0, min + Math.random() * (max - min + 1)), cast to long.
    // The top draw used here: 1 − 1e-9 (a draw within about 1e-14 of 1 can round min + r × (max − min + 1)
    // up to max + 1, in Resilience4j's doubles as in ours: the port keeps that too).
    const top = 1 - 1e-9;
    expect(
      IntervalFunction.ofRandomized(100, 0.5)(
        1,
        state(() => 0),
      ),
    ).toBe(50);
    expect(
      IntervalFunction.ofRandomized(100, 0.5)(
        1,
        state(() => top),
      ),
    ).toBe(150);
    expect(
      IntervalFunction.ofRandomized(1, 0.5)(
        1,
        state(() => 0),
      ),
    ).toBe(1);
    expect(
      IntervalFunction.ofRandomized(1, 0.5)(
        1,
        state(() => top),
      ),
    ).toBe(2); // [0.5, 2.5): 1 or 2, not always 1
    // Factor 0: [interval, interval + 1) truncates back to the interval.
    expect(
      IntervalFunction.ofRandomized(100, 0)(
        1,
        state(() => top),
      ),
    ).toBe(100);
    // ofExponentialRandomBackoff randomises each step the same way: 400 ± 200 at attempt 3.
    expect(
      IntervalFunction.ofExponentialRandomBackoff(
        100,
        2,
        0.5,
      )(
        3,
        state(() => top),
      ),
    ).toBe(600);
    expect(
      IntervalFunction.ofExponentialRandomBackoff(
        100,
        2,
        0.5,
        550,
      )(
        3,
        state(() => top),
      ),
    ).toBe(550);
  });

  it('refuses a maxInterval below the initial interval, naming the factory and the argument', () => {
    expect(() => IntervalFunction.ofExponentialBackoff(100, 2, 50)).toThrow(
      new RangeError('IntervalFunction.ofExponentialBackoff: maxInterval must be >= initialInterval (100 ms), got 50'),
    );
    expect(() => IntervalFunction.ofExponentialRandomBackoff(100, 2, 0.5, '50ms')).toThrow(
      new RangeError("IntervalFunction.ofExponentialRandomBackoff: maxInterval must be >= initialInterval (100 ms), got '50ms'"),
    );
    expect(() => IntervalFunction.ofExponentialBackoff(undefined, 2, 499)).toThrow('maxInterval must be >= initialInterval (500 ms)');
    expect(IntervalFunction.ofExponentialBackoff(100, 2, 100)(3)).toBe(100);
    expect(
      IntervalFunction.ofExponentialRandomBackoff(
        100,
        2,
        0.5,
        100,
      )(
        1,
        state(() => 0),
      ),
    ).toBe(50);
  });
});

describe('IntervalFunction.ofDecorrelatedJitter (AWS)', () => {
  it('draws between base and 3 × the previous wait, capped by max', () => {
    const f = IntervalFunction.ofDecorrelatedJitter(100, 1000);
    expect(
      f(
        1,
        state(() => 0),
      ),
    ).toBe(100);
    expect(
      f(
        1,
        state(() => 0.5),
      ),
    ).toBe(200); // 100 + 0.5 × (300 − 100)
    expect(
      f(
        2,
        state(() => 0.5, 200),
      ),
    ).toBe(350); // 100 + 0.5 × (600 − 100)
    expect(
      f(
        5,
        state(() => 0.99, 900),
      ),
    ).toBe(1000);
    // Without a state (or on attempt 1) the previous wait is base.
    expect(f(3)).toBeGreaterThanOrEqual(100);
    expect(f(3)).toBeLessThan(300);
    expect(
      f(
        1,
        state(() => 0, 5000),
      ),
    ).toBe(100);
  });

  it('refuses max below base', () => {
    expect(() => IntervalFunction.ofDecorrelatedJitter(100, 50)).toThrow('IntervalFunction.ofDecorrelatedJitter: max must be >= base (100 ms), got 50');
    expect(() => IntervalFunction.ofDecorrelatedJitter(100, Infinity)).toThrow(RangeError);
  });
});
