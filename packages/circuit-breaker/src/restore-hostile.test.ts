import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';
import type { CircuitBreakerConfig } from './config.js';
import type { CircuitBreakerSnapshot, WindowSnapshot } from './snapshot.js';
import { STATES } from './states.js';
import { expectNoLeakedTimers, trackedClock } from '../test/test-support.js';

// Snapshots no breaker with the restoring config could have produced (a store holds anything):
// restore repairs what it can decide as the breaker would have (a decided half-open trial window,
// a deadline beyond the config's wait) and refuses what is no breaker's at all (contract: docs/scale-out.md).

afterEach(expectNoLeakedTimers);

/** The wall time every snapshot here was taken at. */
const BASE = 1_764_619_200_000;
const PREFIX = "CircuitBreaker 'pg': restore(name, config, snapshot): ";

const trials = (outcomes: string, size: number): WindowSnapshot => ({ type: 'HALF_OPEN_TRIALS', size, outcomes });

/** A snapshot as a store could hold it: taken at BASE, CLOSED with an empty window of 10 calls unless `fields` say otherwise. */
function stored(fields: Partial<Omit<CircuitBreakerSnapshot, 'metrics'>> & { window?: WindowSnapshot; notPermitted?: number }): CircuitBreakerSnapshot {
  const { window = { type: 'COUNT_BASED', size: 10, outcomes: '' }, notPermitted = 0, ...rest } = fields;
  return {
    version: 1,
    name: 'pg',
    takenAt: BASE,
    state: 'CLOSED',
    attempt: 0,
    openUntil: null,
    halfOpenUntil: null,
    metrics: { window, notPermitted, reported: [] },
    ...rest,
  };
}

/**
 * Restores `snapshot` on a new clock at 0 whose wall time is `later` ms after the snapshot's; the
 * events the restored breaker publishes afterwards, and its own snapshot at any moment.
 */
function restoreAt(config: CircuitBreakerConfig, snapshot: unknown, later = 0) {
  const clock = trackedClock();
  const wallClock = () => BASE + later + clock.now();
  const breaker = CircuitBreaker.restore('pg', { slidingWindowSize: 10, ...config, clock }, snapshot, { wallClock });
  const events: string[] = [];
  breaker.on('*', (e) => events.push(e.type === 'stateTransition' ? `${e.from}->${e.to} ${e.cause}` : e.type));
  return { breaker, clock, events, wallClock, again: () => breaker.snapshot({ wallClock }) };
}

describe('a HALF_OPEN whose trial window is already decided is decided at restore, as the breaker would have', () => {
  it("'111' with 3 permits: OPEN at the next attempt, its wait counted from when the snapshot was taken (it refused every call for ever)", async () => {
    const config = { permittedNumberOfCallsInHalfOpenState: 3, waitIntervalFunctionInOpenState: (n: number) => 1000 * n };
    const { breaker, clock, events, again } = restoreAt(config, stored({ state: 'HALF_OPEN', attempt: 2, window: trials('111', 3) }), 500);
    expect(breaker.state).toBe('OPEN');
    // The OPEN after failed trials keeps them visible, as a breaker deciding them does.
    expect(again()).toMatchObject({ state: 'OPEN', attempt: 3, openUntil: BASE + 3000, metrics: { window: trials('111', 3) } });
    expect([breaker.metrics.failureRate, breaker.metrics.numberOfBufferedCalls]).toEqual([100, 3]);
    await clock.advance(2500); // BASE + 3000: the deadline, not after it
    expect(breaker.tryAcquirePermission()).toBe(false);
    await clock.advance(1);
    expect(breaker.tryAcquirePermission()).toBe(true);
    expect(breaker.state).toBe('HALF_OPEN');
    expect(events).toEqual(['callNotPermitted', 'OPEN->HALF_OPEN wait_elapsed']);
    breaker.releasePermission();
  });

  it.each([
    ['three failures of 3', '111', 3, {}, 'OPEN'],
    ['one slow call of 1 (the slow-call rate)', '2', 1, {}, 'OPEN'],
    ['half failed, at a 50% threshold (>=)', '0101', 4, { failureRateThreshold: 50 }, 'OPEN'],
    ['one failure of 4', '0001', 4, {}, 'CLOSED'],
    ['two successes of 4, at a minimum of 2', '00', 4, { minimumNumberOfCalls: 2 }, 'CLOSED'],
    ['two failures of 4 under a lowered minimum of 2 (a config change)', '11', 4, { minimumNumberOfCalls: 2 }, 'OPEN'],
    ['two failures of 4 at the minimum of 4: undecided, HALF_OPEN', '11', 4, { minimumNumberOfCalls: 4 }, 'HALF_OPEN'],
  ] as const)('%s: %s', (_what, outcomes, permitted, extra, state) => {
    const config = { permittedNumberOfCallsInHalfOpenState: permitted, slowCallDurationThreshold: 100, slowCallRateThreshold: 100, ...extra };
    const { breaker, again } = restoreAt(config, stored({ state: 'HALF_OPEN', attempt: 1, window: trials(outcomes, permitted) }));
    expect(breaker.state).toBe(state);
    const snapshot = again();
    if (state === 'CLOSED')
      expect(snapshot).toMatchObject({ attempt: 0, metrics: { window: { type: 'COUNT_BASED', size: 10, outcomes: '' }, notPermitted: 0 } });
    if (state === 'OPEN') expect(snapshot).toMatchObject({ attempt: 2, openUntil: BASE + 60_000, metrics: { window: trials(outcomes, permitted) } });
    if (state === 'HALF_OPEN')
      expect([breaker.tryAcquirePermission(), breaker.tryAcquirePermission(), breaker.tryAcquirePermission()]).toEqual([true, true, false]);
  });

  it('an OPEN it decides on has its automatic timer, due at once when the wait ran out in the store; no half-open timer is left', async () => {
    const config = {
      permittedNumberOfCallsInHalfOpenState: 2,
      waitDurationInOpenState: 5000,
      automaticTransitionFromOpenToHalfOpenEnabled: true,
      maxWaitDurationInHalfOpenState: 60_000,
    };
    const snapshot = stored({ state: 'HALF_OPEN', attempt: 1, halfOpenUntil: BASE + 60_000, window: trials('11', 2) });
    const soon = restoreAt(config, snapshot, 1000);
    expect([soon.breaker.state, soon.clock.pendingTimers, soon.clock.nextTimerAt]).toEqual(['OPEN', 1, 4000]);
    soon.breaker.transitionToClosedState();
    const late = restoreAt(config, snapshot, 6000);
    expect([late.breaker.state, late.clock.nextTimerAt]).toEqual(['OPEN', 0]);
    await late.clock.advance(0);
    expect(late.breaker.state).toBe('HALF_OPEN');
    expect(late.events).toEqual(['OPEN->HALF_OPEN wait_elapsed']);
    late.breaker.transitionToClosedState();
  });

  it('with { stateOnly: true } the trials are not restored, so nothing is decided: HALF_OPEN with every permit', () => {
    const clock = trackedClock();
    const config = { permittedNumberOfCallsInHalfOpenState: 3, clock };
    const breaker = CircuitBreaker.restore('pg', config, stored({ state: 'HALF_OPEN', attempt: 1, window: trials('111', 3) }), {
      wallClock: () => BASE,
      stateOnly: true,
    });
    expect([breaker.state, breaker.tryAcquirePermission(), breaker.tryAcquirePermission(), breaker.tryAcquirePermission()]).toEqual([
      'HALF_OPEN',
      true,
      true,
      true,
    ]);
  });
});

describe('a deadline beyond what the config allows is cut to it, counted from when the snapshot was taken', () => {
  it('an OPEN deadline 31 years away refuses only for waitDurationInOpenState (it refused for ever)', async () => {
    const { breaker, clock, again } = restoreAt({ waitDurationInOpenState: 5000 }, stored({ state: 'OPEN', attempt: 1, openUntil: BASE + 1e12 }), 1000);
    expect(again().openUntil).toBe(BASE + 5000);
    await clock.advance(4000);
    expect(breaker.tryAcquirePermission()).toBe(false);
    await clock.advance(1);
    expect(breaker.tryAcquirePermission()).toBe(true);
    breaker.releasePermission();
  });

  it("with waitIntervalFunctionInOpenState, the bound is the function's wait for the snapshot's attempt (attempt 0, a manual wait: attempt 1's)", () => {
    const config = { waitIntervalFunctionInOpenState: (n: number) => 1000 * 2 ** (n - 1) };
    expect(restoreAt(config, stored({ state: 'OPEN', attempt: 3, openUntil: BASE + 1e9 })).again().openUntil).toBe(BASE + 4000);
    expect(restoreAt(config, stored({ state: 'OPEN', attempt: 0, openUntil: BASE + 1e9 })).again().openUntil).toBe(BASE + 1000);
    // Within the bound, a deadline is kept as it is.
    expect(restoreAt(config, stored({ state: 'OPEN', attempt: 3, openUntil: BASE + 3999.5 })).again().openUntil).toBe(BASE + 3999.5);
  });

  it('the automatic transition arms its timer for the bounded wait', async () => {
    const config = { waitDurationInOpenState: 5000, automaticTransitionFromOpenToHalfOpenEnabled: true };
    const { breaker, clock } = restoreAt(config, stored({ state: 'OPEN', attempt: 1, openUntil: BASE + 8e15 }), 2000);
    expect(clock.nextTimerAt).toBe(3000);
    await clock.advance(3000);
    expect(breaker.state).toBe('HALF_OPEN');
  });

  it("a manual transitionToOpenStateFor longer than the config's wait is kept only up to that wait (FORCED_OPEN is the state that holds)", () => {
    const clock = trackedClock();
    const breaker = new CircuitBreaker('pg', { slidingWindowSize: 10, waitDurationInOpenState: '1m', clock });
    breaker.transitionToOpenStateFor('1h');
    const snapshot = breaker.snapshot({ wallClock: () => BASE });
    expect(snapshot.openUntil).toBe(BASE + 3_600_000);
    expect(restoreAt({ waitDurationInOpenState: '1m' }, snapshot).again().openUntil).toBe(BASE + 60_000);
    breaker.transitionToForcedOpenState();
    expect(restoreAt({ waitDurationInOpenState: '1m' }, breaker.snapshot({ wallClock: () => BASE })).breaker.state).toBe('FORCED_OPEN');
  });

  it('a HALF_OPEN forced out years away is forced out after maxWaitDurationInHalfOpenState', async () => {
    const config = { permittedNumberOfCallsInHalfOpenState: 3, maxWaitDurationInHalfOpenState: 10_000 };
    const { breaker, clock, events, again } = restoreAt(
      config,
      stored({ state: 'HALF_OPEN', attempt: 1, halfOpenUntil: BASE + 1e12, window: trials('', 3) }),
      2000,
    );
    expect(again().halfOpenUntil).toBe(BASE + 10_000);
    expect(clock.nextTimerAt).toBe(8000);
    await clock.advance(8000);
    expect(events).toEqual(['HALF_OPEN->OPEN wait_elapsed']);
    breaker.transitionToClosedState();
  });
});

describe('values no breaker produces are refused, naming the field, the value and what is allowed', () => {
  it.each([
    [
      'an OPEN deadline of 1e300',
      { state: 'OPEN', attempt: 1, openUntil: 1e300 },
      'snapshot.openUntil must be a wall-clock time in ms within the Date range [-8640000000000000, 8640000000000000], got 1e+300',
    ],
    [
      'a snapshot taken in the year 10^290',
      { takenAt: 1e300 },
      'snapshot.takenAt must be a wall-clock time in ms within the Date range [-8640000000000000, 8640000000000000], got 1e+300',
    ],
    [
      'a half-open deadline before any date',
      { state: 'HALF_OPEN', attempt: 1, halfOpenUntil: -1e300, window: trials('', 10) },
      'snapshot.halfOpenUntil must be a wall-clock time in ms within the Date range',
    ],
    [
      'FORCED_OPEN at attempt 0',
      { state: 'FORCED_OPEN', attempt: 0 },
      'snapshot.attempt must be an integer in [1, 9007199254740991] in FORCED_OPEN (every move there counts an opening), got 0',
    ],
    ['refused calls in CLOSED', { notPermitted: 3 }, 'snapshot.metrics.notPermitted must be 0 in CLOSED (it refuses no call), got 3'],
    ['refused calls in DISABLED', { state: 'DISABLED', notPermitted: 1 }, 'snapshot.metrics.notPermitted must be 0 in DISABLED (it refuses no call), got 1'],
    [
      'refused calls in METRICS_ONLY',
      { state: 'METRICS_ONLY', notPermitted: 1 },
      'snapshot.metrics.notPermitted must be 0 in METRICS_ONLY (it refuses no call), got 1',
    ],
  ] as const)('%s', (_what, fields, message) => {
    const snapshot = stored(fields as Parameters<typeof stored>[0]);
    expect(() => restoreAt({}, snapshot)).toThrow(RangeError);
    expect(() => restoreAt({}, snapshot)).toThrow(`${PREFIX}${message}`);
  });
});

describe('no snapshot a store can hold keeps a breaker refusing longer than its config allows', () => {
  const TYPES = ['COUNT_BASED', 'HALF_OPEN_TRIALS'] as const;
  /** Wall times anywhere in the Date range, near the snapshot's or far from it. */
  const wallTime = fc.oneof(fc.integer({ min: BASE - 100_000, max: BASE + 100_000 }), fc.integer({ min: -8.64e15, max: 8.64e15 }));

  it('restore either refuses (TypeError / RangeError), or the breaker permits a call within its wait (at once in HALF_OPEN), with deadlines within the config', () => {
    fc.assert(
      fc.property(
        fc.record({
          permitted: fc.integer({ min: 1, max: 4 }),
          minimumNumberOfCalls: fc.integer({ min: 1, max: 6 }),
          wait: fc.integer({ min: 1, max: 10_000 }),
          maxWait: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 10_000 })),
        }),
        fc.record({
          state: fc.constantFrom(...STATES),
          attempt: fc.integer({ min: 0, max: 5 }),
          openUntil: fc.oneof(fc.constant(null), wallTime),
          halfOpenUntil: fc.oneof(fc.constant(null), wallTime),
          type: fc.constantFrom(...TYPES),
          outcomes: fc.stringMatching(/^[0-3]{0,4}$/),
          notPermitted: fc.integer({ min: 0, max: 3 }),
        }),
        fc.integer({ min: -100_000, max: 100_000 }),
        (c, s, later) => {
          const config = {
            slidingWindowSize: 4,
            permittedNumberOfCallsInHalfOpenState: c.permitted,
            minimumNumberOfCalls: c.minimumNumberOfCalls,
            waitDurationInOpenState: c.wait,
            maxWaitDurationInHalfOpenState: c.maxWait,
            transitionToStateAfterWaitDuration: 'CLOSED' as const,
          };
          const size = s.type === 'HALF_OPEN_TRIALS' ? c.permitted : 4;
          const window: WindowSnapshot = { type: s.type, size, outcomes: s.outcomes.slice(0, size) };
          const snapshot = stored({
            state: s.state,
            attempt: s.attempt,
            openUntil: s.openUntil,
            halfOpenUntil: s.halfOpenUntil,
            window,
            notPermitted: s.notPermitted,
          });
          let restored: ReturnType<typeof restoreAt>;
          try {
            restored = restoreAt(config, snapshot, later);
          } catch (error) {
            expect(error instanceof TypeError || error instanceof RangeError).toBe(true);
            return;
          }
          const { breaker, clock, wallClock, again } = restored;
          const now = again();
          if (now.state === 'OPEN') expect(now.openUntil! - wallClock()).toBeLessThanOrEqual(c.wait);
          if (now.state === 'HALF_OPEN' && c.maxWait > 0) expect(now.halfOpenUntil! - wallClock()).toBeLessThanOrEqual(c.maxWait);
          if (now.state === 'OPEN') clock.set(c.wait + 1);
          if (now.state !== 'FORCED_OPEN') expect(breaker.tryAcquirePermission()).toBe(true);
          breaker.reset(); // clears the timers left
        },
      ),
      { numRuns: 500 },
    );
  });
});
