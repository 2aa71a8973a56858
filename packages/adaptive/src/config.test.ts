import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { fixed } from '../test/test-support.js';
import {
  ADAPTIVE_LIMITER_OPTIONS,
  ADAPTIVE_THROTTLE_OPTIONS,
  AdaptiveLimiter,
  AdaptiveLimiterRegistry,
  AdaptiveThrottle,
  AdaptiveThrottleRegistry,
  type AdaptiveLimiterConfig,
  type AdaptiveThrottleConfig,
} from './index.js';

const limiter = (config: unknown) => () => new AdaptiveLimiter('pg', config as AdaptiveLimiterConfig);
const throttle = (config: unknown) => () => new AdaptiveThrottle('t', config as AdaptiveThrottleConfig);

describe('AdaptiveLimiter — bad configuration throws at construction, naming the limiter, the option and the value', () => {
  it.each([
    [{ maxWaitDuration: -1 }, RangeError, "AdaptiveLimiter 'pg': maxWaitDuration must be >= 0, got -1"],
    [
      { maxWaitDuration: '5 sec' },
      TypeError,
      "AdaptiveLimiter 'pg': maxWaitDuration must be a duration (ms, or a string like '250ms', '10s', '1.5m', '2h'), got '5 sec'",
    ],
    [{ queue: 'stack' }, TypeError, "AdaptiveLimiter 'pg': queue must be one of 'fifo', 'lifo', got 'stack'"],
    [{ maxQueue: -1 }, RangeError, "AdaptiveLimiter 'pg': maxQueue must be an integer >= 0, got -1"],
    [{ maxQueue: 1.5 }, RangeError, "AdaptiveLimiter 'pg': maxQueue must be an integer >= 0, or Infinity, got 1.5"],
    [{ algorithm: 'reno' }, TypeError, "AdaptiveLimiter 'pg': algorithm must be one of 'vegas', 'aimd', 'gradient2', got 'reno'"],
    [
      { algorithm: { limit: 3 } },
      TypeError,
      "AdaptiveLimiter 'pg': algorithm must be one of 'vegas', 'aimd', 'gradient2' or a LimitAlgorithm (name, limit, onSample), got an object",
    ],
    [
      { algorithm: fixed(3), maxLimit: 10 },
      TypeError,
      "AdaptiveLimiter 'pg': maxLimit applies to a named algorithm only (the LimitAlgorithm given has its own limits)",
    ],
    [{ initialLimit: 0 }, RangeError, "AdaptiveLimiter 'pg': initialLimit must be an integer >= 1, got 0"],
    [{ window: 5 }, TypeError, "AdaptiveLimiter 'pg': window must be an object of window options, or false, got 5"],
    [
      { partitions: [0.5] },
      TypeError,
      "AdaptiveLimiter 'pg': partitions must be an object of shares by partition name ({ critical: 0.7, batch: 0.3 }), got an array",
    ],
    [{ partitions: {} }, RangeError, "AdaptiveLimiter 'pg': partitions must be an object with at least one partition, got an object"],
    [{ partitions: { a: 0 } }, RangeError, "AdaptiveLimiter 'pg': partitions.a must be in (0, 1], got 0"],
    [{ partitions: { a: '0.5' } }, TypeError, "AdaptiveLimiter 'pg': partitions.a must be a number in (0, 1], got '0.5'"],
    [{ partitions: { a: 0.7, b: 0.4 } }, RangeError, "AdaptiveLimiter 'pg': partitions' shares must sum to at most 1, got 1.1 (a: 0.7, b: 0.4)"],
    [{ isDrop: true }, TypeError, "AdaptiveLimiter 'pg': isDrop must be a function, got true"],
    [{ maxWaitDurration: 5 }, TypeError, "AdaptiveLimiter 'pg': unknown option 'maxWaitDurration' (did you mean 'maxWaitDuration'?)"],
  ])('%o', (config, kind, message) => {
    expect(limiter(config)).toThrow(kind);
    expect(limiter(config)).toThrow(message);
  });

  it("a named algorithm's own checks are named after the limiter", () => {
    expect(limiter({ algorithm: 'aimd', minLimit: 10, maxLimit: 5 })).toThrow(RangeError);
    expect(limiter({ algorithm: 'aimd', minLimit: 10, maxLimit: 5 })).toThrow(/^AdaptiveLimiter 'pg': /);
    expect(limiter({ window: { windowSize: 0 } })).toThrow(/^AdaptiveLimiter 'pg': .*windowSize/);
  });

  it('accepts shares summing to 1 despite float rounding, Infinity for maxQueue, and keeps the shares frozen', () => {
    const l = new AdaptiveLimiter('pg', { partitions: { a: 0.1, b: 0.2, c: 0.7 }, maxQueue: Infinity, maxWaitDuration: '20ms', clock: new VirtualClock() });
    expect(l.config.partitions).toEqual({ a: 0.1, b: 0.2, c: 0.7 });
    expect(Object.isFrozen(l.config.partitions)).toBe(true);
    expect(l.config.maxQueue).toBe(Infinity);
    expect(l.config.maxWaitDuration).toBe(20);
  });

  it('lists its options', () => {
    expect([...ADAPTIVE_LIMITER_OPTIONS]).toEqual([
      'algorithm',
      'initialLimit',
      'minLimit',
      'maxLimit',
      'window',
      'maxWaitDuration',
      'queue',
      'maxQueue',
      'partitions',
      'isDrop',
      'writableStackTraceEnabled',
      'clock',
    ]);
  });
});

describe('AdaptiveThrottle — bad configuration', () => {
  it.each([
    [{ k: 0.5 }, RangeError, "AdaptiveThrottle 't': k must be >= 1, got 0.5"],
    [{ k: Infinity }, RangeError, "AdaptiveThrottle 't': k must be a finite number >= 1, got Infinity"],
    [{ window: 10 }, RangeError, "AdaptiveThrottle 't': window must be >= 20, got 10"],
    [{ window: Infinity }, RangeError, "AdaptiveThrottle 't': window must be a finite duration >= 20 ms, got Infinity"],
    [{ maxRejectRatio: 1.5 }, RangeError, "AdaptiveThrottle 't': maxRejectRatio must be in [0, 1], got 1.5"],
    [{ random: 0.5 }, TypeError, "AdaptiveThrottle 't': random must be a function, got 0.5"],
    [{ kk: 2 }, TypeError, "AdaptiveThrottle 't': unknown option 'kk'"],
  ])('%o', (config, kind, message) => {
    expect(throttle(config)).toThrow(kind);
    expect(throttle(config)).toThrow(message);
  });

  it('reads durations as strings and lists its options', () => {
    expect(new AdaptiveThrottle('t', { window: '1m' }).config.window).toBe(60_000);
    expect([...ADAPTIVE_THROTTLE_OPTIONS]).toEqual(['k', 'window', 'maxRejectRatio', 'isDrop', 'random', 'writableStackTraceEnabled', 'clock']);
  });
});

describe('registries', () => {
  it('AdaptiveLimiterRegistry gets or creates limiters from its configs, checked at construction', () => {
    const clock = new VirtualClock();
    const registry = new AdaptiveLimiterRegistry({
      defaultConfig: { algorithm: 'aimd', clock },
      configs: { slow: { algorithm: 'gradient2', maxWaitDuration: 5, clock } },
    });
    const pg = registry.get('pg');
    expect(pg).toBeInstanceOf(AdaptiveLimiter);
    expect(registry.get('pg')).toBe(pg);
    expect(pg.config.algorithm.name).toContain('aimd');
    expect(registry.get('x', 'slow').config.maxWaitDuration).toBe(5);
    expect(() => new AdaptiveLimiterRegistry({ defaultConfig: { queue: 'stack' as 'lifo' } })).toThrow("queue must be one of 'fifo', 'lifo'");
  });

  it('AdaptiveThrottleRegistry gets or creates throttles', () => {
    const registry = new AdaptiveThrottleRegistry({ defaultConfig: { k: 1.5 } });
    const search = registry.get('search');
    expect(search).toBeInstanceOf(AdaptiveThrottle);
    expect(search.config.k).toBe(1.5);
    expect(registry.all()).toEqual([search]);
    expect(() => new AdaptiveThrottleRegistry({ defaultConfig: { k: 0 } })).toThrow('k must be >= 1, got 0');
  });
});
