import { afterEach, describe, expect, it } from 'vitest';
import type { CircuitBreaker } from './circuit-breaker.js';
import type { CircuitBreakerConfig } from './config.js';
import { BoomError, breakerOnClock, expectNoLeakedTimers } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

// Every path of docs/observability.md's `cause` (failure_rate | slow_call_rate | half_open_trial | wait_elapsed |
// manual), with every event the breaker publishes, in order.

/** A breaker on a VirtualClock and its events, a `stateTransition` as `FROM->TO cause`. */
function setUp(config: CircuitBreakerConfig = {}) {
  const { clock, breaker } = breakerOnClock({ ...small, ...config });
  const events = record(breaker);
  return { clock, breaker, events };
}

function record(breaker: CircuitBreaker): string[] {
  const events: string[] = [];
  breaker.on('*', (e) => {
    const detail =
      e.type === 'stateTransition'
        ? ` ${e.from}->${e.to} ${e.cause}`
        : e.type === 'failureRateExceeded'
          ? ` ${e.failureRate}`
          : e.type === 'slowCallRateExceeded'
            ? ` ${e.slowCallRate}`
            : '';
    events.push(`${e.type}${detail}`);
  });
  return events;
}

/** Four calls decide in CLOSED, two in HALF_OPEN; slow means over 100 ms; both rates at 50%. */
const small = {
  slidingWindowSize: 4,
  minimumNumberOfCalls: 4,
  permittedNumberOfCallsInHalfOpenState: 2,
  waitDurationInOpenState: 1000,
  slowCallDurationThreshold: 100,
  slowCallRateThreshold: 50,
  failureRateThreshold: 50,
} as const;

/** CLOSED → OPEN by the failure rate (4 errors of 4), then HALF_OPEN by hand; the events cleared. */
function toHalfOpen(breaker: CircuitBreaker, events: string[]): void {
  breaker.transitionToOpenState();
  breaker.transitionToHalfOpenState();
  events.length = 0;
}

describe('stateTransition cause: the thresholds', () => {
  it("CLOSED → OPEN when the failure rate reached its threshold: 'failure_rate'", () => {
    const { breaker, events } = setUp();
    breaker.onSuccess(0);
    breaker.onSuccess(0);
    breaker.onError(0, new BoomError());
    breaker.onError(0, new BoomError());
    expect(events).toEqual(['success', 'success', 'error', 'error', 'failureRateExceeded 50', 'stateTransition CLOSED->OPEN failure_rate']);
  });

  it("CLOSED → OPEN when only the slow-call rate reached its threshold: 'slow_call_rate'", () => {
    const { breaker, events } = setUp();
    breaker.onSuccess(0);
    breaker.onSuccess(0);
    breaker.onSuccess(101);
    breaker.onError(101, new BoomError()); // failure rate 25%, slow 50%
    expect(events).toEqual(['success', 'success', 'success', 'error', 'slowCallRateExceeded 50', 'stateTransition CLOSED->OPEN slow_call_rate']);
  });

  it("CLOSED → OPEN when both rates reached their thresholds at once: 'failure_rate'", () => {
    const { breaker, events } = setUp();
    breaker.onSuccess(0);
    breaker.onSuccess(0);
    breaker.onError(101, new BoomError());
    breaker.onError(101, new BoomError());
    expect(events).toEqual([
      'success',
      'success',
      'error',
      'error',
      'failureRateExceeded 50',
      'slowCallRateExceeded 50',
      'stateTransition CLOSED->OPEN failure_rate',
    ]);
  });

  it("HALF_OPEN → OPEN on the failure rate: 'failure_rate'; on the slow-call rate only: 'slow_call_rate'", () => {
    const first = setUp();
    toHalfOpen(first.breaker, first.events);
    first.breaker.onSuccess(0);
    first.breaker.onError(0, new BoomError());
    expect(first.events).toEqual(['success', 'error', 'failureRateExceeded 50', 'stateTransition HALF_OPEN->OPEN failure_rate']);

    const second = setUp();
    toHalfOpen(second.breaker, second.events);
    second.breaker.onSuccess(0);
    second.breaker.onSuccess(101);
    expect(second.events).toEqual(['success', 'success', 'slowCallRateExceeded 50', 'stateTransition HALF_OPEN->OPEN slow_call_rate']);

    const both = setUp();
    toHalfOpen(both.breaker, both.events);
    both.breaker.onSuccess(0);
    both.breaker.onError(101, new BoomError());
    expect(both.events).toEqual(['success', 'error', 'failureRateExceeded 50', 'slowCallRateExceeded 50', 'stateTransition HALF_OPEN->OPEN failure_rate']);
  });

  it("HALF_OPEN → CLOSED after the trial calls: 'half_open_trial' (through execute too)", async () => {
    const { breaker, events } = setUp();
    toHalfOpen(breaker, events);
    await breaker.execute(() => 'a');
    await expect(breaker.execute(() => Promise.reject(new BoomError()))).rejects.toBeInstanceOf(BoomError); // 1 failed of 2: 50% reaches the threshold
    expect(events).toEqual(['success', 'error', 'failureRateExceeded 50', 'stateTransition HALF_OPEN->OPEN failure_rate']);
    breaker.transitionToHalfOpenState();
    events.length = 0;
    await breaker.execute(() => 'a');
    await breaker.execute(() => 'b');
    expect(events).toEqual(['success', 'success', 'stateTransition HALF_OPEN->CLOSED half_open_trial']);
  });

  it('METRICS_ONLY never transitions: its rate events come with no stateTransition', () => {
    const { breaker, events } = setUp();
    breaker.transitionToMetricsOnlyState();
    events.length = 0;
    for (let i = 0; i < 4; i++) breaker.onError(101, new BoomError());
    expect(breaker.state).toBe('METRICS_ONLY');
    expect(events).toEqual(['error', 'error', 'error', 'error', 'failureRateExceeded 100', 'slowCallRateExceeded 100']);
  });
});

describe("stateTransition cause: 'wait_elapsed'", () => {
  it('OPEN → HALF_OPEN lazily, on the first call after the wait', async () => {
    const { clock, breaker, events } = setUp();
    for (let i = 0; i < 4; i++) breaker.onError(0, new BoomError());
    events.length = 0;
    await clock.advance(1000);
    expect(breaker.tryAcquirePermission()).toBe(false); // not strictly after the deadline yet
    await clock.advance(1);
    await expect(breaker.execute(() => 'ok')).resolves.toBe('ok');
    expect(events).toEqual(['callNotPermitted', 'stateTransition OPEN->HALF_OPEN wait_elapsed', 'success']);
  });

  it('OPEN → HALF_OPEN by the automatic timer', async () => {
    const { clock, breaker, events } = setUp({ automaticTransitionFromOpenToHalfOpenEnabled: true });
    for (let i = 0; i < 4; i++) breaker.onError(0, new BoomError());
    events.length = 0;
    await clock.advance(1000);
    expect(events).toEqual(['stateTransition OPEN->HALF_OPEN wait_elapsed']);
    breaker.transitionToClosedState(); // no timer left
  });

  it('the move forced by maxWaitDurationInHalfOpenState, to OPEN (the default) and to CLOSED', async () => {
    const toOpen = setUp({ maxWaitDurationInHalfOpenState: 500 });
    toHalfOpen(toOpen.breaker, toOpen.events);
    await toOpen.clock.advance(500);
    expect(toOpen.events).toEqual(['stateTransition HALF_OPEN->OPEN wait_elapsed']);

    const toClosed = setUp({ maxWaitDurationInHalfOpenState: 500, transitionToStateAfterWaitDuration: 'CLOSED' });
    toHalfOpen(toClosed.breaker, toClosed.events);
    await toClosed.clock.advance(500);
    expect(toClosed.events).toEqual(['stateTransition HALF_OPEN->CLOSED wait_elapsed']);
  });
});

describe("stateTransition cause: 'manual'", () => {
  it('every transitionTo…State() and reset()', () => {
    const { clock, breaker, events } = setUp();
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    breaker.transitionToClosedState();
    breaker.transitionToOpenStateFor(5000);
    breaker.transitionToForcedOpenState();
    breaker.transitionToOpenStateUntil(clock.now() + 5000);
    breaker.transitionToDisabledState();
    breaker.transitionToMetricsOnlyState();
    breaker.reset();
    expect(events).toEqual([
      'stateTransition CLOSED->OPEN manual',
      'stateTransition OPEN->HALF_OPEN manual',
      'stateTransition HALF_OPEN->CLOSED manual',
      'stateTransition CLOSED->OPEN manual',
      'stateTransition OPEN->FORCED_OPEN manual',
      'stateTransition FORCED_OPEN->OPEN manual',
      'stateTransition OPEN->DISABLED manual',
      'stateTransition DISABLED->METRICS_ONLY manual',
      'stateTransition METRICS_ONLY->CLOSED manual',
      'reset',
    ]);
  });

  it('a transition made by a listener is manual, and the one it replaces is not published', () => {
    const { breaker, events } = setUp();
    // On '*', after the recorder: it sees each event before the listener acts on it.
    breaker.on('*', (e) => {
      if (e.type === 'failureRateExceeded') breaker.transitionToForcedOpenState();
    });
    for (let i = 0; i < 4; i++) breaker.onError(0, new BoomError());
    expect(events).toEqual(['error', 'error', 'error', 'error', 'failureRateExceeded 100', 'stateTransition CLOSED->FORCED_OPEN manual']);
  });

  it('a listener of the wait_elapsed move that moves the breaker on: manual', async () => {
    const { clock, breaker, events } = setUp();
    for (let i = 0; i < 4; i++) breaker.onError(0, new BoomError());
    breaker.on('*', (e) => {
      if (e.type === 'stateTransition' && e.to === 'HALF_OPEN') breaker.transitionToClosedState();
    });
    events.length = 0;
    await clock.advance(1001);
    await expect(breaker.execute(() => 'ok')).resolves.toBe('ok');
    expect(events).toEqual(['stateTransition OPEN->HALF_OPEN wait_elapsed', 'stateTransition HALF_OPEN->CLOSED manual', 'success']);
  });
});

describe("a transition by hand with { cause: 'fleet' }", () => {
  it('reports fleet on the event; without options it stays manual', () => {
    const { clock, breaker, events } = setUp();
    breaker.transitionToForcedOpenState({ cause: 'fleet' });
    breaker.transitionToClosedState();
    breaker.transitionToOpenStateFor('2s', { cause: 'fleet' });
    breaker.transitionToOpenStateUntil(clock.now() + 5000, { cause: 'manual' });
    breaker.transitionToHalfOpenState({ cause: 'fleet' });
    breaker.transitionToDisabledState({ cause: 'fleet' });
    breaker.transitionToMetricsOnlyState({ cause: 'fleet' });
    breaker.transitionToClosedState({ cause: 'fleet' });
    breaker.transitionToOpenState({ cause: 'fleet' });
    expect(events.filter((e) => e.startsWith('stateTransition'))).toEqual([
      'stateTransition CLOSED->FORCED_OPEN fleet',
      'stateTransition FORCED_OPEN->CLOSED manual',
      'stateTransition CLOSED->OPEN fleet',
      'stateTransition OPEN->HALF_OPEN fleet',
      'stateTransition HALF_OPEN->DISABLED fleet',
      'stateTransition DISABLED->METRICS_ONLY fleet',
      'stateTransition METRICS_ONLY->CLOSED fleet',
      'stateTransition CLOSED->OPEN fleet',
    ]);
  });

  it('refuses any other cause, naming the option, and changes nothing', () => {
    const { breaker } = setUp();
    expect(() => breaker.transitionToOpenState({ cause: 'failure_rate' as never })).toThrow(/option cause must be 'manual' or 'fleet', got "failure_rate"/);
    expect(breaker.state).toBe('CLOSED');
  });
});
