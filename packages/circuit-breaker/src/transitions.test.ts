import { CallNotPermittedError, IllegalStateTransitionError } from '@breakwater/core';
import { afterEach, describe, expect, it } from 'vitest';
import { STATES } from './states.js';
import { BoomError, breakerOnClock, conformance, counts, emptyCounts, expectNoLeakedTimers, IgnoredError } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

describe('CircuitBreaker transitions: the special states, by hand, by timer, and the opening attempt', () => {
  it('DISABLED permits everything, records nothing and publishes no call events', () => {
    const { breaker, events } = breakerOnClock(conformance);
    breaker.transitionToDisabledState();
    for (let i = 0; i < 10; i++) {
      breaker.acquirePermission();
      breaker.onError(0, new BoomError());
    }
    breaker.onSuccess(0);
    expect(breaker.state).toBe('DISABLED');
    expect(counts(breaker.metrics)).toEqual(emptyCounts);
    expect(events).toEqual(['stateTransition CLOSED->DISABLED']);
  });

  it('METRICS_ONLY records, never transitions, and publishes each rate event once', () => {
    const { breaker, events } = breakerOnClock(conformance);
    breaker.onSuccess(0);
    breaker.transitionToMetricsOnlyState();
    expect(counts(breaker.metrics)).toEqual(emptyCounts); // fresh metrics
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
    expect(counts(breaker.metrics)).toEqual({ ...emptyCounts, successful: 1, buffered: 2, failed: 1 });
    breaker.reset();
    expect(counts(breaker.metrics)).toEqual(emptyCounts);
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
    expect(counts(breaker.metrics)).toEqual(emptyCounts);
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
});
