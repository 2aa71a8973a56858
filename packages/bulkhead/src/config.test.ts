import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { Bulkhead, PoolBulkhead, type BulkheadConfig, type PoolBulkheadConfig } from './index.js';

const semaphore = (config: unknown) => () => new Bulkhead('db', config as BulkheadConfig);
const pool = (config: unknown) => () => new PoolBulkhead('pdf', config as PoolBulkheadConfig);

describe('Bulkhead configuration', () => {
  it.each([
    [{ maxConcurrentCalls: -1 }, RangeError, "Bulkhead 'db': maxConcurrentCalls must be an integer >= 0, got -1"],
    [{ maxConcurrentCalls: 1.5 }, RangeError, "Bulkhead 'db': maxConcurrentCalls must be an integer >= 0, got 1.5"],
    [{ maxConcurrentCalls: '10' }, TypeError, "Bulkhead 'db': maxConcurrentCalls must be a number, got '10'"],
    [{ maxWaitDuration: -5 }, RangeError, "Bulkhead 'db': maxWaitDuration must be >= 0, got -5"],
    [
      { maxWaitDuration: 'later' },
      TypeError,
      "Bulkhead 'db': maxWaitDuration must be a duration (ms, or a string like '250ms', '10s', '1.5m', '2h'), got 'later'",
    ],
    [{ fairCallHandlingEnabled: 'yes' }, TypeError, "Bulkhead 'db': fairCallHandlingEnabled must be true or false, got 'yes'"],
    [{ writableStackTraceEnabled: 0 }, TypeError, "Bulkhead 'db': writableStackTraceEnabled must be true or false, got 0"],
    [{ clock: Date }, TypeError, "Bulkhead 'db': clock must be a Clock (now, setTimeout, clearTimeout), got a function"],
  ])('refuses %o', (config, kind, message) => {
    expect(semaphore(config)).toThrow(kind);
    expect(semaphore(config)).toThrow(message);
  });

  it('refuses unknown keys, a bad name and a config that is not an object', () => {
    expect(semaphore({ maxConcurrentCall: 3 })).toThrow(
      new TypeError(
        "Bulkhead 'db': unknown option 'maxConcurrentCall' (did you mean 'maxConcurrentCalls'?) (known options: maxConcurrentCalls, maxWaitDuration, fairCallHandlingEnabled, writableStackTraceEnabled, clock)",
      ),
    );
    expect(() => new Bulkhead('')).toThrow(/Bulkhead: name must be a non-empty string/);
    expect(semaphore('fast')).toThrow("Bulkhead 'db': config must be a plain object of options, got 'fast'");
    expect(semaphore(new Map())).toThrow(TypeError);
  });

  it('reads durations as strings, and Infinity as waiting without a limit', () => {
    expect(new Bulkhead('db', { maxWaitDuration: '1.5s' }).config.maxWaitDuration).toBe(1500);
    expect(new Bulkhead('db', { maxWaitDuration: Infinity }).config.maxWaitDuration).toBe(Infinity);
  });

  it('checks changeConfig the same way, and changes nothing on a bad value', () => {
    const b = new Bulkhead('db', { maxConcurrentCalls: 3, clock: new VirtualClock() });
    expect(() => b.changeConfig({ maxConcurrentCalls: -2 })).toThrow(new RangeError("Bulkhead 'db': maxConcurrentCalls must be an integer >= 0, got -2"));
    expect(() => b.changeConfig({ maxConcurrentCalls: 4, maxWaitDuration: -1 })).toThrow(RangeError);
    expect(() => b.changeConfig({ fairCallHandlingEnabled: false } as never)).toThrow(/unknown option 'fairCallHandlingEnabled'/);
    expect(b.config).toMatchObject({ maxConcurrentCalls: 3, maxWaitDuration: 0, fairCallHandlingEnabled: true });
  });

  it('changeConfig refuses what is not an object of changes, naming the bulkhead, the method and the value', () => {
    const b = new Bulkhead('db', { maxConcurrentCalls: 3, clock: new VirtualClock() });
    for (const [change, shown] of [
      [null, 'null'],
      [undefined, 'undefined'],
      [5, '5'],
      ['wide', "'wide'"],
      [[], 'an array'],
      [new Map(), 'a Map'],
    ] as const) {
      expect(() => b.changeConfig(change as never)).toThrow(
        new TypeError(`Bulkhead 'db': changeConfig(change) must be an object of { maxConcurrentCalls?, maxWaitDuration? }, got ${shown}`),
      );
    }
    expect(b.config).toMatchObject({ maxConcurrentCalls: 3, maxWaitDuration: 0 });
    b.changeConfig({});
    expect(b.config.maxConcurrentCalls).toBe(3);
  });
});

describe('PoolBulkhead configuration', () => {
  it.each([
    [{ maxThreadPoolSize: 0 }, RangeError, "PoolBulkhead 'pdf': maxThreadPoolSize must be an integer >= 1, got 0"],
    [{ maxThreadPoolSize: 2, coreThreadPoolSize: 0 }, RangeError, "PoolBulkhead 'pdf': coreThreadPoolSize must be an integer >= 1, got 0"],
    [
      { maxThreadPoolSize: 2, coreThreadPoolSize: 3 },
      RangeError,
      "PoolBulkhead 'pdf': coreThreadPoolSize must be an integer in [1, 2] (maxThreadPoolSize), got 3",
    ],
    [{ queueCapacity: -1 }, RangeError, "PoolBulkhead 'pdf': queueCapacity must be an integer >= 0, got -1"],
    [{ queueCapacity: 2.5 }, RangeError, "PoolBulkhead 'pdf': queueCapacity must be an integer >= 0, got 2.5"],
    [{ maxThreadPoolSize: '4' }, TypeError, "PoolBulkhead 'pdf': maxThreadPoolSize must be a number, got '4'"],
  ])('refuses %o', (config, kind, message) => {
    expect(pool(config)).toThrow(kind);
    expect(pool(config)).toThrow(message);
  });

  it('derives the core size from the max size', () => {
    expect(new PoolBulkhead('pdf', { maxThreadPoolSize: 1 }).metrics.coreThreadPoolSize).toBe(1);
    expect(new PoolBulkhead('pdf', { maxThreadPoolSize: 6 }).metrics.coreThreadPoolSize).toBe(5);
  });

  it('refuses unknown keys (the worker options belong to PoolBulkhead.workers)', () => {
    expect(pool({ filename: 'x.mjs' })).toThrow(/PoolBulkhead 'pdf': unknown option 'filename'/);
    expect(pool({ keepAliveDuration: 20 })).toThrow(TypeError);
  });
});
