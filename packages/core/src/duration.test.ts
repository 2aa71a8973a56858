import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';

describe('parseDuration', () => {
  it('returns a number as it is, fractions, zero, negatives and Infinity included', () => {
    expect(parseDuration(250)).toBe(250);
    expect(parseDuration(0.5)).toBe(0.5);
    expect(parseDuration(0)).toBe(0);
    expect(parseDuration(-3)).toBe(-3);
    expect(parseDuration(Infinity)).toBe(Infinity);
  });

  it('refuses NaN', () => {
    expect(parseDuration(Number.NaN)).toBeUndefined();
  });

  it.each([
    ['250ms', 250],
    ['0ms', 0],
    ['10s', 10_000],
    ['1m', 60_000],
    ['2h', 7_200_000],
    ['1.5m', 90_000],
    ['0.5s', 500],
    ['.5s', 500],
    ['2.5ms', 2.5],
    ['1.25h', 4_500_000],
    ['1.001s', 1001],
    ['4.35s', 4350],
    ['2.3h', 8_280_000],
    ['1.15m', 69_000],
    ['007s', 7000],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it('allows whitespace around the value and between the number and the unit', () => {
    expect(parseDuration(' 10s ')).toBe(10_000);
    expect(parseDuration('10 s')).toBe(10_000);
    expect(parseDuration('\t1.5 m\n')).toBe(90_000);
  });

  it.each([
    '',
    ' ',
    '250',
    '10',
    'ms',
    's10',
    '-1s',
    '+1s',
    '1e3ms',
    '1.s',
    '1..5s',
    '1,5s',
    '10sec',
    '10 sec',
    '10S',
    '10MS',
    '1d',
    '1w',
    '10 s s',
    'soon',
    'Infinity s',
    'NaNms',
  ])('refuses the string %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it.each([undefined, null, true, {}, [], [10], () => 10, 10n, Symbol('10s')])('refuses the non-duration %s', (value) => {
    expect(parseDuration(value)).toBeUndefined();
  });

  it('agrees with the decimal value for any whole number of a unit', () => {
    const units = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
    fc.assert(
      fc.property(fc.nat({ max: 10_000_000 }), fc.constantFrom('ms', 's', 'm', 'h'), (n, unit) => {
        expect(parseDuration(`${n}${unit}`)).toBe(n * units[unit]);
      }),
      { numRuns: 200 },
    );
  });

  it('reads milliseconds with up to three decimals of a second exactly', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000_000 }), (ms) => {
        const text = `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}s`;
        expect(parseDuration(text)).toBe(ms);
      }),
      { numRuns: 200 },
    );
  });
});
