import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import {
  BehaviorInjection,
  CHAOS_OPTIONS,
  FaultInjection,
  LatencyInjection,
  OutcomeInjection,
  behaviorInjection,
  faultInjection,
  latencyInjection,
  outcomeInjection,
  resolveLatencyInjectionConfig,
} from './index.js';

// Bad options fail at construction, naming the component, the option, the value and what is valid
// (contract: docs/chaos.md).

describe('defaults', () => {
  it('rate 0.001 (Polly), enabled false (unlike Polly), Math.random, systemClock; latency 30 s', () => {
    const f = new FaultInjection('pg', { fault: new Error('x') });
    expect(f.config.rate).toBe(0.001);
    expect(f.config.enabled).toBe(false);
    expect(f.config.random).toBe(Math.random);
    expect(f.config.clock.now()).toBeGreaterThan(0);
    expect(new LatencyInjection('pg').config.latency).toBe(30_000);
    expect(resolveLatencyInjectionConfig('pg', { latency: '1.5s' }).latency).toBe(1500);
  });

  it('kind, strategy and name of each; the factories name a strategy after it unless told', () => {
    const made = [faultInjection({ fault: 1 }), latencyInjection(), outcomeInjection({ outcome: 1 }), behaviorInjection({ behavior: () => {} })];
    expect(made.map((c) => [c.kind, c.strategy, c.name])).toEqual([
      ['chaos', 'fault', 'fault'],
      ['chaos', 'latency', 'latency'],
      ['chaos', 'outcome', 'outcome'],
      ['chaos', 'behavior', 'behavior'],
    ]);
    expect(faultInjection({ name: 'pg', fault: 1, rate: 0.5 }).name).toBe('pg');
    expect(faultInjection({ name: 'pg', fault: 1, rate: 0.5 }).config.rate).toBe(0.5);
    expect(latencyInjection({ name: 'slow', latency: 5 }).config.latency).toBe(5);
  });

  it('functions for rate, enabled, latency, fault and outcome are kept as given', () => {
    const rate = () => 0.5;
    const enabled = () => true;
    const latency = () => 10;
    const fault = () => new Error('x');
    const outcome = () => 1;
    expect(new FaultInjection('a', { rate, enabled, fault }).config).toMatchObject({ rate, enabled, fault });
    expect(new LatencyInjection('a', { latency }).config.latency).toBe(latency);
    expect(new OutcomeInjection('a', { outcome }).config.outcome).toBe(outcome);
  });

  it('CHAOS_OPTIONS lists each strategy’s keys', () => {
    expect(CHAOS_OPTIONS).toEqual({
      fault: ['fault', 'rate', 'enabled', 'random', 'clock'],
      latency: ['latency', 'rate', 'enabled', 'random', 'clock'],
      outcome: ['outcome', 'rate', 'enabled', 'random', 'clock'],
      behavior: ['behavior', 'rate', 'enabled', 'random', 'clock'],
    });
  });
});

describe('bad options', () => {
  const fault = new Error('x');
  it.each([
    [() => new FaultInjection('pg', { fault, rate: 2 }), RangeError, "FaultInjection 'pg': rate must be in [0, 1], got 2"],
    [() => new FaultInjection('pg', { fault, rate: -0.1 }), RangeError, "FaultInjection 'pg': rate must be in [0, 1], got -0.1"],
    [() => new FaultInjection('pg', { fault, rate: Number.NaN }), RangeError, "FaultInjection 'pg': rate must be in [0, 1], got NaN"],
    [
      () => new FaultInjection('pg', { fault, rate: '0.5' as never }),
      TypeError,
      "FaultInjection 'pg': rate must be a number in [0, 1] or a function of the call returning one, got '0.5'",
    ],
    [
      () => new OutcomeInjection('pg', { outcome: 1, enabled: 'yes' as never }),
      TypeError,
      "OutcomeInjection 'pg': enabled must be true, false or a function of the call returning one, got 'yes'",
    ],
    [() => new LatencyInjection('pg', { random: 0.5 as never }), TypeError, "LatencyInjection 'pg': random must be a function, got 0.5"],
    [
      () => new LatencyInjection('pg', { clock: {} as never }),
      TypeError,
      "LatencyInjection 'pg': clock must be a Clock (now, setTimeout, clearTimeout), got an object",
    ],
    [() => new LatencyInjection('pg', { latency: -1 }), RangeError, "LatencyInjection 'pg': latency must be >= 0, got -1"],
    [
      () => new LatencyInjection('pg', { latency: Number.POSITIVE_INFINITY }),
      RangeError,
      "LatencyInjection 'pg': latency must be a finite duration >= 0 (or a function of the call returning one), got Infinity",
    ],
    [
      () => new LatencyInjection('pg', { latency: 'soon' as never }),
      TypeError,
      "LatencyInjection 'pg': latency must be a duration (ms, or a string like '250ms', '10s', '1.5m', '2h'), got 'soon'",
    ],
    [
      () => new FaultInjection('pg', {} as never),
      TypeError,
      "FaultInjection 'pg': fault must be given (an error, or a function of the call returning one), got undefined",
    ],
    [
      () => new FaultInjection('pg', undefined as never),
      TypeError,
      "FaultInjection 'pg': fault must be given (an error, or a function of the call returning one), got undefined",
    ],
    [
      () => new OutcomeInjection('pg', { outcome: undefined }),
      TypeError,
      "OutcomeInjection 'pg': outcome must be given (a result, or a function of the call returning one; () => undefined for an undefined result), got undefined",
    ],
    [() => new BehaviorInjection('pg', { behavior: 'crash' as never }), TypeError, "BehaviorInjection 'pg': behavior must be a function, got 'crash'"],
    [
      () => new BehaviorInjection('pg', {} as never),
      TypeError,
      "BehaviorInjection 'pg': behavior must be a function of the call (run before it), got undefined",
    ],
    [() => new FaultInjection('', { fault }), TypeError, "FaultInjection: name must be a non-empty string, got ''"],
    [() => faultInjection({ name: '', fault }), TypeError, "FaultInjection: name must be a non-empty string, got ''"],
  ])('%#: %s', (make, kind, message) => {
    expect(make).toThrow(kind);
    expect(make).toThrow(message);
  });

  it('an unknown option is a TypeError that suggests the closest and lists the known', () => {
    expect(() => new FaultInjection('pg', { fault, rates: 0.1 } as never)).toThrow(
      "FaultInjection 'pg': unknown option 'rates' (did you mean 'rate'?) (known options: fault, rate, enabled, random, clock)",
    );
    expect(() => new LatencyInjection('pg', { fault } as never)).toThrow(
      "LatencyInjection 'pg': unknown option 'fault' (known options: latency, rate, enabled, random, clock)",
    );
    expect(() => new BehaviorInjection('pg', { behaviour: () => {} } as never)).toThrow("(did you mean 'behavior'?)");
  });

  it('a config that is not a plain object is refused', () => {
    expect(() => new LatencyInjection('pg', [] as never)).toThrow("LatencyInjection 'pg': config must be a plain object of options, got an array");
  });

  it('on() refuses an unknown event type, suggesting the closest', () => {
    const f = new FaultInjection('pg', { fault, clock: new VirtualClock() });
    expect(() => f.on('injectd' as never, () => {})).toThrow("FaultInjection 'pg': unknown event type 'injectd' (did you mean 'injected'?)");
  });
});
