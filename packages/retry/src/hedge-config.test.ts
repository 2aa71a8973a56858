import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { Hedge, HEDGE_OPTIONS, HedgeRegistry, resolveHedgeConfig, RetryBudget } from './index.js';

describe('Hedge: bad configuration (contract: docs/hedging.md)', () => {
  it.each([
    [{ maxHedgedAttempts: 0 }, RangeError, "Hedge 'search': maxHedgedAttempts must be an integer in [1, 10], got 0"],
    [{ maxHedgedAttempts: 11 }, RangeError, "Hedge 'search': maxHedgedAttempts must be an integer in [1, 10], got 11"],
    [{ maxHedgedAttempts: 1.5 }, RangeError, "Hedge 'search': maxHedgedAttempts must be an integer in [1, 10], got 1.5"],
    [{ maxHedgedAttempts: '2' }, TypeError, "Hedge 'search': maxHedgedAttempts must be a number, got '2'"],
    [
      { delay: Infinity },
      RangeError,
      "Hedge 'search': delay must be a finite duration (ms; negative: only after a failure; or a string like '150ms') or { percentile, window?, minSamples?, initial? }, got Infinity",
    ],
    [{ delay: -Infinity }, RangeError, "Hedge 'search': delay must be a finite duration"],
    [{ delay: Number.NaN }, TypeError, "Hedge 'search': delay must be a finite duration"],
    [{ delay: 'soon' }, TypeError, "Hedge 'search': delay must be a finite duration"],
    [
      { delay: [100] },
      TypeError,
      "Hedge 'search': delay must be a finite duration (ms; negative: only after a failure; or a string like '150ms') or { percentile, window?, minSamples?, initial? }, got an array",
    ],
    [{ delay: {} }, TypeError, "Hedge 'search': delay: percentile must be a number in (0, 1), got undefined"],
    [{ delay: { percentile: 0 } }, RangeError, "Hedge 'search': delay: percentile must be in (0, 1), got 0"],
    [{ delay: { percentile: 1 } }, RangeError, "Hedge 'search': delay: percentile must be in (0, 1), got 1"],
    [{ delay: { percentile: 95 } }, RangeError, "Hedge 'search': delay: percentile must be in (0, 1), got 95"],
    [{ delay: { percentile: '0.9' } }, TypeError, "Hedge 'search': delay: percentile must be a number, got '0.9'"],
    [{ delay: { percentile: 0.9, window: 5 } }, RangeError, "Hedge 'search': delay: window must be >= 10, got 5"],
    [{ delay: { percentile: 0.9, window: Infinity } }, RangeError, "Hedge 'search': delay: window must be a finite duration >= 10 ms, got Infinity"],
    [{ delay: { percentile: 0.9, minSamples: 0 } }, RangeError, "Hedge 'search': delay: minSamples must be an integer >= 1, got 0"],
    [{ delay: { percentile: 0.9, initial: -1 } }, RangeError, "Hedge 'search': delay: initial must be >= 0, got -1"],
    [{ delay: { percentile: 0.9, initial: Infinity } }, RangeError, "Hedge 'search': delay: initial must be a finite duration >= 0, got Infinity"],
    [{ delay: { percentile: 0.9, p: 1 } }, TypeError, "Hedge 'search': delay: unknown option 'p' (known options: percentile, window, minSamples, initial)"],
    [{ shouldHandle: true }, TypeError, "Hedge 'search': shouldHandle must be a function, got true"],
    [{ onHedging: 'log' }, TypeError, "Hedge 'search': onHedging must be a function, got 'log'"],
    [{ budget: { ratio: 0.1 } }, TypeError, "Hedge 'search': budget must be a RetryBudget, got an object"],
    [{ clock: Date }, TypeError, "Hedge 'search': clock must be a Clock (now, setTimeout, clearTimeout), got a function"],
    [{ maxHedgeAttempts: 2 }, TypeError, "Hedge 'search': unknown option 'maxHedgeAttempts' (did you mean 'maxHedgedAttempts'?)"],
  ])('%o throws %s', (config, kind, message) => {
    expect(() => new Hedge('search', config as never)).toThrow(kind);
    expect(() => new Hedge('search', config as never)).toThrow(message);
  });

  it('refuses a name that is not a non-empty string, and a config that is not an object', () => {
    expect(() => new Hedge('')).toThrow("Hedge: name must be a non-empty string, got ''");
    expect(() => new Hedge('search', 3 as never)).toThrow("Hedge 'search': config must be a plain object of options, got 3");
  });
});

describe('Hedge: resolved configuration', () => {
  it('applies the defaults', () => {
    const config = resolveHedgeConfig('search', undefined);
    expect(config).toMatchObject({
      maxHedgedAttempts: 1,
      delay: { kind: 'fixed', ms: 2000 },
      shouldHandle: undefined,
      onHedging: undefined,
      budget: undefined,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    ['150ms', { kind: 'fixed', ms: 150 }],
    ['2s', { kind: 'fixed', ms: 2000 }],
    [0, { kind: 'fixed', ms: 0 }],
    [-0, { kind: 'fixed', ms: 0 }],
    [-1, { kind: 'fixed', ms: -1 }],
    [{ percentile: 0.95 }, { kind: 'percentile', percentile: 0.95, windowMs: 60_000, minSamples: 20, initialMs: 2000 }],
    [
      { percentile: 0.5, window: '10s', minSamples: 5, initial: '100ms' },
      { kind: 'percentile', percentile: 0.5, windowMs: 10_000, minSamples: 5, initialMs: 100 },
    ],
  ])('reads delay %o', (delay, expected) => {
    expect(new Hedge('search', { delay: delay as never }).config.delay).toEqual(expected);
  });

  it('lists every option', () => {
    expect([...HEDGE_OPTIONS]).toEqual(['maxHedgedAttempts', 'delay', 'shouldHandle', 'onHedging', 'budget', 'clock']);
  });

  it('Hedge.of is new Hedge; kind and name', () => {
    const hedge = Hedge.of('search', { maxHedgedAttempts: 2 });
    expect(hedge).toBeInstanceOf(Hedge);
    expect([hedge.kind, hedge.name, hedge.config.maxHedgedAttempts]).toEqual(['hedge', 'search', 2]);
    expect(hedge.metrics.winsByAttempt).toEqual([0, 0, 0]);
  });
});

describe('HedgeRegistry', () => {
  it('gets or creates named hedges from shared configs, and checks every config at construction', () => {
    const clock = new VirtualClock();
    const budget = new RetryBudget({ clock });
    const hedges = new HedgeRegistry({ defaultConfig: { clock, budget }, configs: { eager: { clock, delay: 0, maxHedgedAttempts: 2 } } });
    const search = hedges.get('search');
    expect(hedges.get('search')).toBe(search);
    expect(search.config.budget).toBe(budget);
    expect(hedges.get('lookup', 'eager').config).toMatchObject({ delay: { kind: 'fixed', ms: 0 }, maxHedgedAttempts: 2 });
    expect(() => new HedgeRegistry({ configs: { bad: { maxHedgedAttempts: 0 } } })).toThrow(
      "Hedge 'bad': maxHedgedAttempts must be an integer in [1, 10], got 0",
    );
  });
});
