import { describe, expect, it } from 'vitest';
import { vegas } from './vegas.js';

const ok = (rtt: number, inFlight: number) => ({ at: 0, rtt, inFlight, didDrop: false });
const drop = (inFlight = 0) => ({ at: 0, rtt: 0, inFlight, didDrop: true });
/** The probe as late as it goes (jitter 1): 30 · limit samples. */
const late = () => 0.999_999;

describe('vegas: Netflix VegasLimitTest, in our words', () => {
  // Netflix's fixture: initial 10, max 20, smoothing 1 (α 3, β 6 there are also our defaults at a limit of 10).
  const fixture = () => vegas({ initialLimit: 10, maxLimit: 20, random: late });

  it('a large limit grows by β = 6·log10: 10000 holds on the first rtt (10 s, 5000 in flight), then 10024 (10 s, 6000)', () => {
    const v = vegas({ initialLimit: 10000, maxLimit: 20000, random: late });
    expect(v.onSample(ok(10_000, 5000))).toBe(10000);
    expect(v.onSample(ok(10_000, 6000))).toBe(10024);
  });

  it('no queue: + β (10 → 16)', () => {
    const v = fixture();
    expect(v.onSample(ok(10, 10))).toBe(10);
    expect(v.onSample(ok(10, 11))).toBe(16);
  });

  it('a long queue (rtt 50 against 10: ⌈10 · 0.8⌉ = 8 > β): − log10 (10 → 9)', () => {
    const v = fixture();
    expect(v.onSample(ok(10, 10))).toBe(10);
    expect(v.onSample(ok(50, 11))).toBe(9);
  });

  it('a queue within [α, β] (rtt 14: ⌈10 · 4/14⌉ = 3): unchanged', () => {
    const v = fixture();
    expect(v.onSample(ok(10, 10))).toBe(10);
    expect(v.onSample(ok(14, 14))).toBe(10);
  });

  it('smoothing 0.5 takes half of each step: 100 → 99 → 98 (a queue of 50 at rtt 20 against 10)', () => {
    // Netflix's test halves the limit with a custom decrease function; ours has the default step, − log10.
    const v = vegas({ initialLimit: 100, maxLimit: 200, smoothing: 0.5, random: late });
    expect(v.onSample(ok(10, 100))).toBe(100);
    expect(v.onSample(ok(20, 100))).toBe(99); // 0.5·100 + 0.5·98
    expect(v.onSample(ok(20, 100))).toBe(98); // 0.5·99 + 0.5·98 = 98.5
  });

  it('without smoothing each step is whole: 100 → 98 (log10 100 = 2), then − 1 a step under 100: 97, 96', () => {
    const v = vegas({ initialLimit: 100, maxLimit: 200, random: late });
    expect(v.onSample(ok(10, 100))).toBe(100);
    expect(v.onSample(ok(20, 100))).toBe(98);
    expect(v.onSample(ok(20, 100))).toBe(97);
    expect(v.onSample(ok(20, 100))).toBe(96);
  });
});

describe('vegas: the rest of its rule', () => {
  it('defaults: 20 in [1, 1000]; the first rtt only sets the no-load rtt', () => {
    const v = vegas({ random: late });
    expect(v.name).toBe('vegas');
    expect(v.limit).toBe(20);
    expect(v.onSample(ok(10, 20))).toBe(20);
    expect(v.onSample(ok(10, 20))).toBe(26); // + β
    for (let i = 0; i < 100; i++) v.onSample(drop());
    expect(v.limit).toBe(1);
  });

  it('a queue ≤ log10: + β; under α: + log10; a lower rtt replaces the no-load rtt and holds', () => {
    const v = vegas({ initialLimit: 30, random: late });
    expect(v.onSample(ok(100, 30))).toBe(30);
    expect(v.onSample(ok(103, 30))).toBe(36); // ⌈30 · 3/103⌉ = 1 ≤ 1: + 6
    expect(v.onSample(ok(105, 36))).toBe(37); // ⌈36 · 5/105⌉ = 2 < 3: + 1
    expect(v.onSample(ok(90, 37))).toBe(37); // new no-load rtt
    expect(v.onSample(ok(90, 37))).toBe(43);
  });

  it('fewer than half the limit in flight: no growth, even with no queue', () => {
    const v = vegas({ initialLimit: 20, random: late });
    v.onSample(ok(10, 20));
    expect(v.onSample(ok(10, 9))).toBe(20);
    expect(v.onSample(ok(10, 10))).toBe(26);
  });

  it('a drop lowers by log10 whatever the rtt, and its rtt never becomes the no-load rtt', () => {
    const v = vegas({ initialLimit: 20, random: late });
    v.onSample(ok(10, 20));
    expect(v.onSample({ at: 0, rtt: 0.5, inFlight: 20, didDrop: true })).toBe(19); // a fast 429
    expect(v.onSample(ok(10, 20))).toBe(25); // still no queue against 10, not a queue against 0.5
  });

  it('re-probes the no-load rtt after U(0.5, 1) · probeMultiplier · limit samples: a floor that rose is found again', () => {
    const v = vegas({ initialLimit: 20, probeMultiplier: 2, random: () => 0 }); // probe after 0.5 · 2 · limit samples
    expect(v.onSample(ok(10, 20))).toBe(20); // sample 1: no-load 10
    // The floor doubles (a deploy): a queue of ⌈L/2⌉ is read where there is none.
    expect(v.onSample(ok(20, 20))).toBe(19); // 2: ⌈20·0.5⌉ = 10 > 6
    const seen: number[] = [];
    for (let i = 3; i <= 16; i++) seen.push(v.onSample(ok(20, 20)));
    // − 1 a sample down to 12, where the false queue ⌈12 · 0.5⌉ = 6 is within β: it would hold there.
    expect(seen.slice(0, 7)).toEqual([18, 17, 16, 15, 14, 13, 12]); // samples 3–9
    // Samples 10, 11 hold; sample 12 meets the probe (12 ≥ 0.5 · 2 · 12) and takes 20 as the no-load rtt.
    expect(seen.slice(7, 10)).toEqual([12, 12, 12]);
    expect(seen.slice(10)).toEqual([18, 24, 30, 36]); // no queue against 20: + β each
  });

  it('a floor that rose is found at once when halving the limit did not make the rtt fall (Netflix #37)', () => {
    const v = vegas({ initialLimit: 60, random: late }); // the periodic probe is 30 · limit samples away
    expect(v.onSample(ok(10, 60))).toBe(60); // no-load 10
    // A deploy doubles the floor: every rtt is 20 whatever the limit; Vegas reads a queue of ⌈L/2⌉.
    const seen: number[] = [];
    for (let i = 2; i <= 33; i++) seen.push(v.onSample(ok(20, 100)));
    expect(seen.slice(0, 30)).toEqual(Array.from({ length: 30 }, (_, i) => 59 - i)); // samples 2–31: 59 … 30
    expect(seen[30]).toBe(30); // sample 32: the limit has halved (60 → 30), the rtt has not fallen: probe, no-load 20
    expect(seen[31]).toBe(36); // no queue against the new floor: + β
  });

  it('a real queue drains as the limit falls: no early probe', () => {
    // A backend serving 20 at once at 10 ms: rtt = 10 · max(1, L / 20).
    const v = vegas({ initialLimit: 60, random: late });
    expect(v.onSample(ok(10, 60))).toBe(60);
    let limit = v.limit;
    const seen: number[] = [];
    for (let i = 0; i < 60; i++) {
      limit = v.onSample(ok(10 * Math.max(1, limit / 20), 100));
      seen.push(limit);
    }
    // − 1 a sample while the queue ⌈L · (1 − 20/L)⌉ = L − 20 is over β = 6, then it holds at 26: halved, never probed.
    expect(seen.slice(0, 34)).toEqual(Array.from({ length: 34 }, (_, i) => 59 - i));
    expect(new Set(seen.slice(34))).toEqual(new Set([26]));
  });

  it('hostile numbers neither move nor poison it', () => {
    const v = vegas({ initialLimit: 20, random: late });
    for (const rtt of [Number.NaN, Number.POSITIVE_INFINITY, -3, 0]) expect(v.onSample(ok(rtt, 20))).toBe(20);
    expect(v.onSample(ok(10, Number.NaN))).toBe(20); // sets the no-load rtt
    expect(v.onSample(ok(10, Number.NaN))).toBe(20); // in flight unknown: read as 0, app-limited
    expect(v.onSample(ok(10, 20))).toBe(26);
  });

  it('a random that returns nonsense is brought into [0, 1] (NaN: the longest wait)', () => {
    for (const r of [Number.NaN, 7, -7, Number.POSITIVE_INFINITY]) {
      // probeMultiplier 1, limit 4: jitter 1 probes at 4 samples, jitter 0.5 at 2.
      const v = vegas({ initialLimit: 4, minLimit: 4, maxLimit: 4, probeMultiplier: 1, random: () => r });
      v.onSample(ok(10, 4)); // count 1: no-load 10
      v.onSample(ok(30, 4)); // count 2: probes when the jitter is 0.5
      v.onSample(ok(30, 4)); // count 3
      v.onSample(ok(5, 4)); //  count 4: probes when the jitter is 1 (no-load 5), else a lower rtt (no-load 5)
      expect(v.limit).toBe(4);
    }
  });

  it('a random that throws is reported once and the probe waits its longest', async () => {
    const thrower = () => {
      throw new Error('no entropy');
    };
    const warnings: Error[] = [];
    const listen = (w: Error) => warnings.push(w);
    process.on('warning', listen);
    try {
      const v = vegas({ initialLimit: 20, random: thrower });
      expect(v.onSample(ok(10, 20))).toBe(20);
      expect(v.onSample(ok(10, 20))).toBe(26);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listen);
    }
    expect(warnings.map((w) => [w.name, w.message.split('\n')[0]])).toEqual([
      ['BreakwaterCallbackWarning', 'vegas: random threw; the probe waits its longest (as if it returned 1) (reported once): Error: no entropy'],
    ]);
  });
});

describe('vegas: options checked at construction', () => {
  it.each([
    [{ smoothing: 0 }, RangeError, 'vegas: smoothing must be in (0, 1], got 0'],
    [{ probeMultiplier: 0 }, RangeError, 'vegas: probeMultiplier must be an integer >= 1, got 0'],
    [{ random: 0.5 }, TypeError, 'vegas: random must be a function, got 0.5'],
    [{ maxLimit: 0 }, RangeError, 'vegas: maxLimit must be an integer >= 1, got 0'],
    [{ initialLimit: 2000 }, undefined, undefined],
    [{ initialLimit: 5, minLimit: 10 }, RangeError, 'vegas: initialLimit must be an integer in [minLimit, maxLimit] = [10, 1000], got 5'],
    [{ alpha: 3 }, TypeError, "vegas: unknown option 'alpha'"],
  ])('%o', (options, kind, message) => {
    if (kind === undefined) expect(() => vegas(options as never)).not.toThrow();
    else {
      expect(() => vegas(options as never)).toThrow(kind);
      expect(() => vegas(options as never)).toThrow(message);
    }
  });
});
