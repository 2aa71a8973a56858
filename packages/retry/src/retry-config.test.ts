import { describe, expect, it } from 'vitest';
import { Retry, RetryBudget, type RetryConfig } from './index.js';

describe('Retry: bad configuration', () => {
  it.each([
    [{ maxAttempts: 0 }, RangeError, "Retry 'pg': maxAttempts must be an integer >= 1, got 0"],
    [{ maxAttempts: 2.5 }, RangeError, "Retry 'pg': maxAttempts must be an integer >= 1, got 2.5"],
    [{ maxAttempts: Infinity }, RangeError, "Retry 'pg': maxAttempts must be an integer >= 1, got Infinity"],
    [{ maxAttempts: '3' }, TypeError, "Retry 'pg': maxAttempts must be a number, got '3'"],
    [{ waitDuration: -1 }, RangeError, "Retry 'pg': waitDuration must be >= 0, got -1"],
    [{ waitDuration: Infinity }, RangeError, "Retry 'pg': waitDuration must be a finite duration >= 0, got Infinity"],
    [{ waitDuration: 'later' }, TypeError, "Retry 'pg': waitDuration must be a duration (ms, or a string like '250ms', '10s', '1.5m', '2h'), got 'later'"],
    [{ intervalFunction: 500 }, TypeError, "Retry 'pg': intervalFunction must be a function, got 500"],
    [{ intervalBiFunction: {} }, TypeError, "Retry 'pg': intervalBiFunction must be a function, got an object"],
    [{ retryExceptions: Error }, TypeError, "Retry 'pg': retryExceptions must be an array of error classes, got a function"],
    [{ retryExceptions: ['TimeoutError'] }, TypeError, "Retry 'pg': retryExceptions must be an array of error classes, got an array"],
    [{ ignoreExceptions: [1] }, TypeError, "Retry 'pg': ignoreExceptions must be an array of error classes, got an array"],
    [{ retryOnException: true }, TypeError, "Retry 'pg': retryOnException must be a function, got true"],
    [{ retryOnResult: 'busy' }, TypeError, "Retry 'pg': retryOnResult must be a function, got 'busy'"],
    [{ failAfterMaxAttempts: 1 }, TypeError, "Retry 'pg': failAfterMaxAttempts must be true or false, got 1"],
    [{ consumeResultBeforeRetryAttempt: null }, TypeError, "Retry 'pg': consumeResultBeforeRetryAttempt must be a function, got null"],
    [{ retryCallNotPermitted: 'no' }, TypeError, "Retry 'pg': retryCallNotPermitted must be true or false, got 'no'"],
    [{ budget: { ratio: 0.2 } }, TypeError, "Retry 'pg': budget must be a RetryBudget, got an object"],
    [{ clock: Date }, TypeError, "Retry 'pg': clock must be a Clock (now, setTimeout, clearTimeout), got a function"],
    [{ random: 0.5 }, TypeError, "Retry 'pg': random must be a function, got 0.5"],
    [{ maxRetries: 3 }, TypeError, "Retry 'pg': unknown option 'maxRetries' (known options: maxAttempts, waitDuration, intervalFunction, intervalBiFunction"],
  ])('%o throws %s', (config, kind, message) => {
    expect(() => new Retry('pg', config as never)).toThrow(kind);
    expect(() => new Retry('pg', config as never)).toThrow(message);
  });

  const one = (): number => 1;
  it.each<[RetryConfig, string]>([
    [{ waitDuration: 100, intervalFunction: one }, "Retry 'pg': give waitDuration or intervalFunction, not both"],
    [{ waitDuration: 100, intervalBiFunction: one }, "Retry 'pg': give waitDuration or intervalBiFunction, not both"],
    [{ intervalFunction: one, intervalBiFunction: one }, "Retry 'pg': give intervalFunction or intervalBiFunction, not both"],
  ])('refuses two ways of giving the wait: %o', (config, message) => {
    expect(() => new Retry('pg', config)).toThrow(TypeError);
    expect(() => new Retry('pg', config)).toThrow(message);
  });

  it('refuses a name that is not a non-empty string, and a config that is not an object', () => {
    expect(() => new Retry('')).toThrow("Retry: name must be a non-empty string, got ''");
    expect(() => new Retry('pg', 3 as never)).toThrow("Retry 'pg': config must be a plain object of options, got 3");
  });

  it('takes undefined options as absent', () => {
    const r = new Retry('pg', { maxAttempts: undefined, waitDuration: undefined, budget: undefined });
    expect(r.config.maxAttempts).toBe(3);
    expect(r.config.waitDuration).toBe(500);
  });
});

describe('RetryBudget: bad configuration', () => {
  it.each([
    [{ ratio: -0.1 }, RangeError, 'RetryBudget: ratio must be in [0, 1000], got -0.1'],
    [{ ratio: 'a lot' }, TypeError, "RetryBudget: ratio must be a number, got 'a lot'"],
    [{ minRetriesPerSecond: -1 }, RangeError, 'RetryBudget: minRetriesPerSecond must be >= 0, got -1'],
    [{ minRetriesPerSecond: Infinity }, RangeError, 'RetryBudget: minRetriesPerSecond must be finite, got Infinity'],
    [{ ttl: 5 }, RangeError, 'RetryBudget: ttl must be >= 10, got 5'],
    [{ ttl: Infinity }, RangeError, 'RetryBudget: ttl must be finite, got Infinity'],
    [{ ttl: 'forever' }, TypeError, "RetryBudget: ttl must be a duration (ms, or a string like '250ms', '10s', '1.5m', '2h'), got 'forever'"],
    [{ percentCanRetry: 20 }, TypeError, "RetryBudget: unknown option 'percentCanRetry' (known options: ratio, minRetriesPerSecond, ttl, clock)"],
  ])('%o throws %s', (config, kind, message) => {
    expect(() => new RetryBudget(config as never)).toThrow(kind);
    expect(() => new RetryBudget(config as never)).toThrow(message);
  });

  it('has Finagle-like defaults: 20 %, 10 retries a second, 10 s', () => {
    const budget = new RetryBudget();
    expect(budget.config).toMatchObject({ ratio: 0.2, minRetriesPerSecond: 10, ttl: 10_000 });
    expect(new RetryBudget({ ttl: '1m' }).config.ttl).toBe(60_000);
  });
});
