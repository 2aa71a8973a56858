import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { RATE_LIMITER_OPTIONS, RateLimiter, type RateLimiterConfig } from './index.js';

const make = (config: unknown) => () => new RateLimiter('api', config as RateLimiterConfig);

describe('RateLimiter configuration', () => {
  it('has the defaults of docs/rate-limiter.md, and reads back every option', () => {
    const clock = new VirtualClock();
    const rl = new RateLimiter('api', { clock });
    expect(rl.config).toEqual({
      limitForPeriod: 50,
      limitRefreshPeriod: 500,
      timeoutDuration: 5000,
      drainPermissionsOnResult: undefined,
      writableStackTraceEnabled: true,
      clock,
    });
    expect(rl.metrics.availablePermissions).toBe(50);
    expect(RateLimiter.of('api').name).toBe('api');
  });

  it('reads back what was given, durations in ms', () => {
    const clock = new VirtualClock();
    const drainPermissionsOnResult = () => false;
    const rl = new RateLimiter('api', {
      limitForPeriod: 3,
      limitRefreshPeriod: '2s',
      timeoutDuration: '1.5s',
      drainPermissionsOnResult,
      writableStackTraceEnabled: false,
      clock,
    });
    expect(rl.config).toEqual({
      limitForPeriod: 3,
      limitRefreshPeriod: 2000,
      timeoutDuration: 1500,
      drainPermissionsOnResult,
      writableStackTraceEnabled: false,
      clock,
    });
    expect(Object.keys(rl.config).sort()).toEqual([...RATE_LIMITER_OPTIONS].sort());
    rl.changeLimitForPeriod(7);
    rl.changeTimeoutDuration(0);
    expect(rl.config).toMatchObject({ limitForPeriod: 7, timeoutDuration: 0, limitRefreshPeriod: 2000 });
  });

  it('reads durations as strings', () => {
    const rl = new RateLimiter('api', { limitRefreshPeriod: '1s', timeoutDuration: '250ms', clock: new VirtualClock() });
    expect(rl.config).toMatchObject({ limitRefreshPeriod: 1000, timeoutDuration: 250 });
  });

  it.each([
    [{ limitForPeriod: 0 }, RangeError, "RateLimiter 'api': limitForPeriod must be an integer >= 1, got 0"],
    [{ limitForPeriod: 2.5 }, RangeError, "RateLimiter 'api': limitForPeriod must be an integer >= 1, got 2.5"],
    [{ limitForPeriod: '5' }, TypeError, "RateLimiter 'api': limitForPeriod must be a number, got '5'"],
    [{ limitRefreshPeriod: 0 }, RangeError, "RateLimiter 'api': limitRefreshPeriod must be > 0, got 0"],
    [{ limitRefreshPeriod: Infinity }, RangeError, "RateLimiter 'api': limitRefreshPeriod must be a finite duration > 0, got Infinity"],
    [
      { limitRefreshPeriod: 'soon' },
      TypeError,
      "RateLimiter 'api': limitRefreshPeriod must be a duration (ms, or a string like '250ms', '10s', '1.5m', '2h'), got 'soon'",
    ],
    [{ timeoutDuration: -1 }, RangeError, "RateLimiter 'api': timeoutDuration must be >= 0, got -1"],
    [{ drainPermissionsOnResult: true }, TypeError, "RateLimiter 'api': drainPermissionsOnResult must be a function, got true"],
    [{ writableStackTraceEnabled: 1 }, TypeError, "RateLimiter 'api': writableStackTraceEnabled must be true or false, got 1"],
    [{ clock: {} }, TypeError, "RateLimiter 'api': clock must be a Clock (now, setTimeout, clearTimeout), got an object"],
  ])('refuses %o', (config, kind, message) => {
    expect(make(config)).toThrow(kind);
    expect(make(config)).toThrow(message);
  });

  it('refuses unknown keys (a misspelt option is never a silent default)', () => {
    expect(make({ limitForPeriods: 5 })).toThrow(TypeError);
    expect(make({ limitForPeriods: 5 })).toThrow(/RateLimiter 'api': unknown option 'limitForPeriods'/);
  });

  it('refuses a bad name or a config that is not an object', () => {
    expect(() => new RateLimiter('', {})).toThrow(/name must be a non-empty string/);
    expect(make(42)).toThrow(/config must be a plain object of options, got 42/);
    expect(make(new Map())).toThrow("RateLimiter 'api': config must be a plain object of options, got a Map");
  });

  it('checks run-time changes the same way', () => {
    const rl = new RateLimiter('api', { clock: new VirtualClock() });
    expect(() => rl.changeLimitForPeriod(0)).toThrow(new RangeError("RateLimiter 'api': limitForPeriod must be an integer >= 1, got 0"));
    expect(() => rl.changeLimitForPeriod(undefined as unknown as number)).toThrow(TypeError);
    expect(() => rl.changeTimeoutDuration(-5)).toThrow(new RangeError("RateLimiter 'api': timeoutDuration must be >= 0, got -5"));
    expect(() => rl.changeTimeoutDuration('x' as never)).toThrow(TypeError);
    expect(rl.config).toMatchObject({ limitForPeriod: 50, limitRefreshPeriod: 500, timeoutDuration: 5000 });
  });
});
