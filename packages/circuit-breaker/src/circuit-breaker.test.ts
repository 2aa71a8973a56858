import { CallNotPermittedError } from '@breakwater/core';
import { afterEach, describe, expect, it } from 'vitest';
import { BoomError, breakerOnClock, conformance, counts, emptyCounts, expectNoLeakedTimers, IgnoredError } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

// Most cases run in the configuration of Resilience4j's CircuitBreakerStateMachineTest (`conformance`, test-support.ts).
describe('CircuitBreaker state machine: permission, thresholds, OPEN and HALF_OPEN', () => {
  it('keeps its name and starts CLOSED with empty metrics', () => {
    const { breaker } = breakerOnClock(conformance, 'pg');
    expect(breaker.name).toBe('pg');
    expect(breaker.kind).toBe('circuitBreaker');
    expect(breaker.state).toBe('CLOSED');
    expect(counts(breaker.metrics)).toEqual(emptyCounts);
  });

  it('refuses calls when OPEN and counts them', () => {
    const { breaker } = breakerOnClock(conformance);
    breaker.transitionToOpenState();
    expect(() => breaker.acquirePermission()).toThrow(CallNotPermittedError);
    expect(breaker.metrics.numberOfNotPermittedCalls).toBe(1);
  });

  it('refuses calls when FORCED_OPEN, even after the wait, and counts them', async () => {
    const { breaker, clock } = breakerOnClock(conformance);
    breaker.transitionToForcedOpenState();
    expect(breaker.tryAcquirePermission()).toBe(false);
    await clock.advance(6000);
    expect(breaker.tryAcquirePermission()).toBe(false);
    expect(breaker.state).toBe('FORCED_OPEN');
    expect(counts(breaker.metrics)).toEqual({ ...emptyCounts, notPermitted: 2 });
  });

  it('hands out exactly the permitted half-open calls, and fresh ones after reopening', () => {
    const { breaker } = breakerOnClock(conformance);
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    expect([1, 2, 3, 4, 5, 6].map(() => breaker.tryAcquirePermission())).toEqual([true, true, true, true, false, false]);
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    expect([1, 2, 3, 4, 5].map(() => breaker.tryAcquirePermission())).toEqual([true, true, true, true, false]);
  });

  it('gives a released half-open permit back once, never more', () => {
    const { breaker } = breakerOnClock(conformance);
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    for (let i = 0; i < 4; i++) expect(breaker.tryAcquirePermission()).toBe(true);
    expect(breaker.tryAcquirePermission()).toBe(false);
    breaker.releasePermission();
    expect(breaker.tryAcquirePermission()).toBe(true);
    expect(breaker.tryAcquirePermission()).toBe(false);
    // Five releases for four permits out: only four come back.
    for (let i = 0; i < 5; i++) breaker.releasePermission();
    expect([1, 2, 3, 4, 5].map(() => breaker.tryAcquirePermission())).toEqual([true, true, true, true, false]);
  });

  it('throws CallNotPermittedError in HALF_OPEN once the permits are gone', () => {
    const { breaker } = breakerOnClock(conformance);
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    for (let i = 0; i < 4; i++) breaker.acquirePermission();
    expect(() => breaker.acquirePermission()).toThrow(CallNotPermittedError);
    expect(breaker.metrics.numberOfNotPermittedCalls).toBe(1);
  });

  it('opens when the failure rate reaches the threshold, with events in order', () => {
    const { breaker, events } = breakerOnClock(conformance);
    breaker.onError(0, new BoomError());
    expect(counts(breaker.metrics)).toEqual({ ...emptyCounts, buffered: 1, failed: 1 });
    breaker.onError(0, new BoomError());
    breaker.onError(0, new BoomError());
    breaker.onSuccess(0);
    expect(breaker.state).toBe('CLOSED');
    expect(counts(breaker.metrics)).toEqual({ failureRate: -1, successful: 1, buffered: 4, failed: 3, notPermitted: 0 });
    breaker.onSuccess(0);
    expect(breaker.state).toBe('OPEN');
    // OPEN keeps the metrics that opened it.
    expect(counts(breaker.metrics)).toEqual({ failureRate: 60, successful: 2, buffered: 5, failed: 3, notPermitted: 0 });
    expect(events).toEqual(['error', 'error', 'error', 'success', 'success', 'failureRateExceeded 60', 'stateTransition CLOSED->OPEN']);
    expect(breaker.tryAcquirePermission()).toBe(false);
    expect(counts(breaker.metrics)).toEqual({ failureRate: 60, successful: 2, buffered: 5, failed: 3, notPermitted: 1 });
    expect(events.at(-1)).toBe('callNotPermitted');
  });

  it('opens when the slow-call rate reaches the threshold', () => {
    const { breaker, events } = breakerOnClock(conformance);
    breaker.onError(5000, new BoomError());
    breaker.onSuccess(5000);
    breaker.onError(100, new BoomError());
    breaker.onSuccess(100);
    expect(breaker.state).toBe('CLOSED');
    breaker.onSuccess(5000);
    expect(breaker.state).toBe('OPEN');
    const m = breaker.metrics;
    expect(m.numberOfBufferedCalls).toBe(5);
    expect(m.numberOfSlowCalls).toBe(3);
    expect(m.numberOfSlowFailedCalls).toBe(1);
    expect(m.numberOfSlowSuccessfulCalls).toBe(2);
    expect(m.slowCallRate).toBe(60);
    expect(m.failureRate).toBe(40);
    expect(events.slice(-2)).toEqual(['slowCallRateExceeded 60', 'stateTransition CLOSED->OPEN']);
  });

  it('publishes both rate events when both thresholds are reached by one call', () => {
    const { breaker, events } = breakerOnClock({ ...conformance, minimumNumberOfCalls: 2 });
    breaker.onError(5000, new BoomError());
    breaker.onError(5000, new BoomError());
    expect(events.slice(-3)).toEqual(['failureRateExceeded 100', 'slowCallRateExceeded 100', 'stateTransition CLOSED->OPEN']);
  });

  it('counts a call as slow only when strictly longer than the threshold', () => {
    const { breaker } = breakerOnClock(conformance);
    breaker.onSuccess(4000);
    breaker.onSuccess(4000.5);
    expect(breaker.metrics.numberOfSlowCalls).toBe(1);
  });

  it('moves OPEN to HALF_OPEN only on the first call strictly after the wait', async () => {
    const { breaker, clock, events } = breakerOnClock(conformance);
    breaker.transitionToOpenState();
    expect(breaker.tryAcquirePermission()).toBe(false);
    await clock.advance(3000);
    expect(breaker.tryAcquirePermission()).toBe(false);
    expect(counts(breaker.metrics)).toEqual({ ...emptyCounts, notPermitted: 2 });
    await clock.advance(2000); // exactly at the deadline: still OPEN
    expect(breaker.tryAcquirePermission()).toBe(false);
    expect(breaker.state).toBe('OPEN');
    await clock.advance(1);
    expect(breaker.state).toBe('OPEN'); // reading the state does not move it
    expect(breaker.tryAcquirePermission()).toBe(true);
    expect(breaker.state).toBe('HALF_OPEN');
    expect(counts(breaker.metrics)).toEqual(emptyCounts); // fresh metrics in HALF_OPEN
    expect(events.filter((e) => e.startsWith('state'))).toEqual(['stateTransition CLOSED->OPEN', 'stateTransition OPEN->HALF_OPEN']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('waits by attempt with waitIntervalFunctionInOpenState (exponential backoff 5 s × 1.5)', async () => {
    const { breaker, clock } = breakerOnClock({
      ...conformance,
      waitDurationInOpenState: undefined,
      waitIntervalFunctionInOpenState: (attempt) => 5000 * 1.5 ** (attempt - 1),
    });
    breaker.transitionToOpenState(); // attempt 1: 5 s
    await clock.advance(5000);
    expect(breaker.tryAcquirePermission()).toBe(false);
    await clock.advance(1);
    expect(breaker.tryAcquirePermission()).toBe(true);
    expect(breaker.state).toBe('HALF_OPEN');
    breaker.transitionToOpenState(); // attempt 2: 7.5 s
    await clock.advance(7500);
    expect(breaker.tryAcquirePermission()).toBe(false);
    await clock.advance(1);
    expect(breaker.tryAcquirePermission()).toBe(true);
    // HALF_OPEN → OPEN on failures is attempt 3: 11.25 s
    for (let i = 0; i < 4; i++) {
      breaker.tryAcquirePermission();
      breaker.onError(0, new BoomError());
    }
    expect(breaker.state).toBe('OPEN');
    await clock.advance(11_250);
    expect(breaker.tryAcquirePermission()).toBe(false);
    await clock.advance(1);
    expect(breaker.tryAcquirePermission()).toBe(true);
    // Closing resets the attempt: the next opening waits 5 s again.
    breaker.transitionToClosedState();
    breaker.transitionToOpenState();
    await clock.advance(5001);
    expect(breaker.tryAcquirePermission()).toBe(true);
  });

  it('goes back to OPEN from HALF_OPEN when the failure rate is reached', () => {
    const { breaker, events } = breakerOnClock(conformance);
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    expect(counts(breaker.metrics)).toEqual(emptyCounts);
    for (const fail of [true, true, false, true]) {
      expect(breaker.tryAcquirePermission()).toBe(true);
      if (fail) breaker.onError(0, new BoomError());
      else breaker.onSuccess(0);
    }
    expect(breaker.state).toBe('OPEN');
    expect(counts(breaker.metrics)).toEqual({ failureRate: 75, successful: 1, buffered: 4, failed: 3, notPermitted: 0 });
    expect(events.slice(-2)).toEqual(['failureRateExceeded 75', 'stateTransition HALF_OPEN->OPEN']);
  });

  it('goes back to OPEN from HALF_OPEN when the slow-call rate is reached', () => {
    const { breaker } = breakerOnClock(conformance);
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    for (const ms of [5000, 5000, 5000, 1000]) {
      breaker.tryAcquirePermission();
      breaker.onSuccess(ms);
    }
    expect(breaker.state).toBe('OPEN');
    expect(breaker.metrics.numberOfSlowCalls).toBe(3);
    expect(breaker.metrics.slowCallRate).toBe(75);
    expect(breaker.metrics.failureRate).toBe(0);
  });

  it('closes from HALF_OPEN below the thresholds, with a fresh window', () => {
    const { breaker } = breakerOnClock(conformance);
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    for (const fail of [true, false, false, false]) {
      breaker.tryAcquirePermission();
      if (fail) breaker.onError(0, new BoomError());
      else breaker.onSuccess(0);
    }
    expect(breaker.state).toBe('CLOSED');
    expect(counts(breaker.metrics)).toEqual(emptyCounts);
    breaker.onSuccess(0);
    expect(counts(breaker.metrics)).toEqual({ ...emptyCounts, successful: 1, buffered: 1 });
  });

  it('decides HALF_OPEN after min(minimumNumberOfCalls, permitted) calls', () => {
    const { breaker } = breakerOnClock({ ...conformance, minimumNumberOfCalls: 2 });
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    breaker.tryAcquirePermission();
    breaker.onSuccess(0);
    expect(breaker.state).toBe('HALF_OPEN');
    breaker.tryAcquirePermission();
    breaker.onError(0, new BoomError());
    expect(breaker.state).toBe('OPEN'); // 50% of 2 reaches 50%
  });

  it('a COUNT_BASED window smaller than minimumNumberOfCalls: CLOSED decides at the window size, HALF_OPEN at min(minimumNumberOfCalls, permitted), unclamped by the window (Resilience4j’s separate setters and Spring)', () => {
    // Resilience4j's combined slidingWindow(5, 10, COUNT_BASED) stores min(10, 5) = 5 and its HALF_OPEN would decide after 5 trials.
    const { breaker } = breakerOnClock({ slidingWindowSize: 5, minimumNumberOfCalls: 10, permittedNumberOfCallsInHalfOpenState: 10 });
    expect(breaker.config.minimumNumberOfCalls).toBe(10);
    for (let i = 0; i < 4; i++) breaker.onError(0, new BoomError());
    expect(breaker.state).toBe('CLOSED');
    breaker.onError(0, new BoomError());
    expect(breaker.state).toBe('OPEN'); // 5 calls: the window size
    breaker.transitionToHalfOpenState();
    for (let i = 0; i < 9; i++) {
      breaker.acquirePermission();
      breaker.onError(0, new BoomError());
    }
    expect([breaker.state, breaker.metrics.failureRate]).toEqual(['HALF_OPEN', -1]); // not decided after 5, nor 9
    breaker.acquirePermission();
    breaker.onError(0, new BoomError());
    expect(breaker.state).toBe('OPEN'); // the 10th trial decides
  });

  it('a user’s double release while a trial of execute is in flight gives back one permit, not the trial’s', async () => {
    const { breaker, clock } = breakerOnClock({ ...conformance, permittedNumberOfCallsInHalfOpenState: 2, minimumNumberOfCalls: 2 });
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    const trial = breaker.execute(() => new Promise((resolve) => clock.setTimeout(() => resolve('a'), 100)));
    expect(breaker.tryAcquirePermission()).toBe(true); // the second permit
    breaker.releasePermission();
    breaker.releasePermission(); // released twice: once
    expect(breaker.tryAcquirePermission()).toBe(true);
    expect(breaker.tryAcquirePermission()).toBe(false); // two trials at once, not three
    breaker.onSuccess(0);
    await clock.advance(100);
    await expect(trial).resolves.toBe('a');
    expect(breaker.state).toBe('CLOSED');
  });

  it('a trial permit of an earlier HALF_OPEN is never given to a later one', async () => {
    const { breaker, clock } = breakerOnClock({ ...conformance, permittedNumberOfCallsInHalfOpenState: 2, minimumNumberOfCalls: 2 });
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    const stale = breaker.execute(() => new Promise((_, reject) => clock.setTimeout(() => reject(new IgnoredError()), 50))).catch((e: unknown) => e);
    breaker.transitionToHalfOpenState(); // fresh permits
    const slow = () => new Promise((resolve) => clock.setTimeout(() => resolve('ok'), 100));
    const calls = [breaker.execute(slow), breaker.execute(slow)];
    await clock.advance(50);
    expect(await stale).toBeInstanceOf(IgnoredError);
    expect(breaker.tryAcquirePermission()).toBe(false); // the stale release went nowhere
    await clock.advance(50);
    await Promise.all(calls);
    expect(breaker.state).toBe('CLOSED');
  });
});
