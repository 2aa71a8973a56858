import { describe, expect, it } from 'vitest';
import { gradient2 } from './gradient2.js';

const ok = (rtt: number, inFlight: number) => ({ at: 0, rtt, inFlight, didDrop: false });
const drop = (inFlight: number) => ({ at: 0, rtt: 0, inFlight, didDrop: true });

/** Netflix's Gradient2Limit as written (defaults; no drops), the reference the creep is measured against. */
function netflixGradient2() {
  let estimate = 20;
  let long = 0;
  let count = 0;
  const limit = () => Math.floor(estimate);
  return {
    get limit() {
      return limit();
    },
    onSample(rtt: number, inFlight: number): number {
      if (count < 10) long += (rtt - long) / ++count;
      else long += ((rtt - long) * 2) / 601;
      const seen = long;
      if (long / rtt > 2) long *= 0.95;
      if (inFlight < estimate / 2) return limit();
      const gradient = Math.max(0.5, Math.min(1, (1.5 * seen) / rtt));
      estimate = Math.max(20, Math.min(200, estimate * 0.8 + (estimate * gradient + 4) * 0.2));
      return limit();
    },
  };
}

/** Ten app-limited samples at `rtt`: the long-term average's warm-up, the limit untouched. */
function warm(g: ReturnType<typeof gradient2>, rtt: number): void {
  for (let i = 0; i < 10; i++) g.onSample(ok(rtt, 0));
}

describe('gradient2: Netflix Gradient2Limit', () => {
  it('defaults: 20 in [20, 200]', () => {
    const g = gradient2();
    expect(g.name).toBe('gradient2');
    expect(g.limit).toBe(20);
    for (let i = 0; i < 400; i++) g.onSample(ok(10, 1000));
    expect(g.limit).toBe(200);
    for (let i = 0; i < 100; i++) g.onSample(drop(200));
    expect(g.limit).toBe(20);
  });

  it('no overload (rtt steady): + smoothing · queueSize a sample, 50 → 50.8 → 51.6 …', () => {
    const g = gradient2({ initialLimit: 50 });
    expect([1, 2, 3, 4, 5].map(() => g.onSample(ok(10, 50)))).toEqual([50, 51, 52, 53, 54]);
  });

  it('an rtt over rttTolerance · the long-term rtt shrinks the limit by the gradient, without the headroom', () => {
    const g = gradient2({ initialLimit: 100 });
    warm(g, 10);
    expect(g.limit).toBe(100);
    expect(g.onSample(ok(30, 100))).toBe(90); // gradient 1.5·10/30 = 0.5: 0.8·100 + 0.2·50 = 90
    expect(g.onSample(ok(30, 100))).toBe(81); // 0.9 · 90
    expect(g.onSample(ok(15, 100))).toBe(81); // 1.5·10/15 = 1: 0.8·81 + 0.2·85 = 81.8
    expect(g.onSample(ok(12, 100))).toBe(82); // 82.6
    expect(g.onSample(ok(20, 100))).toBe(78); // 0.75: 0.8·82.6 + 0.2·61.95 = 78.47
  });

  it('fewer than half the limit in flight: the limit holds, however slow the calls', () => {
    const g = gradient2({ initialLimit: 100 });
    warm(g, 10);
    expect(g.onSample(ok(1000, 49))).toBe(100);
    expect(g.onSample(ok(1000, 50))).toBe(90);
  });
});

describe('gradient2: a drop backs off (Netflix #176)', () => {
  it('a drop is a gradient of 0.5: × 0.9 with smoothing 0.2, like AIMD — even with no rtt and little in flight', () => {
    const g = gradient2({ initialLimit: 100 });
    expect(g.onSample(drop(0))).toBe(90);
    expect(g.onSample(drop(0))).toBe(81);
    expect(g.onSample({ at: 0, rtt: Number.NaN, inFlight: 0, didDrop: true })).toBe(72); // 72.9
  });

  it("a drop's rtt is not learned: a time-out of 5 s leaves the long-term rtt at 10", () => {
    const g = gradient2({ initialLimit: 100 });
    warm(g, 10);
    g.onSample({ at: 0, rtt: 5000, inFlight: 100, didDrop: true });
    expect(g.limit).toBe(90);
    expect(g.onSample(ok(30, 100))).toBe(81); // still 1.5·10/30 = 0.5
  });
});

describe('gradient2: no creep under overload (PR #134)', () => {
  it('a steady overload signal (every rtt 1.875 × the long-term rtt, gradient 0.8) only lowers the limit', () => {
    const g = gradient2({ initialLimit: 5, minLimit: 1 });
    warm(g, 10);
    const seen = Array.from({ length: 35 }, () => g.onSample(ok(18.75, 5)));
    // Ours: 0.8·L + 0.2·0.8·L = 0.96·L a sample (5 · 0.96^35 = 1.2: still above the minimum).
    let model = 5;
    const expected = seen.map(() => {
      model *= 0.96;
      return Math.floor(model);
    });
    expect(seen).toEqual(expected);
    expect(seen.slice(-3)).toEqual([1, 1, 1]);
    // Netflix's rule adds queueSize whatever the gradient: 0.96·L + 0.8, rising toward its fixed point 20.
    let netflix = 5;
    const theirs = seen.map(() => Math.floor((netflix = 0.96 * netflix + 0.8)));
    expect(theirs.slice(-3)).toEqual([16, 16, 16]);
  });

  it('at the minimum limit, an rtt still too slow becomes the baseline: a floor that rose is not waited out', () => {
    const g = gradient2({ initialLimit: 22 });
    warm(g, 10);
    // A deploy doubles the floor: rtt 20 against a baseline of 10, gradient 0.75: × 0.95 a sample.
    expect(g.onSample(ok(20, 22))).toBe(20); // 20.9
    expect(g.onSample(ok(20, 22))).toBe(20); // 19.855, held at the minimum
    expect(g.onSample(ok(20, 22))).toBe(20); // at the minimum and still too slow: the baseline is now 20
    expect([1, 2, 3].map(() => g.onSample(ok(20, 22)))).toEqual([20, 21, 22]); // gradient 1 again: 20.8, 21.6, 22.4
  });

  it('against a backend that slows with concurrency, the limit settles where the rtt is rttTolerance × its floor and stays', () => {
    // 50 calls at once at 10 ms, slower beyond: rtt = 10 · max(1, L / 50); demand always fills the limit.
    const g = gradient2();
    const limits: number[] = [];
    for (let i = 0; i < 3000; i++) limits.push(g.onSample(ok(10 * Math.max(1, g.limit / 50), g.limit)));
    const settled = limits.slice(200);
    expect(Math.min(...settled)).toBe(75);
    expect(Math.max(...settled)).toBe(76); // rtt ≤ 15.2 ms: 1.52 × the floor, for 2800 samples
    // Netflix's rule on the same backend: its long-term rtt learns the latency its own limit causes,
    // the gradient returns to 1, queueSize is added again, and the limit creeps to the maximum.
    const netflix = netflixGradient2();
    const theirs: number[] = [];
    for (let i = 0; i < 3000; i++) theirs.push(netflix.onSample(10 * Math.max(1, netflix.limit / 50), netflix.limit));
    expect([100, 200, 500, 1000, 2999].map((i) => theirs[i])).toEqual([85, 101, 170, 200, 200]); // rtt 4 × the floor
  });
});

describe('gradient2: hostile numbers and options', () => {
  it('NaN, Infinity, 0 and negative rtts without a drop are not samples', () => {
    const g = gradient2({ initialLimit: 100 });
    warm(g, 10);
    for (const rtt of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, -1]) expect(g.onSample(ok(rtt, 100))).toBe(100);
    expect(g.onSample(ok(30, 100))).toBe(90); // the long-term rtt is still 10
  });

  it.each([
    [{ smoothing: 0 }, RangeError, 'gradient2: smoothing must be in (0, 1], got 0'],
    [{ queueSize: -1 }, RangeError, 'gradient2: queueSize must be an integer >= 0, got -1'],
    [{ longWindow: 0.5 }, RangeError, 'gradient2: longWindow must be an integer >= 1, got 0.5'],
    [{ rttTolerance: 0.9 }, RangeError, 'gradient2: rttTolerance must be >= 1, got 0.9'],
    [{ rttTolerance: Number.POSITIVE_INFINITY }, RangeError, 'gradient2: rttTolerance must be a finite number >= 1, got Infinity'],
    [{ minLimit: 30, initialLimit: 25 }, RangeError, 'gradient2: initialLimit must be an integer in [minLimit, maxLimit] = [30, 200], got 25'],
    [{ queue: 4 }, TypeError, "gradient2: unknown option 'queue'"],
  ])('%o', (options, kind, message) => {
    expect(() => gradient2(options as never)).toThrow(kind);
    expect(() => gradient2(options as never)).toThrow(message);
  });
});
