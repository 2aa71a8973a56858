import { afterEach, describe, expect, it } from 'vitest';
import { BoomError, breakerOnClock, conformance, counts, emptyCounts, expectNoLeakedTimers, IgnoredError } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

describe('CircuitBreaker recording: ignored, recorded and not-recorded errors, results, time-outs', () => {
  it('releases the permit of an ignored error and does not count it', () => {
    const { breaker, events } = breakerOnClock(conformance);
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    for (let i = 0; i < 3; i++) {
      breaker.tryAcquirePermission();
      breaker.onSuccess(0);
    }
    expect(counts(breaker.metrics)).toEqual({ ...emptyCounts, successful: 3, buffered: 3 });
    expect(breaker.tryAcquirePermission()).toBe(true);
    breaker.onError(0, new IgnoredError());
    expect(breaker.state).toBe('HALF_OPEN');
    expect(counts(breaker.metrics)).toEqual({ ...emptyCounts, successful: 3, buffered: 3 });
    expect(events.at(-1)).toBe('ignoredError');
    expect(breaker.tryAcquirePermission()).toBe(true); // the permit came back
    breaker.onError(0, new BoomError());
    expect(breaker.state).toBe('CLOSED'); // 1 of 4 failed: 25% < 50%
  });

  it('stays HALF_OPEN through any number of ignored errors', () => {
    const { breaker } = breakerOnClock(conformance);
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    for (let i = 0; i < 10; i++) {
      expect(breaker.tryAcquirePermission()).toBe(true);
      breaker.onError(0, new IgnoredError());
    }
    expect(breaker.state).toBe('HALF_OPEN');
    expect(counts(breaker.metrics)).toEqual(emptyCounts);
  });

  it('counts an error that is neither recorded nor ignored as a success', () => {
    const { breaker, events } = breakerOnClock({ ...conformance, recordExceptions: [BoomError] });
    breaker.onError(0, new TypeError('not a backend failure'));
    expect(counts(breaker.metrics)).toEqual({ ...emptyCounts, successful: 1, buffered: 1 });
    expect(events).toEqual(['success']);
  });

  it('lets ignore win over record, and ORs classes with predicates', () => {
    const { breaker } = breakerOnClock({
      ...conformance,
      recordExceptions: [BoomError],
      recordException: (e) => (e as { code?: string }).code === 'ECONNRESET',
      ignoreExceptions: [IgnoredError],
      ignoreException: (e) => e instanceof BoomError && e.message === 'ignore me',
    });
    breaker.onError(0, new BoomError('count me'));
    breaker.onError(0, Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    breaker.onError(0, new BoomError('ignore me'));
    breaker.onError(0, new IgnoredError());
    breaker.onError(0, new Error('other'));
    expect(counts(breaker.metrics)).toEqual({ ...emptyCounts, buffered: 3, failed: 2, successful: 1 });
  });

  it('records a result matching recordResult as a failure but hands the value back', async () => {
    const { breaker, events } = breakerOnClock({ ...conformance, minimumNumberOfCalls: 1, recordResult: (r) => (r as { status: number }).status >= 500 });
    const value = await breaker.execute(() => ({ status: 503 }));
    expect(value).toEqual({ status: 503 });
    expect(breaker.metrics.numberOfFailedCalls).toBe(1);
    expect(breaker.state).toBe('OPEN');
    expect(events.slice(0, 2)).toEqual(['error', 'failureRateExceeded 100']);
  });

  it('never asks recordResult about null or undefined (as Resilience4j): such a call is a success, through execute and onResult', async () => {
    const asked: unknown[] = [];
    const recordResult = (r: unknown) => {
      asked.push(r);
      return (r as { status: number }).status >= 500; // throws for null / undefined if asked
    };
    const { breaker, events } = breakerOnClock({ recordResult, slidingWindowSize: 10, minimumNumberOfCalls: 1 });
    await expect(breaker.execute(() => undefined)).resolves.toBeUndefined();
    await expect(breaker.execute(async () => null)).resolves.toBeNull();
    await expect(breaker.execute(() => {})).resolves.toBeUndefined();
    breaker.onResult(0, undefined);
    breaker.onResult(0, null);
    expect(asked).toEqual([]);
    expect(breaker.state).toBe('CLOSED');
    expect(counts(breaker.metrics)).toEqual({ ...emptyCounts, failureRate: 0, successful: 5, buffered: 5 });
    expect(events).toEqual(['success', 'success', 'success', 'success', 'success']);
    // Every other value is asked about, falsy ones included.
    for (const value of [0, '', false, Number.NaN, { status: 503 }]) breaker.onResult(0, value);
    expect(asked).toEqual([0, '', false, Number.NaN, { status: 503 }]);
    expect(counts(breaker.metrics)).toEqual({ ...emptyCounts, failureRate: 10, successful: 9, buffered: 10, failed: 1 });
  });

  it('records a TimeoutError as an ERROR, never slow, whatever its duration', async () => {
    const { TimeoutError } = await import('@breakwater/core');
    const { breaker } = breakerOnClock(conformance);
    breaker.onError(10_000, new TimeoutError('tl', 10_000));
    breaker.onError(10_000, new BoomError());
    const m = breaker.metrics;
    expect(m.numberOfFailedCalls).toBe(2);
    expect(m.numberOfSlowCalls).toBe(1);
    expect(m.numberOfSlowFailedCalls).toBe(1);
  });

  it('records a call that was permitted before the breaker opened into the kept metrics', () => {
    const { breaker } = breakerOnClock({ ...conformance, minimumNumberOfCalls: 2 });
    breaker.tryAcquirePermission(); // a slow call in flight
    breaker.onError(0, new BoomError());
    breaker.onError(0, new BoomError());
    expect(breaker.state).toBe('OPEN');
    breaker.onSuccess(0); // the in-flight one finishes late
    expect(breaker.state).toBe('OPEN');
    expect(counts(breaker.metrics)).toEqual({ failureRate: 200 / 3, successful: 1, buffered: 3, failed: 2, notPermitted: 0 });
  });
});
