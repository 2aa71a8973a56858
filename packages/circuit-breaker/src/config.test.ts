import { VirtualClock } from '@breakwater/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { CIRCUIT_BREAKER_OPTIONS } from './config.js';
import { EVENT_TYPES, type CircuitBreakerEvents } from './events.js';
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
    [{ slidingWindowSize: 0 }, RangeError, "CircuitBreaker 'pg': slidingWindowSize must be an integer in [1, 1000000], got 0"],
    [{ slidingWindowSize: 2.5 }, RangeError, "CircuitBreaker 'pg': slidingWindowSize must be an integer in [1, 1000000], got 2.5"],
    [{ minimumNumberOfCalls: 0 }, RangeError, "CircuitBreaker 'pg': minimumNumberOfCalls must be an integer in [1, 1000000], got 0"],
    [
      { permittedNumberOfCallsInHalfOpenState: 0 },
      RangeError,
      "CircuitBreaker 'pg': permittedNumberOfCallsInHalfOpenState must be an integer in [1, 1000000], got 0",
    ],
    [{ waitDurationInOpenState: 0 }, RangeError, "CircuitBreaker 'pg': waitDurationInOpenState must be >= 1, got 0"],
    [{ waitIntervalFunctionInOpenState: 5000 }, TypeError, "CircuitBreaker 'pg': waitIntervalFunctionInOpenState must be a function, got 5000"],
    [
      { waitIntervalFunctionInOpenState: () => 0 },
      RangeError,
      "CircuitBreaker 'pg': waitIntervalFunctionInOpenState must be a function returning a finite wait in ms >= 1 (it returned this for attempt 1), got 0",
    ],
    [
      { waitDurationInOpenState: 1000, waitIntervalFunctionInOpenState: () => 1000 },
      TypeError,
      "CircuitBreaker 'pg': give waitDurationInOpenState or waitIntervalFunctionInOpenState, not both",
    ],
    [{ maxWaitDurationInHalfOpenState: -1 }, RangeError, "CircuitBreaker 'pg': maxWaitDurationInHalfOpenState must be >= 0, got -1"],
    [{ transitionToStateAfterWaitDuration: 'HALF_OPEN' }, TypeError, "transitionToStateAfterWaitDuration must be one of 'OPEN', 'CLOSED', got 'HALF_OPEN'"],
    [
      { automaticTransitionFromOpenToHalfOpenEnabled: 'yes' },
      TypeError,
      "CircuitBreaker 'pg': automaticTransitionFromOpenToHalfOpenEnabled must be true or false, got 'yes'",
    ],
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
    expect(() => new CircuitBreaker('pg', 5 as never)).toThrow("CircuitBreaker 'pg': config must be a plain object of options, got 5");
  });

  it('does not change the caller’s config object', () => {
    const config = Object.freeze({ slidingWindowSize: 5 });
    expect(new CircuitBreaker('pg', config).config.slidingWindowSize).toBe(5);
  });

  it.each(['slidingWindowSize', 'minimumNumberOfCalls', 'permittedNumberOfCallsInHalfOpenState'])('bounds %s to 1 000 000 at construction', (option) => {
    for (const size of [1e6 + 1, 1e9, 2 ** 33, 2 ** 40, Infinity]) {
      expect(build({ [option]: size })).toThrow(RangeError);
      expect(build({ [option]: size })).toThrow(`CircuitBreaker 'pg': ${option} must be an integer in [1, 1000000], got ${size}`);
    }
    expect(build({ [option]: 1e6 })).not.toThrow();
  });

  it('a HALF_OPEN of the largest size moves from a timer without crashing', async () => {
    const clock = new VirtualClock();
    const breaker = new CircuitBreaker('pg', {
      permittedNumberOfCallsInHalfOpenState: 1e6,
      minimumNumberOfCalls: 1e6,
      automaticTransitionFromOpenToHalfOpenEnabled: true,
      waitDurationInOpenState: 10,
      clock,
    });
    breaker.transitionToOpenState();
    await clock.advance(10);
    expect(breaker.state).toBe('HALF_OPEN');
  });

  it('reads back every option as resolved', () => {
    const defaults = new CircuitBreaker('pg').config;
    expect(Object.keys(defaults)).toEqual(expect.arrayContaining([...CIRCUIT_BREAKER_OPTIONS]));
    expect(defaults).toMatchObject({
      waitDurationInOpenState: 60_000,
      waitIntervalFunctionInOpenState: undefined,
      recordExceptions: [],
      recordException: undefined,
      ignoreExceptions: [],
      ignoreException: undefined,
      recordResult: undefined,
    });
    const clock = new VirtualClock();
    const recordException = (e: unknown) => e instanceof TypeError;
    const ignoreException = (e: unknown) => e instanceof SyntaxError;
    const recordResult = (r: unknown) => r === null;
    const classes = [RangeError];
    const given = {
      failureRateThreshold: 60,
      slowCallRateThreshold: 70,
      slowCallDurationThreshold: '2s',
      slidingWindowType: 'TIME_BASED',
      slidingWindowSize: 30,
      minimumNumberOfCalls: 5,
      permittedNumberOfCallsInHalfOpenState: 3,
      waitDurationInOpenState: '10s',
      automaticTransitionFromOpenToHalfOpenEnabled: true,
      maxWaitDurationInHalfOpenState: '1m',
      transitionToStateAfterWaitDuration: 'CLOSED',
      recordExceptions: classes,
      recordException,
      ignoreExceptions: [EvalError],
      ignoreException,
      recordResult,
      initialState: 'METRICS_ONLY',
      writableStackTraceEnabled: false,
      allowHealthIndicatorToFail: true,
      clock,
    } as const;
    expect(Object.keys(given).sort()).toEqual([...CIRCUIT_BREAKER_OPTIONS].filter((k) => k !== 'waitIntervalFunctionInOpenState').sort());
    const c = new CircuitBreaker('pg', given).config;
    expect(c).toMatchObject({ ...given, slowCallDurationThreshold: 2000, waitDurationInOpenState: 10_000, maxWaitDurationInHalfOpenState: 60_000 });
    classes.push(TypeError); // the breaker keeps a copy
    expect(c.recordExceptions).toEqual([RangeError]);
    const wait = (attempt: number) => attempt * 1000;
    const withFunction = new CircuitBreaker('pg', { waitIntervalFunctionInOpenState: wait }).config;
    expect(withFunction.waitIntervalFunctionInOpenState).toBe(wait);
    expect(withFunction.waitDurationInOpenState).toBeUndefined();
    expect(withFunction.waitInOpenState(3)).toBe(3000);
  });

  it('refuses a bad duration given to onSuccess, onResult and onError, naming the breaker and the method', () => {
    const breaker = new CircuitBreaker('pg', { clock: new VirtualClock() });
    const bad: [unknown, typeof RangeError | typeof TypeError][] = [
      [NaN, RangeError],
      [-5, RangeError],
      [Infinity, RangeError],
      ['x', TypeError],
      [undefined, TypeError],
    ];
    for (const [ms, kind] of bad) {
      expect(() => breaker.onSuccess(ms as number)).toThrow(kind);
      expect(() => breaker.onSuccess(ms as number)).toThrow(
        `CircuitBreaker 'pg': onSuccess(durationMs, …) needs a duration in ms (a finite number >= 0, or a string like '250ms'), got`,
      );
      expect(() => breaker.onResult(ms as number, 1)).toThrow(/CircuitBreaker 'pg': onResult\(durationMs, …\)/);
      expect(() => breaker.onError(ms as number, new Error())).toThrow(/CircuitBreaker 'pg': onError\(durationMs, …\)/);
    }
    expect(breaker.metrics.numberOfBufferedCalls).toBe(0);
    breaker.onSuccess(0);
    breaker.onSuccess('1.5s' as never);
    expect(breaker.metrics.numberOfBufferedCalls).toBe(2);
  });

  it('takes a duration string in transitionToOpenStateFor, and says what is wrong otherwise', async () => {
    const clock = new VirtualClock();
    const breaker = new CircuitBreaker('pg', { clock });
    breaker.transitionToOpenStateFor('10s');
    await clock.advance(10_000);
    expect(breaker.tryAcquirePermission()).toBe(false);
    await clock.advance(1);
    expect(breaker.tryAcquirePermission()).toBe(true);
    expect(() => breaker.transitionToOpenStateFor('ten seconds' as never)).toThrow(
      new TypeError(
        "CircuitBreaker 'pg': transitionToOpenStateFor(wait) needs a duration (ms >= 0, finite, or a string like '250ms', '10s', '1.5m', '2h'), got 'ten seconds'",
      ),
    );
    expect(() => breaker.transitionToOpenStateFor(-1)).toThrow(RangeError);
    expect(() => breaker.transitionToOpenStateFor(Infinity)).toThrow(RangeError);
    expect(() => breaker.transitionToOpenStateUntil('soon' as never)).toThrow(TypeError);
    expect(() => breaker.transitionToOpenStateUntil(clock.now() - 1)).toThrow(/needs a finite clock time not before now/);
    expect(breaker.state).toBe('HALF_OPEN');
  });

  it('refuses an unknown event type with a did-you-mean, and knows every type it publishes', () => {
    const breaker = new CircuitBreaker('pg', { clock: new VirtualClock() });
    expect(() => breaker.on('sucess' as never, () => {})).toThrow(TypeError);
    expect(() => breaker.on('sucess' as never, () => {})).toThrow("CircuitBreaker 'pg': unknown event type 'sucess' (did you mean 'success'?)");
    expect(() => breaker.on('stateTransitions' as never, () => {})).toThrow("did you mean 'stateTransition'?");
    for (const type of EVENT_TYPES) expect(breaker.on(type, () => {})).toBeTypeOf('function');
    expect(breaker.on('*', () => {})).toBeTypeOf('function');
    expectTypeOf<(typeof EVENT_TYPES)[number]>().toEqualTypeOf<keyof CircuitBreakerEvents>();
  });
});
