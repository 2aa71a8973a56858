import { VirtualClock } from '@breakwater/core';
import { afterEach, describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';
import type { CircuitBreakerConfig } from './config.js';
import type { RestoreOptions } from './restore.js';
import type { CircuitBreakerSnapshot } from './snapshot.js';
import { BoomError, breakerOnClock, conformance, expectNoLeakedTimers, trackedClock } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

/** Wall time of the first process: a virtual clock reading plus a fixed epoch. */
const BASE = 1_764_619_200_000;
const wallOf =
  (clock: VirtualClock, at = BASE) =>
  () =>
    at + clock.now();

const fail = (b: CircuitBreaker, n = 1, ms = 0) => {
  for (let i = 0; i < n; i++) b.onError(ms, new BoomError());
};
const succeed = (b: CircuitBreaker, n = 1, ms = 0) => {
  for (let i = 0; i < n; i++) b.onSuccess(ms);
};
/** Takes as many trial permits as it can (and gives them back), counting them. */
const freePermits = (b: CircuitBreaker) => {
  let n = 0;
  while (b.tryAcquirePermission()) n++;
  for (let i = 0; i < n; i++) b.releasePermission();
  return n;
};

/**
 * Snapshots `breaker` (its clock read as wall time from BASE), sends it through JSON, and restores
 * it on a new clock starting at 0 whose wall time is `later` ms after the snapshot's.
 */
function hydrate(breaker: CircuitBreaker, clock: VirtualClock, config: CircuitBreakerConfig, later = 0, options: RestoreOptions = {}, start = 0) {
  const snapshot = breaker.snapshot({ wallClock: wallOf(clock) });
  const json = JSON.parse(JSON.stringify(snapshot)) as CircuitBreakerSnapshot;
  const clock2 = trackedClock(start);
  const wall2 = wallOf(clock2, BASE + clock.now() + later - start);
  const restored = CircuitBreaker.restore(breaker.name, { ...config, clock: clock2 }, json, { wallClock: wall2, ...options });
  const events: string[] = [];
  restored.on('*', (e) => events.push(e.type === 'stateTransition' ? `${e.from}->${e.to} ${e.cause}` : e.type));
  return { snapshot, json, restored, clock2, wall2, events };
}

describe('snapshot and restore, state by state', () => {
  it('CLOSED with a count window mid-fill keeps the calls in order, and the next call judges them', () => {
    const config = { slidingWindowSize: 10, minimumNumberOfCalls: 5 };
    const { breaker, clock } = breakerOnClock(config);
    fail(breaker, 3);
    succeed(breaker, 1, 70_000); // slow
    const { snapshot, json, restored, events } = hydrate(breaker, clock, config);
    expect(json).toEqual(snapshot);
    expect(snapshot).toEqual({
      version: 1,
      name: 'test',
      takenAt: BASE,
      state: 'CLOSED',
      attempt: 0,
      openUntil: null,
      halfOpenUntil: null,
      metrics: { window: { type: 'COUNT_BASED', size: 10, outcomes: '1112' }, notPermitted: 0, reported: [] },
    });
    expect(restored.metrics).toEqual(breaker.metrics);
    fail(restored);
    expect(restored.state).toBe('OPEN');
    expect(restored.metrics.failureRate).toBe(80);
    expect(events).toEqual(['error', 'failureRateExceeded', 'CLOSED->OPEN failure_rate']);
  });

  it('CLOSED with a full, wrapped count window keeps the last N calls, oldest first', () => {
    const config = { slidingWindowSize: 4, minimumNumberOfCalls: 100 };
    const { breaker, clock } = breakerOnClock(config);
    fail(breaker, 2);
    succeed(breaker, 3);
    fail(breaker);
    const { snapshot, restored } = hydrate(breaker, clock, config);
    expect(snapshot.metrics.window).toEqual({ type: 'COUNT_BASED', size: 4, outcomes: '0001' });
    succeed(breaker, 3);
    succeed(restored, 3);
    expect(restored.metrics).toEqual(breaker.metrics);
  });

  it('CLOSED with a time window across buckets: the buckets keep their ages and fall out on time on the new clock', async () => {
    const { breaker, clock } = breakerOnClock(conformance);
    fail(breaker); // second 0
    await clock.advance(1500);
    fail(breaker); // second 1
    await clock.advance(1700);
    succeed(breaker, 1, 5000); // second 3, slow
    await clock.advance(300); // 3.5 s
    const { snapshot, restored, clock2 } = hydrate(breaker, clock, conformance);
    expect(snapshot.metrics.window).toEqual({
      type: 'TIME_BASED',
      size: 5,
      newestSecondAt: BASE + 3000,
      buckets: [
        { age: 3, calls: 1, failed: 1, slow: 0, slowFailed: 0 },
        { age: 2, calls: 1, failed: 1, slow: 0, slowFailed: 0 },
        { age: 0, calls: 1, failed: 0, slow: 1, slowFailed: 0 },
      ],
    });
    expect(restored.metrics).toEqual(breaker.metrics);
    // Old clock 5.0 s = new clock 1.5 s: second 0 falls out of both.
    await clock.advance(1500);
    await clock2.advance(1500);
    expect(restored.metrics.numberOfBufferedCalls).toBe(2);
    expect(restored.metrics).toEqual(breaker.metrics);
  });

  it('fractional clock readings (performance.now) and wall times: seconds that line up still line up', async () => {
    const clock = trackedClock(5_000.3);
    const breaker = new CircuitBreaker('pg', { ...conformance, clock });
    fail(breaker); // second 5
    clock.set(7_999.9);
    fail(breaker); // second 7
    const snapshot = JSON.parse(JSON.stringify(breaker.snapshot({ wallClock: () => BASE + 0.7 + clock.now() }))) as CircuitBreakerSnapshot;
    const clock2 = trackedClock(10_999.9); // three whole seconds ahead
    const restored = CircuitBreaker.restore('pg', { ...conformance, clock: clock2 }, snapshot, { wallClock: () => BASE + 0.7 + clock2.now() - 3000 });
    expect(restored.metrics).toEqual(breaker.metrics);
    clock.set(9_999.9);
    clock2.set(12_999.9);
    expect(restored.metrics.numberOfBufferedCalls).toBe(2);
    clock.set(10_000);
    clock2.set(13_000);
    expect(restored.metrics.numberOfBufferedCalls).toBe(1); // second 5 fell out of both at once
    expect(restored.metrics).toEqual(breaker.metrics);
  });

  it('CLOSED with a time window: time spent in the store counts (buckets older than the window are gone)', async () => {
    const { breaker, clock } = breakerOnClock(conformance);
    fail(breaker);
    await clock.advance(2000);
    fail(breaker);
    expect(hydrate(breaker, clock, conformance, 3000).restored.metrics.numberOfBufferedCalls).toBe(1);
    expect(hydrate(breaker, clock, conformance, 60_000).restored.metrics.numberOfBufferedCalls).toBe(0);
    // A wall clock behind the snapshot's counts as no time passed.
    expect(hydrate(breaker, clock, conformance, -60_000).restored.metrics.numberOfBufferedCalls).toBe(2);
  });

  it('OPEN with its deadline still ahead: refuses until then on the new clock, keeps the metrics it opened with', async () => {
    const config = { slidingWindowSize: 4, minimumNumberOfCalls: 4, waitDurationInOpenState: 5000 };
    const { breaker, clock } = breakerOnClock(config);
    fail(breaker, 4);
    await clock.advance(1000);
    expect(breaker.tryAcquirePermission()).toBe(false);
    const { snapshot, restored, clock2, events } = hydrate(breaker, clock, config, 500);
    expect(snapshot).toMatchObject({ state: 'OPEN', attempt: 1, openUntil: BASE + 5000, metrics: { notPermitted: 1, window: { outcomes: '1111' } } });
    expect(restored.state).toBe('OPEN');
    expect(restored.metrics).toEqual(breaker.metrics);
    await clock2.advance(3500); // 1000 + 500 + 3500 = the deadline: not strictly after it
    expect(restored.tryAcquirePermission()).toBe(false);
    await clock2.advance(1);
    expect(restored.tryAcquirePermission()).toBe(true);
    expect(restored.state).toBe('HALF_OPEN');
    expect(events).toEqual(['callNotPermitted', 'OPEN->HALF_OPEN wait_elapsed']);
    restored.releasePermission();
  });

  it('OPEN whose deadline passed while in the store moves to HALF_OPEN on the next call', () => {
    const config = { slidingWindowSize: 2, minimumNumberOfCalls: 2, waitDurationInOpenState: 5000 };
    const { breaker, clock } = breakerOnClock(config);
    fail(breaker, 2);
    const { restored, events } = hydrate(breaker, clock, config, 5001);
    expect(restored.state).toBe('OPEN'); // reading the state never moves it (the lazy check)
    expect(restored.tryAcquirePermission()).toBe(true);
    expect(events).toEqual(['OPEN->HALF_OPEN wait_elapsed']);
    restored.releasePermission();
  });

  it('OPEN with the automatic transition sets its timer for what is left of the wait', async () => {
    const config = { slidingWindowSize: 2, minimumNumberOfCalls: 2, waitDurationInOpenState: 5000, automaticTransitionFromOpenToHalfOpenEnabled: true };
    const { breaker, clock } = breakerOnClock(config);
    fail(breaker, 2);
    await clock.advance(2000);
    const { restored, clock2 } = hydrate(breaker, clock, config);
    expect(clock2.nextTimerAt).toBe(3000);
    await clock2.advance(3000);
    expect(restored.state).toBe('HALF_OPEN');
    const late = hydrate(breaker, clock, config, 10_000);
    expect(late.clock2.nextTimerAt).toBe(0);
    await late.clock2.advance(0);
    expect(late.restored.state).toBe('HALF_OPEN');
    breaker.transitionToClosedState();
  });

  it('HALF_OPEN with some trials recorded: they count, and permits of calls still running are free again', () => {
    const config = { slidingWindowSize: 4, minimumNumberOfCalls: 4, permittedNumberOfCallsInHalfOpenState: 4, waitDurationInOpenState: 1000 };
    const { breaker, clock } = breakerOnClock(config);
    breaker.transitionToOpenStateFor(0);
    breaker.transitionToHalfOpenState();
    for (const ok of [true, false]) {
      expect(breaker.tryAcquirePermission()).toBe(true);
      if (ok) succeed(breaker);
      else fail(breaker);
    }
    expect(breaker.tryAcquirePermission()).toBe(true); // a call still running at snapshot time
    const { snapshot, restored, events } = hydrate(breaker, clock, config);
    expect(snapshot).toMatchObject({
      state: 'HALF_OPEN',
      attempt: 0,
      halfOpenUntil: null,
      metrics: { window: { type: 'HALF_OPEN_TRIALS', size: 4, outcomes: '01' } },
    });
    expect(restored.metrics.numberOfBufferedCalls).toBe(2);
    expect(freePermits(restored)).toBe(2);
    succeed(restored, 2); // 1 failure in 4: below 50%
    expect(restored.state).toBe('CLOSED');
    expect(events).toEqual(['callNotPermitted', 'success', 'success', 'HALF_OPEN->CLOSED half_open_trial']); // the refusal: freePermits' probe
    breaker.releasePermission();
  });

  it('HALF_OPEN with maxWaitDurationInHalfOpenState is forced out when it would have been', async () => {
    const config = { permittedNumberOfCallsInHalfOpenState: 3, maxWaitDurationInHalfOpenState: 10_000 };
    const { breaker, clock } = breakerOnClock(config);
    breaker.transitionToOpenStateFor(0);
    breaker.transitionToHalfOpenState();
    await clock.advance(3000);
    const { snapshot, restored, clock2 } = hydrate(breaker, clock, config, 2000);
    expect(snapshot.halfOpenUntil).toBe(BASE + 10_000);
    await clock2.advance(4999);
    expect(restored.state).toBe('HALF_OPEN');
    await clock2.advance(1);
    expect(restored.state).toBe('OPEN');
    restored.transitionToClosedState();
    breaker.transitionToClosedState();
  });

  it('HALF_OPEN restored under another maxWaitDurationInHalfOpenState: a kept deadline holds only while the option is on', () => {
    const { breaker, clock } = breakerOnClock({ maxWaitDurationInHalfOpenState: 10_000 });
    breaker.transitionToOpenStateFor(0);
    breaker.transitionToHalfOpenState();
    const off = hydrate(breaker, clock, { maxWaitDurationInHalfOpenState: 0 });
    expect([off.restored.state, off.clock2.pendingTimers]).toEqual(['HALF_OPEN', 0]);
    breaker.transitionToMetricsOnlyState();
    const { breaker: without, clock: clockWithout } = breakerOnClock();
    without.transitionToOpenStateFor(0);
    without.transitionToHalfOpenState();
    const on = hydrate(without, clockWithout, { maxWaitDurationInHalfOpenState: 5000 });
    expect(on.clock2.nextTimerAt).toBe(5000); // starts at restore
    on.restored.transitionToClosedState();
  });

  it('FORCED_OPEN, DISABLED and METRICS_ONLY come back as they were', () => {
    const config = { slidingWindowSize: 4, minimumNumberOfCalls: 2, slowCallRateThreshold: 30 };
    const { breaker, clock } = breakerOnClock(config);
    breaker.transitionToForcedOpenState();
    breaker.tryAcquirePermission();
    const forced = hydrate(breaker, clock, config).restored;
    expect([forced.state, forced.metrics.numberOfNotPermittedCalls, forced.tryAcquirePermission()]).toEqual(['FORCED_OPEN', 1, false]);
    breaker.transitionToDisabledState();
    const disabled = hydrate(breaker, clock, config).restored;
    expect([disabled.state, disabled.tryAcquirePermission()]).toEqual(['DISABLED', true]);
    breaker.transitionToMetricsOnlyState();
    fail(breaker, 2); // failureRateExceeded, published once
    const metricsOnly = hydrate(breaker, clock, config);
    expect(metricsOnly.snapshot.metrics.reported).toEqual(['failureRate']);
    fail(metricsOnly.restored, 1, 70_000);
    expect(metricsOnly.restored.state).toBe('METRICS_ONLY');
    expect(metricsOnly.events).toEqual(['error', 'slowCallRateExceeded']); // failureRateExceeded is not published again
  });

  it('keeps the opening attempt, so the next wait of an exponential wait function is right', async () => {
    const config = {
      slidingWindowSize: 2,
      minimumNumberOfCalls: 2,
      permittedNumberOfCallsInHalfOpenState: 1,
      waitIntervalFunctionInOpenState: (n: number) => 1000 * 2 ** (n - 1),
    };
    const { breaker, clock } = breakerOnClock(config);
    fail(breaker, 2); // attempt 1: 1 s
    await clock.advance(1001);
    breaker.acquirePermission();
    fail(breaker); // attempt 2: 2 s
    const { snapshot, restored, clock2 } = hydrate(breaker, clock, config);
    expect(snapshot).toMatchObject({ state: 'OPEN', attempt: 2, openUntil: BASE + 1001 + 2000 });
    await clock2.advance(2001);
    restored.acquirePermission();
    fail(restored); // attempt 3: 4 s
    await clock2.advance(4000);
    expect(restored.tryAcquirePermission()).toBe(false);
    await clock2.advance(1);
    expect(restored.tryAcquirePermission()).toBe(true);
    restored.releasePermission();
  });

  it('a new clock whose seconds do not line up with the old one: a bucket goes to the second its first instant falls in (it may count up to 1 s less, never longer)', async () => {
    const { breaker, clock } = breakerOnClock(conformance);
    fail(breaker); // old second 0
    await clock.advance(2500);
    const { restored, clock2 } = hydrate(breaker, clock, conformance); // new clock 0 = old 2.5 s
    await clock2.advance(1999); // old 4.499 s
    expect(restored.metrics.numberOfFailedCalls).toBe(1);
    await clock2.advance(1); // old 4.5 s: old second 0 = new [-2.5 s, -1.5 s) is counted as new second -3
    expect(restored.metrics.numberOfFailedCalls).toBe(0);
    expect(breaker.metrics.numberOfFailedCalls).toBe(1);
  });

  it('a snapshot of a restored breaker is the snapshot it was restored from, in every state', async () => {
    const config = { ...conformance, maxWaitDurationInHalfOpenState: 60_000 };
    const { breaker, clock } = breakerOnClock(config);
    fail(breaker, 2);
    await clock.advance(2500);
    succeed(breaker, 1, 5000);
    for (const move of [
      () => {},
      () => breaker.transitionToOpenStateFor(4000), // within the config's wait (5 s): restore keeps no longer one
      () => breaker.transitionToHalfOpenState(),
      () => breaker.transitionToForcedOpenState(),
      () => breaker.transitionToDisabledState(),
      () => breaker.transitionToMetricsOnlyState(),
    ]) {
      move();
      // A new clock at the same reading: its seconds line up with the old one's.
      const { json, restored, wall2 } = hydrate(breaker, clock, config, 0, {}, clock.now());
      expect(restored.snapshot({ wallClock: wall2 })).toEqual(json);
      restored.reset();
    }
    breaker.reset();
  });
});

describe("snapshot and restore: the default wall clock is the breaker clock's", () => {
  it('reads wallNow() of a VirtualClock, so an OPEN deadline carries over with no wallClock option', async () => {
    const config: CircuitBreakerConfig = { slidingWindowSize: 2, minimumNumberOfCalls: 2, waitDurationInOpenState: 5000 };
    const clock = trackedClock();
    const breaker = new CircuitBreaker('pg', { ...config, clock });
    fail(breaker, 2);
    await clock.advance(1000);
    const snapshot = breaker.snapshot();
    expect(snapshot.takenAt).toBe(VirtualClock.DEFAULT_WALL_START + 1000);
    // A new process whose virtual wall time is 3 s later: 1 s of the 5 s wait is left.
    const clock2 = new VirtualClock(0, { wallStart: VirtualClock.DEFAULT_WALL_START + 4000 });
    const restored = CircuitBreaker.restore('pg', { ...config, clock: clock2 }, JSON.parse(JSON.stringify(snapshot)) as CircuitBreakerSnapshot);
    await clock2.advance(1000);
    expect(restored.tryAcquirePermission()).toBe(false);
    await clock2.advance(1);
    expect(restored.tryAcquirePermission()).toBe(true);
    expect(restored.state).toBe('HALF_OPEN');
    restored.releasePermission();
  });
});

describe('restore refuses what it cannot trust', () => {
  const config = { slidingWindowSize: 10, minimumNumberOfCalls: 5 };
  const good = (): CircuitBreakerSnapshot => new CircuitBreaker('pg', { ...config, clock: trackedClock() }).snapshot({ wallClock: () => BASE });
  const restore = (snapshot: unknown, cfg: CircuitBreakerConfig = config, options?: RestoreOptions) =>
    CircuitBreaker.restore('pg', { ...cfg, clock: trackedClock() }, snapshot, { wallClock: () => BASE, ...options });
  const edit = (path: string, value: unknown) => {
    const s = JSON.parse(JSON.stringify(good())) as Record<string, unknown>;
    const keys = path.split('.');
    let o = s;
    for (const k of keys.slice(0, -1)) o = o[k] as Record<string, unknown>;
    o[keys.at(-1)!] = value;
    return s;
  };

  it('a snapshot of another window type or size, naming both; stateOnly restores the state and attempt alone', () => {
    const { breaker, clock } = breakerOnClock(config);
    fail(breaker, 5);
    const snapshot = breaker.snapshot({ wallClock: wallOf(clock) });
    const timeBased = { slidingWindowType: 'TIME_BASED', slidingWindowSize: 10 } as const;
    expect(() => restore(snapshot, timeBased)).toThrow(
      "CircuitBreaker 'pg': restore(name, config, snapshot): the snapshot's window (COUNT_BASED, 10 calls) does not fit the config's (TIME_BASED, 10 s); pass { stateOnly: true } to restore the state and opening attempt only, with fresh metrics",
    );
    expect(() => restore(snapshot, { slidingWindowSize: 20 })).toThrow(/\(COUNT_BASED, 10 calls\) does not fit the config's \(COUNT_BASED, 20 calls\)/);
    const restored = restore(snapshot, timeBased, { stateOnly: true });
    expect([restored.state, restored.metrics.numberOfBufferedCalls, restored.snapshot({ wallClock: () => BASE }).openUntil]).toEqual([
      'OPEN',
      0,
      snapshot.openUntil,
    ]);
  });

  it('a HALF_OPEN snapshot taken with another number of permits', () => {
    const breaker = new CircuitBreaker('pg', { ...config, clock: trackedClock(), initialState: 'HALF_OPEN' });
    const snapshot = breaker.snapshot({ wallClock: () => BASE });
    expect(() => restore(snapshot, { ...config, permittedNumberOfCallsInHalfOpenState: 3 })).toThrow(
      "the snapshot's window (HALF_OPEN_TRIALS, 10 permits) does not fit the config's (HALF_OPEN_TRIALS, 3 permits)",
    );
    const restored = restore(snapshot, { ...config, permittedNumberOfCallsInHalfOpenState: 3 }, { stateOnly: true });
    expect([restored.state, freePermits(restored)]).toEqual(['HALF_OPEN', 3]);
  });

  it.each([
    ['not an object', 'null', null, TypeError, 'snapshot must be an object, got null'],
    ['another version', 'version', 2, RangeError, 'snapshot.version must be 1 (the only snapshot format this version reads), got 2'],
    ['a NaN time (JSON makes it null)', 'takenAt', null, TypeError, 'snapshot.takenAt must be a number (wall-clock ms), got null'],
    ['a NaN time', 'takenAt', NaN, RangeError, 'snapshot.takenAt must be a finite number (wall-clock ms), got NaN'],
    [
      'an unknown state',
      'state',
      'AJAR',
      TypeError,
      "snapshot.state must be one of 'CLOSED', 'OPEN', 'HALF_OPEN', 'DISABLED', 'FORCED_OPEN', 'METRICS_ONLY', got 'AJAR'",
    ],
    ['an attempt in CLOSED', 'attempt', 2, RangeError, 'snapshot.attempt must be an integer in [0, 0], got 2'],
    ['a deadline outside OPEN', 'openUntil', 5, TypeError, 'snapshot.openUntil must be null in CLOSED, got 5'],
    ['a negative size', 'metrics.window.size', -1, RangeError, 'snapshot.metrics.window.size must be an integer in [1, 1000000], got -1'],
    [
      'a ring longer than the window',
      'metrics.window.outcomes',
      '00000000000',
      RangeError,
      "snapshot.metrics.window.outcomes must be at most 10 calls long (the window's size), got 11",
    ],
    [
      'an outcome that is not one',
      'metrics.window.outcomes',
      '0104',
      TypeError,
      "snapshot.metrics.window.outcomes must be a string of digits 0-3 (one per call), got '0104'",
    ],
    ['a fractional count', 'metrics.notPermitted', 1.5, RangeError, 'snapshot.metrics.notPermitted must be an integer in [0, 9007199254740991], got 1.5'],
    ['rates reported outside METRICS_ONLY', 'metrics.reported', ['failureRate'], TypeError, 'snapshot.metrics.reported must be empty in CLOSED'],
    [
      'calls in a DISABLED window',
      'metrics.window.outcomes',
      '01',
      TypeError,
      'snapshot.metrics.window must be empty in DISABLED (it records nothing), got 2 calls',
      'DISABLED',
    ],
    ['trials in CLOSED', 'metrics.window.type', 'HALF_OPEN_TRIALS', TypeError, "snapshot.metrics.window.type must be 'COUNT_BASED' or 'TIME_BASED' in CLOSED"],
  ])('%s', (_what, path, value, type, message, state?: string) => {
    const snapshot = path === 'null' ? null : state === undefined ? edit(path, value) : { ...edit(path, value), state };
    expect(() => restore(snapshot)).toThrow(type);
    expect(() => restore(snapshot)).toThrow(`CircuitBreaker 'pg': restore(name, config, snapshot): ${message}`);
  });

  it('time-window buckets: ages in the window and once each, counts that add up', () => {
    const cfg = { slidingWindowType: 'TIME_BASED', slidingWindowSize: 3 } as const;
    const base = new CircuitBreaker('pg', { ...cfg, clock: trackedClock() }).snapshot({ wallClock: () => BASE });
    const withBuckets = (buckets: unknown, newestSecondAt = BASE) => ({
      ...base,
      metrics: { ...base.metrics, window: { ...base.metrics.window, newestSecondAt, buckets } },
    });
    const b = { age: 0, calls: 2, failed: 1, slow: 1, slowFailed: 1 };
    expect(restore(withBuckets([b, { ...b, age: 2 }]), cfg).metrics.numberOfBufferedCalls).toBe(4);
    expect(() => restore(withBuckets([b, b]), cfg)).toThrow('snapshot.metrics.window.buckets[1].age must be different from every other bucket’s, got 0');
    expect(() => restore(withBuckets([{ ...b, age: 3 }]), cfg)).toThrow('snapshot.metrics.window.buckets[0].age must be an integer in [0, 2], got 3');
    expect(() => restore(withBuckets([{ ...b, failed: 3 }]), cfg)).toThrow('snapshot.metrics.window.buckets[0].failed must be an integer in [0, 2], got 3');
    expect(() => restore(withBuckets([b, b, b, b]), cfg)).toThrow("snapshot.metrics.window.buckets must be at most 3 buckets long (the window's size), got 4");
    expect(() => restore(withBuckets([b], BASE + 1), cfg)).toThrow(RangeError);
  });

  it('bad options, and no timer left behind by a refused restore', () => {
    const cfg = { ...config, initialState: 'OPEN', automaticTransitionFromOpenToHalfOpenEnabled: true } as const;
    expect(() => restore({ version: 1 }, cfg)).toThrow('snapshot.name must be a string, got undefined');
    expect(() => restore(good(), config, { stateOnly: 'yes' as never })).toThrow("option stateOnly must be a boolean, got 'yes'");
    expect(() => restore(good(), config, { wallClock: 5 as never })).toThrow('option wallClock must be a function, got 5');
    expect(() => new CircuitBreaker('pg').snapshot({ wallClock: () => NaN })).toThrow(
      "CircuitBreaker 'pg': snapshot(options) option wallClock() must return a finite number of ms, got NaN",
    );
  });
});

describe('README: serverless hydration through a store', () => {
  it('an instance that opened hands OPEN to the next one through the store; a bad entry starts afresh', async () => {
    const store = new Map<string, string>();
    const config = { slidingWindowSize: 20, minimumNumberOfCalls: 10, waitDurationInOpenState: '30s' } as const;
    const wallClock = { at: BASE };
    // As in the README (the store a Map, the clocks virtual).
    function hydrate(clock: VirtualClock): CircuitBreaker {
      const options = { wallClock: () => wallClock.at + clock.now() };
      const stored = store.get('breaker:pg');
      if (stored === undefined) return new CircuitBreaker('pg', { ...config, clock });
      try {
        return CircuitBreaker.restore('pg', { ...config, clock }, JSON.parse(stored), options);
      } catch {
        return new CircuitBreaker('pg', { ...config, clock });
      }
    }
    const first = hydrate(trackedClock());
    fail(first, 10);
    store.set('breaker:pg', JSON.stringify(first.snapshot({ wallClock: () => BASE })));
    wallClock.at = BASE + 20_000; // the next cold start, 20 s later, on a clock of its own
    const clock = trackedClock(123_456);
    wallClock.at -= clock.now();
    const second = hydrate(clock);
    expect(second.state).toBe('OPEN');
    await expect(second.execute(async () => 'x')).rejects.toThrow(/does not permit/);
    await clock.advance(10_001);
    await expect(second.execute(async () => 'trial')).resolves.toBe('trial');
    expect(second.state).toBe('HALF_OPEN');
    store.set('breaker:pg', '{"version":1,"state":"OPEN"}');
    expect(hydrate(trackedClock()).state).toBe('CLOSED');
    second.reset();
  });
});
