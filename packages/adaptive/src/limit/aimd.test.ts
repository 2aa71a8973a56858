import { describe, expect, it } from 'vitest';
import { aimd } from './aimd.js';

const ok = (rtt: number, inFlight: number) => ({ at: 0, rtt, inFlight, didDrop: false });
const drop = { at: 0, rtt: 0, inFlight: 0, didDrop: true };

describe('aimd: Netflix AIMDLimitTest, in our words', () => {
  it('starts at the initial limit it is given, even one below the default minimum', () => {
    expect(aimd({ initialLimit: 10 }).limit).toBe(10);
  });

  it('a success with half the limit in flight adds one: 20 → 21 (rtt 1 ms, inFlight 10)', () => {
    const a = aimd({ initialLimit: 20 });
    expect(a.onSample(ok(1, 10))).toBe(21);
    expect(a.limit).toBe(21);
  });

  it('a drop multiplies by 0.9, rounded down: 30 → 27', () => {
    const a = aimd({ initialLimit: 30 });
    expect(a.onSample(drop)).toBe(27);
  });

  it('a success at the maximum stays at the maximum (21 of 21)', () => {
    const a = aimd({ initialLimit: 21, maxLimit: 21, minLimit: 1 });
    expect(a.onSample(ok(1, 10))).toBe(21);
  });
});

describe('aimd: the rest of its rule', () => {
  it('defaults: 20 in [20, 200]', () => {
    const a = aimd();
    expect(a.name).toBe('aimd');
    expect(a.limit).toBe(20);
    expect(a.onSample(drop)).toBe(20); // floor(18) raised to minLimit
    for (let i = 0; i < 500; i++) a.onSample(ok(1, 1000));
    expect(a.limit).toBe(200);
  });

  it('does not grow while less than half the limit is in use (9 of 20), grows at exactly half (10 of 20)', () => {
    const a = aimd();
    expect(a.onSample(ok(1, 9))).toBe(20);
    expect(a.onSample(ok(1, 10))).toBe(21);
  });

  it('a call slower than timeout is a drop; one exactly at timeout is not', () => {
    const a = aimd({ initialLimit: 100, timeout: '2s' });
    expect(a.onSample(ok(2000, 100))).toBe(101);
    expect(a.onSample(ok(2000.5, 100))).toBe(90); // floor(101 × 0.9)
  });

  it('backoffRatio 0.5 halves', () => {
    const a = aimd({ initialLimit: 101, minLimit: 1, backoffRatio: 0.5 });
    expect(a.onSample(drop)).toBe(50);
    expect(a.onSample(drop)).toBe(25);
  });

  it('hostile numbers carry no rtt and no in-flight count: NaN, Infinity, negative', () => {
    const a = aimd({ initialLimit: 40, minLimit: 1 });
    expect(a.onSample(ok(Number.NaN, Number.NaN))).toBe(40);
    expect(a.onSample(ok(Number.POSITIVE_INFINITY, -5))).toBe(40);
    expect(a.onSample(ok(-1, Number.POSITIVE_INFINITY))).toBe(40);
    expect(a.onSample(ok(Number.NaN, 20))).toBe(41); // a success without a latency is still a success
  });
});

describe('aimd: options checked at construction', () => {
  it.each([
    [{ backoffRatio: 1 }, RangeError, 'aimd: backoffRatio must be in [0.5, 1), got 1'],
    [{ backoffRatio: 0.4 }, RangeError, 'aimd: backoffRatio must be in [0.5, 1], got 0.4'],
    [{ backoffRatio: '0.9' }, TypeError, "aimd: backoffRatio must be a number, got '0.9'"],
    [{ timeout: 0 }, RangeError, 'aimd: timeout must be > 0, got 0'],
    [{ timeout: '5 sec' }, TypeError, "aimd: timeout must be a duration (ms, or a string like '250ms', '10s', '1.5m', '2h'), got '5 sec'"],
    [{ minLimit: 0 }, RangeError, 'aimd: minLimit must be an integer >= 1, got 0'],
    [{ initialLimit: 2.5 }, RangeError, 'aimd: initialLimit must be an integer >= 1, got 2.5'],
    [{ minLimit: 50, maxLimit: 10 }, RangeError, 'aimd: maxLimit must be an integer >= minLimit (50), got 10'],
    [{ initialLimit: 300, maxLimit: 250 }, RangeError, 'aimd: initialLimit must be an integer in [minLimit, maxLimit] = [20, 250], got 300'],
    [{ intialLimit: 5 }, TypeError, "aimd: unknown option 'intialLimit' (did you mean 'initialLimit'?)"],
  ])('%o', (options, kind, message) => {
    expect(() => aimd(options as never)).toThrow(kind);
    expect(() => aimd(options as never)).toThrow(message);
  });

  it('an option not given moves to fit those given', () => {
    expect(aimd({ initialLimit: 500 }).limit).toBe(500); // maxLimit raised to 500
    expect(aimd({ minLimit: 50 }).limit).toBe(50); // initialLimit raised to 50
    expect(aimd({ maxLimit: 10 }).limit).toBe(10); // minLimit and initialLimit lowered to 10
    expect(aimd({ timeout: '1.5s' }).onSample({ at: 0, rtt: 1501, inFlight: 0, didDrop: false })).toBe(20);
  });
});
