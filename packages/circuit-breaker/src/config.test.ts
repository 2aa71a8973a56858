import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';

const build = (config: Record<string, unknown>) => () => new CircuitBreaker('pg', config as never);

describe('CircuitBreaker configuration', () => {
  it('has Resilience4j’s defaults', () => {
    const c = new CircuitBreaker('pg').config;
    expect(c).toMatchObject({
      failureRateThreshold: 50,
      slowCallRateThreshold: 100,
      slowCallDurationThreshold: 60_000,
      slidingWindowType: 'COUNT_BASED',
      slidingWindowSize: 100,
      minimumNumberOfCalls: 100,
      permittedNumberOfCallsInHalfOpenState: 10,
      automaticTransitionFromOpenToHalfOpenEnabled: false,
      maxWaitDurationInHalfOpenState: 0,
      transitionToStateAfterWaitDuration: 'OPEN',
      initialState: 'CLOSED',
      writableStackTraceEnabled: true,
    });
    expect(c.waitInOpenState(1)).toBe(60_000);
    expect(CircuitBreaker.of('x').state).toBe('CLOSED');
  });

  it('accepts duration strings', () => {
    const c = new CircuitBreaker('pg', { slowCallDurationThreshold: '100ms', waitDurationInOpenState: '1.5m', maxWaitDurationInHalfOpenState: '2h' }).config;
    expect(c.slowCallDurationThreshold).toBe(100);
    expect(c.waitInOpenState(1)).toBe(90_000);
    expect(c.maxWaitDurationInHalfOpenState).toBe(7_200_000);
  });

  const refused: [Record<string, unknown>, typeof RangeError | typeof TypeError, string][] = [
    [{ failureRateThreshold: 0 }, RangeError, "CircuitBreaker 'pg': failureRateThreshold must be in (0, 100], got 0"],
    [{ failureRateThreshold: 101 }, RangeError, "CircuitBreaker 'pg': failureRateThreshold must be in (0, 100], got 101"],
    [{ failureRateThreshold: '50' }, TypeError, "CircuitBreaker 'pg': failureRateThreshold must be a number, got '50'"],
    [{ slowCallRateThreshold: -5 }, RangeError, "CircuitBreaker 'pg': slowCallRateThreshold must be in (0, 100], got -5"],
    [{ slowCallDurationThreshold: 0 }, RangeError, "CircuitBreaker 'pg': slowCallDurationThreshold must be > 0, got 0"],
    [{ slowCallDurationThreshold: '10 parsecs' }, TypeError, 'slowCallDurationThreshold must be a duration'],
    [{ slidingWindowType: 'SIZE_BASED' }, TypeError, "CircuitBreaker 'pg': slidingWindowType must be one of 'COUNT_BASED', 'TIME_BASED', got 'SIZE_BASED'"],
    [{ slidingWindowSize: 0 }, RangeError, "CircuitBreaker 'pg': slidingWindowSize must be an integer >= 1, got 0"],
    [{ slidingWindowSize: 2.5 }, RangeError, "CircuitBreaker 'pg': slidingWindowSize must be an integer >= 1, got 2.5"],
    [{ minimumNumberOfCalls: 0 }, RangeError, "CircuitBreaker 'pg': minimumNumberOfCalls must be an integer >= 1, got 0"],
    [{ permittedNumberOfCallsInHalfOpenState: 0 }, RangeError, "CircuitBreaker 'pg': permittedNumberOfCallsInHalfOpenState must be an integer >= 1, got 0"],
    [{ waitDurationInOpenState: 0 }, RangeError, "CircuitBreaker 'pg': waitDurationInOpenState must be >= 1, got 0"],
    [{ waitIntervalFunctionInOpenState: 5000 }, TypeError, "CircuitBreaker 'pg': waitIntervalFunctionInOpenState must be a function, got 5000"],
    [{ waitIntervalFunctionInOpenState: () => 0 }, RangeError, 'waitIntervalFunctionInOpenState must be a function returning ms >= 1'],
    [{ waitDurationInOpenState: 1000, waitIntervalFunctionInOpenState: () => 1000 }, TypeError, "CircuitBreaker 'pg': give waitDurationInOpenState or waitIntervalFunctionInOpenState, not both"],
    [{ maxWaitDurationInHalfOpenState: -1 }, RangeError, "CircuitBreaker 'pg': maxWaitDurationInHalfOpenState must be >= 0, got -1"],
    [{ transitionToStateAfterWaitDuration: 'HALF_OPEN' }, TypeError, "transitionToStateAfterWaitDuration must be one of 'OPEN', 'CLOSED', got 'HALF_OPEN'"],
    [{ automaticTransitionFromOpenToHalfOpenEnabled: 'yes' }, TypeError, "CircuitBreaker 'pg': automaticTransitionFromOpenToHalfOpenEnabled must be true or false, got 'yes'"],
    [{ recordExceptions: Error }, TypeError, "CircuitBreaker 'pg': recordExceptions must be an array of error classes, got a function"],
    [{ ignoreExceptions: ['TypeError'] }, TypeError, "CircuitBreaker 'pg': ignoreExceptions must be an array of error classes, got an array"],
    [{ recordResult: true }, TypeError, "CircuitBreaker 'pg': recordResult must be a function, got true"],
    [{ initialState: 'AJAR' }, TypeError, "initialState must be one of 'CLOSED', 'OPEN', 'HALF_OPEN', 'DISABLED', 'FORCED_OPEN', 'METRICS_ONLY', got 'AJAR'"],
    [{ clock: { now: () => 0 } }, TypeError, "CircuitBreaker 'pg': clock must be a Clock (now, setTimeout, clearTimeout), got an object"],
    [{ failureRateTreshold: 50 }, TypeError, "CircuitBreaker 'pg': unknown option 'failureRateTreshold'"],
  ];
  it.each(refused)('refuses %j', (config, kind, message) => {
    expect(build(config)).toThrow(kind);
    expect(build(config)).toThrow(message);
  });

  it('refuses a bad name and a config that is not an object', () => {
    expect(() => new CircuitBreaker('')).toThrow(TypeError);
    expect(() => new CircuitBreaker('pg', 5 as never)).toThrow("CircuitBreaker 'pg': config must be an object, got 5");
  });

  it('does not change the caller’s config object', () => {
    const config = Object.freeze({ slidingWindowSize: 5 });
    expect(new CircuitBreaker('pg', config).config.slidingWindowSize).toBe(5);
  });
});
