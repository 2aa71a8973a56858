import { CallNotPermittedError, IllegalStateTransitionError } from '@breakwater/core';
import { afterEach, describe, expect, it } from 'vitest';
import { STATES } from './states.js';
import { BoomError, breakerOnClock, counts, IgnoredError, expectNoLeakedTimers } from './test-support.js';

afterEach(expectNoLeakedTimers);

// The configuration of Resilience4j's CircuitBreakerStateMachineTest, in our words:
// a 5 s time window with a minimum of 5 calls, 4 half-open permits, 4 s slow threshold.
const conformance = {
  failureRateThreshold: 50,
  permittedNumberOfCallsInHalfOpenState: 4,
  slowCallDurationThreshold: 4000,
  slowCallRateThreshold: 50,
  slidingWindowType: 'TIME_BASED',
  slidingWindowSize: 5,
  minimumNumberOfCalls: 5,
  waitDurationInOpenState: 5000,
  ignoreExceptions: [IgnoredError],
} as const;

const empty = { failureRate: -1, successful: 0, buffered: 0, failed: 0, notPermitted: 0 };

describe('CircuitBreaker state machine', () => {
  it('keeps its name and starts CLOSED with empty metrics', () => {
    const { breaker } = breakerOnClock(conformance, 'pg');
    expect(breaker.name).toBe('pg');
    expect(breaker.kind).toBe('circuitBreaker');
    expect(breaker.state).toBe('CLOSED');
    expect(counts(breaker.metrics)).toEqual(empty);
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
    expect(counts(breaker.metrics)).toEqual({ ...empty, notPermitted: 2 });
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
    expect(counts(breaker.metrics)).toEqual({ ...empty, buffered: 1, failed: 1 });
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
    expect(counts(breaker.metrics)).toEqual({ ...empty, notPermitted: 2 });
    await clock.advance(2000); // exactly at the deadline: still OPEN
    expect(breaker.tryAcquirePermission()).toBe(false);
    expect(breaker.state).toBe('OPEN');
    await clock.advance(1);
    expect(breaker.state).toBe('OPEN'); // reading the state does not move it
    expect(breaker.tryAcquirePermission()).toBe(true);
    expect(breaker.state).toBe('HALF_OPEN');
    expect(counts(breaker.metrics)).toEqual(empty); // fresh metrics in HALF_OPEN
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
    expect(counts(breaker.metrics)).toEqual(empty);
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
    expect(counts(breaker.metrics)).toEqual(empty);
    breaker.onSuccess(0);
    expect(counts(breaker.metrics)).toEqual({ ...empty, successful: 1, buffered: 1 });
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

  it('releases the permit of an ignored error and does not count it', () => {
    const { breaker, events } = breakerOnClock(conformance);
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    for (let i = 0; i < 3; i++) {
      breaker.tryAcquirePermission();
      breaker.onSuccess(0);
    }
    expect(counts(breaker.metrics)).toEqual({ ...empty, successful: 3, buffered: 3 });
    expect(breaker.tryAcquirePermission()).toBe(true);
    breaker.onError(0, new IgnoredError());
    expect(breaker.state).toBe('HALF_OPEN');
    expect(counts(breaker.metrics)).toEqual({ ...empty, successful: 3, buffered: 3 });
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
    expect(counts(breaker.metrics)).toEqual(empty);
  });

  it('DISABLED permits everything, records nothing and publishes no call events', () => {
    const { breaker, events } = breakerOnClock(conformance);
    breaker.transitionToDisabledState();
    for (let i = 0; i < 10; i++) {
      breaker.acquirePermission();
      breaker.onError(0, new BoomError());
    }
    breaker.onSuccess(0);
    expect(breaker.state).toBe('DISABLED');
    expect(counts(breaker.metrics)).toEqual(empty);
    expect(events).toEqual(['stateTransition CLOSED->DISABLED']);
  });

  it('METRICS_ONLY records, never transitions, and publishes each rate event once', () => {
    const { breaker, events } = breakerOnClock(conformance);
    breaker.onSuccess(0);
    breaker.transitionToMetricsOnlyState();
    expect(counts(breaker.metrics)).toEqual(empty); // fresh metrics
    for (let i = 0; i < 3; i++) breaker.onError(0, new BoomError());
    breaker.onSuccess(0);
    breaker.onSuccess(0);
    expect(breaker.state).toBe('METRICS_ONLY');
    expect(counts(breaker.metrics)).toEqual({ failureRate: 60, successful: 2, buffered: 5, failed: 3, notPermitted: 0 });
    breaker.onError(0, new BoomError());
    for (let i = 0; i < 6; i++) breaker.onError(5000, new BoomError()); // 6 slow of 12
    expect(breaker.state).toBe('METRICS_ONLY');
    expect(events.filter((e) => e.includes('Exceeded'))).toEqual(['failureRateExceeded 60', 'slowCallRateExceeded 50']);
    expect(events.filter((e) => e.startsWith('state'))).toEqual(['stateTransition CLOSED->METRICS_ONLY']);
  });

  it('reset goes back to CLOSED with fresh metrics and publishes stateTransition then reset', () => {
    const { breaker, events } = breakerOnClock(conformance);
    breaker.onSuccess(0);
    breaker.onError(0, new BoomError());
    expect(counts(breaker.metrics)).toEqual({ ...empty, successful: 1, buffered: 2, failed: 1 });
    breaker.reset();
    expect(counts(breaker.metrics)).toEqual(empty);
    expect(events.slice(-1)).toEqual(['reset']);
    breaker.transitionToOpenState();
    breaker.reset();
    expect(breaker.state).toBe('CLOSED');
    expect(events.slice(-2)).toEqual(['stateTransition OPEN->CLOSED', 'reset']);
  });

  it('refuses illegal transitions and changes nothing', () => {
    const { breaker, events } = breakerOnClock(conformance, 'pg');
    expect(() => breaker.transitionToHalfOpenState()).toThrow(IllegalStateTransitionError);
    try {
      breaker.transitionToHalfOpenState();
    } catch (e) {
      expect(e).toMatchObject({ circuitBreakerName: 'pg', from: 'CLOSED', to: 'HALF_OPEN' });
      expect((e as Error).message).toBe("CircuitBreaker 'pg' cannot move from CLOSED to HALF_OPEN");
    }
    breaker.transitionToMetricsOnlyState();
    expect(() => breaker.transitionToOpenState()).toThrow(IllegalStateTransitionError);
    expect(() => breaker.transitionToHalfOpenState()).toThrow(IllegalStateTransitionError);
    expect(breaker.state).toBe('METRICS_ONLY');
    expect(events).toEqual(['stateTransition CLOSED->METRICS_ONLY']);
  });

  it('follows the whole transition table of Resilience4j', () => {
    const illegal = new Set(['CLOSED->HALF_OPEN', 'METRICS_ONLY->OPEN', 'METRICS_ONLY->HALF_OPEN']);
    const go = {
      CLOSED: 'transitionToClosedState',
      OPEN: 'transitionToOpenState',
      HALF_OPEN: 'transitionToHalfOpenState',
      DISABLED: 'transitionToDisabledState',
      FORCED_OPEN: 'transitionToForcedOpenState',
      METRICS_ONLY: 'transitionToMetricsOnlyState',
    } as const;
    for (const from of STATES) {
      for (const to of STATES) {
        const { breaker, events } = breakerOnClock({ ...conformance, initialState: from });
        expect(breaker.state).toBe(from);
        if (illegal.has(`${from}->${to}`)) {
          expect(() => breaker[go[to]]()).toThrow(IllegalStateTransitionError);
          expect(breaker.state).toBe(from);
        } else {
          breaker[go[to]]();
          expect(breaker.state).toBe(to);
          // Self-transitions are silent.
          expect(events).toEqual(from === to ? [] : [`stateTransition ${from}->${to}`]);
        }
      }
    }
  });

  it('a self-transition starts a fresh state', () => {
    const { breaker } = breakerOnClock(conformance);
    breaker.onSuccess(0);
    breaker.transitionToClosedState();
    expect(counts(breaker.metrics)).toEqual(empty);
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    for (let i = 0; i < 4; i++) breaker.tryAcquirePermission();
    breaker.transitionToHalfOpenState();
    expect(breaker.tryAcquirePermission()).toBe(true);
  });

  it('opens for a given time or until a clock time', async () => {
    const { breaker, clock } = breakerOnClock(conformance);
    breaker.transitionToOpenStateFor(1000);
    await clock.advance(1000);
    expect(breaker.tryAcquirePermission()).toBe(false);
    await clock.advance(1);
    expect(breaker.tryAcquirePermission()).toBe(true);
    breaker.transitionToOpenStateUntil(clock.now() + 250);
    await clock.advance(250);
    expect(breaker.tryAcquirePermission()).toBe(false);
    await clock.advance(1);
    expect(breaker.tryAcquirePermission()).toBe(true);
    expect(() => breaker.transitionToOpenStateFor(-1)).toThrow(RangeError);
  });

  it('moves OPEN to HALF_OPEN by a timer at the deadline when automatic transition is on', async () => {
    const { breaker, clock, events } = breakerOnClock({ ...conformance, automaticTransitionFromOpenToHalfOpenEnabled: true });
    breaker.transitionToOpenState();
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(4999);
    expect(breaker.state).toBe('OPEN');
    await clock.advance(1);
    expect(breaker.state).toBe('HALF_OPEN');
    expect(events).toEqual(['stateTransition CLOSED->OPEN', 'stateTransition OPEN->HALF_OPEN']);
    expect(clock.pendingTimers).toBe(0);
    // Leaving OPEN by hand clears the timer.
    breaker.transitionToOpenState();
    expect(clock.pendingTimers).toBe(1);
    breaker.transitionToClosedState();
    expect(clock.pendingTimers).toBe(0);
  });

  it('forces OPEN after maxWaitDurationInHalfOpenState, attempt growing', async () => {
    const { breaker, clock, events } = breakerOnClock({ ...conformance, maxWaitDurationInHalfOpenState: 2000 });
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    breaker.tryAcquirePermission();
    await clock.advance(1999);
    expect(breaker.state).toBe('HALF_OPEN');
    await clock.advance(1);
    expect(breaker.state).toBe('OPEN');
    expect(events.at(-1)).toBe('stateTransition HALF_OPEN->OPEN');
    expect(clock.pendingTimers).toBe(0);
  });

  it('forces CLOSED after maxWaitDurationInHalfOpenState when told to', async () => {
    const { breaker, clock } = breakerOnClock({
      ...conformance,
      maxWaitDurationInHalfOpenState: '2s',
      transitionToStateAfterWaitDuration: 'CLOSED',
    });
    breaker.transitionToOpenState();
    await clock.advance(5001);
    expect(breaker.tryAcquirePermission()).toBe(true); // lazily HALF_OPEN, timer started
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(2000);
    expect(breaker.state).toBe('CLOSED');
    expect(clock.pendingTimers).toBe(0);
  });

  it('clears the half-open timer when HALF_OPEN decides first', async () => {
    const { breaker, clock } = breakerOnClock({ ...conformance, maxWaitDurationInHalfOpenState: 2000 });
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    for (let i = 0; i < 4; i++) {
      breaker.tryAcquirePermission();
      breaker.onSuccess(0);
    }
    expect(breaker.state).toBe('CLOSED');
    expect(clock.pendingTimers).toBe(0);
  });

  it('counts an error that is neither recorded nor ignored as a success', () => {
    const { breaker, events } = breakerOnClock({ ...conformance, recordExceptions: [BoomError] });
    breaker.onError(0, new TypeError('not a backend failure'));
    expect(counts(breaker.metrics)).toEqual({ ...empty, successful: 1, buffered: 1 });
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
    expect(counts(breaker.metrics)).toEqual({ ...empty, buffered: 3, failed: 2, successful: 1 });
  });

  it('records a result matching recordResult as a failure but hands the value back', async () => {
    const { breaker, events } = breakerOnClock({ ...conformance, minimumNumberOfCalls: 1, recordResult: (r) => (r as { status: number }).status >= 500 });
    const value = await breaker.execute(() => ({ status: 503 }));
    expect(value).toEqual({ status: 503 });
    expect(breaker.metrics.numberOfFailedCalls).toBe(1);
    expect(breaker.state).toBe('OPEN');
    expect(events.slice(0, 2)).toEqual(['error', 'failureRateExceeded 100']);
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

  it('starts in the configured initial state', () => {
    expect(breakerOnClock({ initialState: 'OPEN' }).breaker.tryAcquirePermission()).toBe(false);
    expect(breakerOnClock({ initialState: 'FORCED_OPEN' }).breaker.state).toBe('FORCED_OPEN');
    expect(breakerOnClock({ initialState: 'HALF_OPEN' }).breaker.tryAcquirePermission()).toBe(true);
  });

  it('publishes no call events in FORCED_OPEN (as in Resilience4j), and still counts refused calls', async () => {
    const { breaker, events } = breakerOnClock({ ...conformance, ignoreExceptions: [IgnoredError] });
    expect(breaker.tryAcquirePermission()).toBe(true); // a call permitted in CLOSED, ending in FORCED_OPEN
    breaker.transitionToForcedOpenState();
    breaker.onSuccess(0);
    breaker.onError(0, new BoomError());
    breaker.onError(0, new IgnoredError());
    expect(breaker.tryAcquirePermission()).toBe(false);
    await expect(breaker.execute(() => 1)).rejects.toThrow(CallNotPermittedError);
    expect(events).toEqual(['stateTransition CLOSED->FORCED_OPEN']);
    expect(breaker.metrics.numberOfNotPermittedCalls).toBe(2);
  });

  it('publishes no ignoredError in DISABLED either', () => {
    const { breaker, events } = breakerOnClock(conformance);
    breaker.transitionToDisabledState();
    breaker.onError(0, new IgnoredError());
    expect(events).toEqual(['stateTransition CLOSED->DISABLED']);
  });

  it('counts the opening attempt as Resilience4j: OPEN adds one, OpenStateFor/Until keep it, FORCED_OPEN adds one, CLOSED resets it', async () => {
    const attempts: number[] = [];
    const { breaker, clock } = breakerOnClock({
      ...conformance,
      waitDurationInOpenState: undefined,
      waitIntervalFunctionInOpenState: (attempt) => {
        attempts.push(attempt);
        return 1000;
      },
    });
    attempts.length = 0; // the check of attempt 1 at construction
    breaker.transitionToOpenState(); // attempt 1
    breaker.transitionToOpenStateFor('10ms'); // keeps 1
    await clock.advance(11);
    expect(breaker.tryAcquirePermission()).toBe(true); // HALF_OPEN keeps 1
    breaker.transitionToOpenState(); // 2
    breaker.transitionToForcedOpenState(); // 3
    breaker.transitionToOpenState(); // 4
    breaker.transitionToOpenStateUntil(clock.now() + 5); // keeps 4
    breaker.transitionToHalfOpenState();
    for (let i = 0; i < 4; i++) {
      breaker.tryAcquirePermission();
      breaker.onError(0, new BoomError());
    }
    expect(breaker.state).toBe('OPEN'); // HALF_OPEN → OPEN on failures: 5
    breaker.transitionToClosedState();
    breaker.transitionToOpenStateFor(0); // CLOSED's 0, kept
    breaker.transitionToHalfOpenState();
    breaker.transitionToOpenState(); // 1
    expect(attempts).toEqual([1, 2, 4, 5, 1]);
  });

  it.each(['HALF_OPEN', 'FORCED_OPEN', 'OPEN'] as const)('a breaker created %s is at opening attempt 1', (initialState) => {
    const attempts: number[] = [];
    const { breaker } = breakerOnClock({
      ...conformance,
      initialState,
      waitDurationInOpenState: undefined,
      waitIntervalFunctionInOpenState: (attempt) => {
        attempts.push(attempt);
        return 1000;
      },
    });
    if (initialState === 'OPEN') breaker.transitionToHalfOpenState();
    breaker.transitionToOpenState();
    // The check of attempt 1 at construction, (OPEN: its own wait,) then the next opening: attempt 2.
    expect(attempts).toEqual(initialState === 'OPEN' ? [1, 1, 2] : [1, 2]);
  });

  it('lets a listener’s manual transition from failureRateExceeded win over the pending OPEN', () => {
    const { breaker, events, clock } = breakerOnClock({ ...conformance, automaticTransitionFromOpenToHalfOpenEnabled: true });
    breaker.on('failureRateExceeded', () => breaker.transitionToForcedOpenState());
    for (let i = 0; i < 5; i++) breaker.onError(0, new BoomError());
    expect(breaker.state).toBe('FORCED_OPEN');
    // The '*' listener logs the rate event after the typed listener's own transition has run.
    expect(events.slice(-2)).toEqual(['stateTransition CLOSED->FORCED_OPEN', 'failureRateExceeded 100']);
    expect(events.filter((e) => e.includes('->OPEN'))).toEqual([]);
    expect(clock.pendingTimers).toBe(0); // no OPEN was built, no timer armed
  });

  it('lets a listener’s manual transition win in HALF_OPEN too', () => {
    const { breaker, events } = breakerOnClock(conformance);
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    breaker.on('slowCallRateExceeded', () => breaker.transitionToClosedState());
    for (let i = 0; i < 4; i++) {
      breaker.tryAcquirePermission();
      breaker.onSuccess(5000);
    }
    expect(breaker.state).toBe('CLOSED');
    expect(events.slice(-2)).toEqual(['stateTransition HALF_OPEN->CLOSED', 'slowCallRateExceeded 100']);
    expect(events.filter((e) => e.includes('HALF_OPEN->OPEN'))).toEqual([]);
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
