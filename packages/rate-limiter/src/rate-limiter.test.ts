import { getEventListeners } from 'node:events';
import { RequestNotPermittedError, sleep, VirtualClock } from '@breakwater/core';
import { flush, track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter, RateLimiterRegistry } from './index.js';

const CYCLE = 250;
let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
});
afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

/** A limiter of one permission per 250 ms cycle, as in Resilience4j's AtomicRateLimiterTest. */
const limiter = (timeoutDuration: number, extra: { limitForPeriod?: number } = {}) =>
  new RateLimiter('test', { limitForPeriod: 1, limitRefreshPeriod: CYCLE, timeoutDuration, clock, ...extra });

describe('RateLimiter — Resilience4j AtomicRateLimiterTest scenarios', () => {
  it('has a full cycle of permissions at first, and nobody waiting', () => {
    const rl = limiter(0);
    expect(rl.name).toBe('test');
    expect(rl.kind).toBe('rateLimiter');
    expect(rl.metrics).toEqual({ availablePermissions: 1, numberOfWaitingCalls: 0, waitMs: 0, cycle: 0 });
  });

  it('acquires, is refused within the cycle, and acquires again after the refill (with events)', async () => {
    const rl = limiter(0);
    const events: unknown[] = [];
    rl.on('*', (e) => events.push({ type: e.type, ...('permits' in e ? { permits: e.permits } : {}), ...('waitMs' in e ? { waitMs: e.waitMs } : {}) }));
    clock.set(CYCLE);
    await expect(rl.acquirePermission()).resolves.toBeUndefined();
    expect(rl.metrics).toMatchObject({ availablePermissions: 0, waitMs: CYCLE });
    const refused = await rl.acquirePermission().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RequestNotPermittedError);
    expect(refused).toMatchObject({ rateLimiterName: 'test', waitMs: CYCLE });
    expect(rl.metrics).toMatchObject({ availablePermissions: 0, waitMs: CYCLE });
    clock.set(2 * CYCLE);
    await rl.acquirePermission();
    await expect(rl.acquirePermission()).rejects.toThrow(RequestNotPermittedError);
    expect(events).toEqual([
      { type: 'successfulAcquire', permits: 1, waitMs: 0 },
      { type: 'failedAcquire', permits: 1, waitMs: CYCLE },
      { type: 'successfulAcquire', permits: 1, waitMs: 0 },
      { type: 'failedAcquire', permits: 1, waitMs: CYCLE },
    ]);
  });

  it('a caller that may wait gets the next cycle’s permission exactly at its start', async () => {
    const rl = limiter(CYCLE);
    clock.set(CYCLE);
    await rl.acquirePermission();
    const waiting = track(rl.acquirePermission());
    expect(rl.metrics).toEqual({ availablePermissions: -1, numberOfWaitingCalls: 1, waitMs: 2 * CYCLE, cycle: 1 });
    await clock.advance(CYCLE - 1);
    expect(waiting.state).toBe('pending');
    await clock.advance(1);
    expect(waiting.state).toBe('fulfilled');
    expect(clock.now()).toBe(2 * CYCLE);
    await clock.advance(10);
    expect(rl.metrics).toEqual({ availablePermissions: 0, numberOfWaitingCalls: 0, waitMs: CYCLE - 10, cycle: 2 });
  });

  it('reservePermission: 0, then the wait it reserved, then -1; idle cycles refill to the limit only', () => {
    const rl = limiter(CYCLE);
    clock.set(CYCLE);
    expect(rl.reservePermission()).toBe(0);
    expect(rl.metrics).toMatchObject({ availablePermissions: 0, waitMs: CYCLE, numberOfWaitingCalls: 0 });
    expect(rl.reservePermission()).toBe(CYCLE);
    expect(rl.metrics).toMatchObject({ availablePermissions: -1, waitMs: 2 * CYCLE, numberOfWaitingCalls: 0 });
    expect(rl.reservePermission()).toBe(-1);
    expect(rl.metrics).toMatchObject({ availablePermissions: -1, waitMs: 2 * CYCLE });
    clock.set(6 * CYCLE + 10);
    expect(rl.metrics).toMatchObject({ availablePermissions: 1, waitMs: 0, numberOfWaitingCalls: 0 });
  });

  it('a caller whose wait exceeds the timeout is refused at once (Resilience4j parks it for the whole timeout first)', async () => {
    const rl = limiter(CYCLE);
    clock.set(CYCLE);
    await rl.acquirePermission();
    const first = track(rl.acquirePermission());
    const second = track(rl.acquirePermission());
    await Promise.resolve();
    await Promise.resolve();
    expect(second.state).toBe('rejected');
    expect(second.error).toMatchObject({ waitMs: 2 * CYCLE });
    expect(rl.metrics).toMatchObject({ availablePermissions: -1, waitMs: 2 * CYCLE, numberOfWaitingCalls: 1 });
    await clock.advanceTo(6 * CYCLE + 10);
    expect(first.state).toBe('fulfilled');
    expect(rl.metrics).toEqual({ availablePermissions: 1, numberOfWaitingCalls: 0, waitMs: 0, cycle: 6 });
  });

  it('with timeout 0, a refused reservation leaves the state as it was and the wait counts down', () => {
    const rl = limiter(0);
    clock.set(CYCLE);
    expect(rl.reservePermission()).toBe(0);
    expect(rl.reservePermission()).toBe(-1);
    expect(rl.metrics).toMatchObject({ availablePermissions: 0, waitMs: CYCLE });
    clock.set(2 * CYCLE - 1);
    expect(rl.metrics).toMatchObject({ availablePermissions: 0, waitMs: 1 });
  });

  it('an aborted waiter rejects with the reason, stops waiting and hands its permission back (Resilience4j keeps it)', async () => {
    const rl = limiter(CYCLE);
    clock.set(CYCLE);
    await rl.acquirePermission();
    const ac = new AbortController();
    const waiting = rl.acquirePermission(1, { signal: ac.signal });
    expect(rl.metrics).toMatchObject({ availablePermissions: -1, numberOfWaitingCalls: 1 });
    const reason = new Error('client went away');
    ac.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(rl.metrics).toMatchObject({ availablePermissions: 0, numberOfWaitingCalls: 0, waitMs: CYCLE });
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    // The handed-back permission serves the next caller at the same cycle start.
    const next = track(rl.acquirePermission());
    await clock.advance(CYCLE);
    expect(next.state).toBe('fulfilled');
  });

  it('changeLimitForPeriod counts from the next refill; a waiting call keeps its reservation', async () => {
    const rl = limiter(CYCLE);
    clock.set(CYCLE);
    await rl.acquirePermission();
    const waiting = track(rl.acquirePermission());
    expect(rl.metrics).toMatchObject({ availablePermissions: -1, waitMs: 2 * CYCLE, numberOfWaitingCalls: 1 });
    rl.changeLimitForPeriod(2);
    expect(rl.config.limitForPeriod).toBe(2);
    expect(rl.metrics).toMatchObject({ availablePermissions: -1, waitMs: CYCLE, numberOfWaitingCalls: 1 });
    await clock.advanceTo(2 * CYCLE + 10);
    expect(waiting.state).toBe('fulfilled');
    expect(rl.metrics).toMatchObject({ availablePermissions: 1, waitMs: 0, numberOfWaitingCalls: 0 });
  });

  it('changeTimeoutDuration applies to the next call; changeLimitForPeriod keeps the other options', async () => {
    const rl = limiter(0);
    expect(rl.config).toMatchObject({ limitForPeriod: 1, limitRefreshPeriod: CYCLE, timeoutDuration: 0 });
    rl.changeTimeoutDuration('1s');
    expect(rl.config).toMatchObject({ limitForPeriod: 1, limitRefreshPeriod: CYCLE, timeoutDuration: 1000 });
    rl.changeLimitForPeriod(35);
    expect(rl.config).toMatchObject({ limitForPeriod: 35, limitRefreshPeriod: CYCLE, timeoutDuration: 1000 });
    rl.changeLimitForPeriod(1);
    await rl.acquirePermission();
    const waited = track(rl.acquirePermission());
    await clock.advance(CYCLE);
    expect(waited.state).toBe('fulfilled');
  });

  it('counts its cycles from its own creation', () => {
    clock.set(100);
    const rl = limiter(0);
    expect(rl.reservePermission()).toBe(0);
    clock.set(349);
    expect(rl.metrics).toEqual({ availablePermissions: 0, numberOfWaitingCalls: 0, waitMs: 1, cycle: 0 });
    clock.set(350);
    expect(rl.metrics).toMatchObject({ availablePermissions: 1, cycle: 1 });
  });
});

describe('RateLimiter — permits', () => {
  it('takes several permits at once and waits for the cycle that covers them', async () => {
    const rl = new RateLimiter('bulk', { limitForPeriod: 3, limitRefreshPeriod: 100, timeoutDuration: 500, clock });
    await rl.acquirePermission(2);
    const p = track(rl.acquirePermission(2));
    expect(rl.metrics).toMatchObject({ availablePermissions: -1, numberOfWaitingCalls: 1 });
    await clock.advance(99);
    expect(p.state).toBe('pending');
    await clock.advance(1);
    expect(p.state).toBe('fulfilled');
    expect(rl.metrics.availablePermissions).toBe(2);
  });

  it('more permits than limitForPeriod wait across cycles, as in Resilience4j: the exact wait to the last cycle they need', async () => {
    const rl = new RateLimiter('bulk', { limitForPeriod: 2, limitRefreshPeriod: 100, timeoutDuration: 500, clock });
    const events: unknown[] = [];
    rl.on('successfulAcquire', (e) => events.push({ permits: e.permits, waitMs: e.waitMs, at: e.at }));
    // 2 permits of cycle 0, 2 of cycle 1, 1 of cycle 2: the call goes at t = 200.
    const five = track(rl.acquirePermission(5));
    expect(rl.metrics).toEqual({ availablePermissions: -3, numberOfWaitingCalls: 1, waitMs: 200, cycle: 0 });
    await clock.advance(199);
    expect(five.state).toBe('pending');
    await clock.advance(1);
    expect(five.state).toBe('fulfilled');
    // Cycle 2 had one permit left after the five.
    expect(rl.metrics).toEqual({ availablePermissions: 1, numberOfWaitingCalls: 0, waitMs: 0, cycle: 2 });
    expect(rl.reservePermission(3)).toBe(100);
    expect(rl.metrics.availablePermissions).toBe(-2);
    expect(events).toEqual([
      { permits: 5, waitMs: 200, at: 200 },
      { permits: 3, waitMs: 100, at: 200 },
    ]);
    await clock.advance(100);
  });

  it('a weight above the limit whose wait exceeds the timeout is refused at once with that wait, and reserves nothing', async () => {
    const rl = new RateLimiter('bulk', { limitForPeriod: 2, limitRefreshPeriod: 100, timeoutDuration: 150, clock });
    const refused = await rl.acquirePermission(5).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RequestNotPermittedError);
    expect(refused).toMatchObject({ rateLimiterName: 'bulk', waitMs: 200 });
    expect(rl.reservePermission(7)).toBe(-1);
    expect(rl.metrics.availablePermissions).toBe(2);
    // withPermits(n) above the limit is a policy like any other.
    const fn = vi.fn(() => 'batch');
    const heavy = track(rl.withPermits(4).execute(fn));
    expect(fn).not.toHaveBeenCalled();
    await clock.advance(100);
    expect(heavy).toMatchObject({ state: 'fulfilled', value: 'batch' });
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('refuses a weight that is not an integer >= 1', async () => {
    const rl = new RateLimiter('bulk', { limitForPeriod: 3, clock });
    await expect(rl.acquirePermission(0)).rejects.toThrow(new RangeError("RateLimiter 'bulk': acquirePermission(permits) must be an integer >= 1, got 0"));
    await expect(rl.acquirePermission(1.5)).rejects.toThrow(RangeError);
    await expect(rl.acquirePermission(2 ** 53)).rejects.toThrow(
      new RangeError("RateLimiter 'bulk': acquirePermission(permits) must be an integer in [1, 9007199254740991], got 9007199254740992"),
    );
    await expect(rl.acquirePermission('2' as unknown as number)).rejects.toThrow(
      new TypeError("RateLimiter 'bulk': acquirePermission(permits) must be a number, got '2'"),
    );
    expect(() => rl.reservePermission(-1)).toThrow(RangeError);
    expect(() => rl.withPermits(NaN)).toThrow("RateLimiter 'bulk': withPermits(permits) must be an integer >= 1, got NaN");
    expect(rl.metrics.availablePermissions).toBe(3);
  });

  it('withPermits(n) is a policy taking n permits per call', async () => {
    const rl = new RateLimiter('bulk', { limitForPeriod: 5, limitRefreshPeriod: 100, timeoutDuration: 0, clock });
    const heavy = rl.withPermits(3);
    expect(heavy).toMatchObject({ name: 'bulk', kind: 'rateLimiter', permits: 3 });
    await expect(heavy.execute(() => 'a')).resolves.toBe('a');
    expect(rl.metrics.availablePermissions).toBe(2);
    await expect(heavy.decorate((x: number) => x * 2)(21)).rejects.toThrow(RequestNotPermittedError);
    await expect(rl.execute(() => 'b')).resolves.toBe('b');
    expect(rl.metrics.availablePermissions).toBe(1);
  });

  it('a limit lowered below a withPermits weight makes its calls wait across cycles', async () => {
    const rl = new RateLimiter('bulk', { limitForPeriod: 5, limitRefreshPeriod: 100, timeoutDuration: 1000, clock });
    const heavy = rl.withPermits(4);
    rl.changeLimitForPeriod(2);
    await expect(heavy.execute(() => 1)).resolves.toBe(1); // the current cycle still has its 5
    const second = track(heavy.execute(() => 2)); // 1 left now, 2 at t=100, 1 of the 2 at t=200
    await clock.advance(199);
    expect(second.state).toBe('pending');
    await clock.advance(1);
    expect(second).toMatchObject({ state: 'fulfilled', value: 2 });
  });
});

describe('RateLimiter — execute and decorate', () => {
  it('runs fn with the context, turns a sync throw and a plain value into a promise', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 10, clock });
    const ctx = { signal: new AbortController().signal, attempt: 2 };
    await expect(rl.execute((c) => c, ctx)).resolves.toBe(ctx);
    const boom = new Error('boom');
    const thrown = rl.execute(() => {
      throw boom;
    });
    await expect(thrown).rejects.toBe(boom);
    await expect(rl.execute(() => Promise.reject('x'))).rejects.toBe('x');
    await expect(rl.execute(() => undefined)).resolves.toBeUndefined();
    const add = rl.decorate((a: number, b: number) => a + b);
    await expect(add(2, 3)).resolves.toBe(5);
    expect(rl.metrics.availablePermissions).toBe(5);
  });

  it('never throws synchronously, even for a bad signal', async () => {
    const rl = new RateLimiter('pg', { clock });
    const p = rl.execute(() => 1, { signal: 'nope' as unknown as AbortSignal });
    await expect(p).rejects.toThrow(TypeError);
  });

  it('waits for its permit before calling fn, and fn is not called when refused', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 1, limitRefreshPeriod: 100, timeoutDuration: 100, clock });
    const fn = vi.fn(() => 'ok');
    await rl.execute(fn);
    const second = track(rl.execute(fn));
    expect(fn).toHaveBeenCalledTimes(1);
    const third = await rl.execute(fn).catch((e: unknown) => e);
    expect(third).toBeInstanceOf(RequestNotPermittedError);
    expect(third).toMatchObject({ waitMs: 200 });
    await clock.advance(100);
    expect(second).toMatchObject({ state: 'fulfilled', value: 'ok' });
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it('an already aborted signal rejects with its reason and takes nothing', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 1, clock });
    const fn = vi.fn();
    await expect(rl.execute(fn, { signal: AbortSignal.abort('gone') })).rejects.toBe('gone');
    await expect(rl.acquirePermission(1, { signal: AbortSignal.abort('gone') })).rejects.toBe('gone');
    expect(fn).not.toHaveBeenCalled();
    expect(rl.metrics.availablePermissions).toBe(1);
  });

  it('a long-lived signal keeps no listener from calls that have ended, and one while they run', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 1, limitRefreshPeriod: 10, timeoutDuration: 100, clock });
    const { signal } = new AbortController();
    const calls = [rl.execute(() => 1, { signal }), rl.execute(() => 2, { signal }), rl.execute(() => 3, { signal })];
    // One waiting call runs, two wait: one listener on the signal for all of them (§0).
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    await clock.advance(20);
    await expect(Promise.all(calls)).resolves.toEqual([1, 2, 3]);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('is a Policy that can be nested: a passed-down context is used as it is', async () => {
    const rl = new RateLimiter('pg', { clock });
    const outer = { signal: new AbortController().signal, attempt: 3 };
    const seen = await rl.execute((ctx) => ctx.attempt, outer);
    expect(seen).toBe(3);
  });
});

describe('RateLimiter — aborted waiters hand their permits back', () => {
  it('all the waiters of one aborted signal come back, in whatever order they abort', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 1, limitRefreshPeriod: 100, timeoutDuration: 1000, clock });
    await rl.acquirePermission();
    const ac = new AbortController();
    const waits = [1, 2, 3].map(() => rl.acquirePermission(1, { signal: ac.signal }).catch((e: unknown) => e));
    expect(rl.metrics).toMatchObject({ availablePermissions: -3, numberOfWaitingCalls: 3 });
    ac.abort('stop');
    expect(await Promise.all(waits)).toEqual(['stop', 'stop', 'stop']);
    expect(rl.metrics).toMatchObject({ availablePermissions: 0, numberOfWaitingCalls: 0 });
  });

  it('an earlier waiter keeps its slot while a later one still stands on it, and both come back when the later aborts', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 1, limitRefreshPeriod: 100, timeoutDuration: 1000, clock });
    await rl.acquirePermission();
    const early = new AbortController();
    const late = new AbortController();
    const a = rl.acquirePermission(1, { signal: early.signal }).catch((e: unknown) => e); // cycle 1
    const b = track(rl.acquirePermission(1, { signal: late.signal })); // cycle 2
    early.abort('early');
    expect(await a).toBe('early');
    // Handing a's slot back now would put the next caller in cycle 2 next to b: two in one cycle.
    expect(rl.metrics).toMatchObject({ availablePermissions: -2, numberOfWaitingCalls: 1 });
    late.abort('late');
    await Promise.resolve();
    expect(b).toMatchObject({ state: 'rejected', error: 'late' });
    expect(rl.metrics).toMatchObject({ availablePermissions: 0, numberOfWaitingCalls: 0 });
  });

  it('a waiter whose slot another caller took after it cannot hand back, and nothing is granted twice', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 1, limitRefreshPeriod: 100, timeoutDuration: 1000, clock });
    await rl.acquirePermission();
    const ac = new AbortController();
    const a = rl.acquirePermission(1, { signal: ac.signal }).catch((e: unknown) => e); // cycle 1
    expect(rl.reservePermission()).toBe(200); // cycle 2, reserved by someone who waits on their own
    ac.abort('a');
    await a;
    expect(rl.metrics.availablePermissions).toBe(-2);
    const starts: number[] = [];
    const next = rl.acquirePermission().then(() => starts.push(clock.now()));
    await clock.advance(300);
    await next;
    expect(starts).toEqual([300]);
  });

  it('a waiter released at its cycle start is no longer returnable, and later waiters still are', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 1, limitRefreshPeriod: 100, timeoutDuration: 1000, clock });
    await rl.acquirePermission();
    const first = track(rl.acquirePermission()); // cycle 1
    const ac = new AbortController();
    const second = rl.acquirePermission(1, { signal: ac.signal }).catch((e: unknown) => e); // cycle 2
    await clock.advance(100);
    expect(first.state).toBe('fulfilled');
    expect(rl.metrics).toMatchObject({ availablePermissions: -1, numberOfWaitingCalls: 1 });
    ac.abort('no');
    expect(await second).toBe('no');
    expect(rl.metrics).toMatchObject({ availablePermissions: 0 });
  });
});

describe('RateLimiter — drain', () => {
  it('drainPermissions leaves min(available, 0) and publishes what it took', () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 3, limitRefreshPeriod: 100, timeoutDuration: 500, clock });
    const drained: number[] = [];
    rl.on('drained', (e) => drained.push(e.permits));
    rl.drainPermissions();
    expect(rl.metrics.availablePermissions).toBe(0);
    expect(rl.reservePermission(2)).toBe(100);
    rl.drainPermissions();
    expect(rl.metrics.availablePermissions).toBe(-2);
    clock.set(100);
    expect(rl.metrics.availablePermissions).toBe(1);
    expect(drained).toEqual([3, 0]);
  });

  it('drainPermissionsOnResult drains after a call whose outcome it picks, success or error', async () => {
    const picked: unknown[] = [];
    const rl = new RateLimiter('pg', {
      limitForPeriod: 5,
      clock,
      drainPermissionsOnResult: (o) => {
        picked.push(o);
        return 'error' in o ? (o.error as { status?: number }).status === 429 : o.result === 'slow down';
      },
    });
    await rl.execute(() => 'fine');
    expect(rl.metrics.availablePermissions).toBe(4);
    await expect(rl.execute(() => Promise.reject({ status: 500 }))).rejects.toEqual({ status: 500 });
    expect(rl.metrics.availablePermissions).toBe(3);
    await expect(
      rl.execute(() => {
        throw { status: 429 };
      }),
    ).rejects.toEqual({ status: 429 });
    expect(rl.metrics.availablePermissions).toBe(0);
    clock.set(500);
    await expect(rl.decorate(() => 'slow down')()).resolves.toBe('slow down');
    expect(rl.metrics.availablePermissions).toBe(0);
    expect(picked).toEqual([{ result: 'fine' }, { error: { status: 500 } }, { error: { status: 429 } }, { result: 'slow down' }]);
  });

  it('a throwing drainPermissionsOnResult keeps the outcome, drains nothing and is reported once per callback (§0 user callbacks)', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const predicate = (): boolean => {
        throw new Error('bad predicate');
      };
      const rl = new RateLimiter('pg', { limitForPeriod: 5, clock, drainPermissionsOnResult: predicate });
      const other = new RateLimiter('pg2', { limitForPeriod: 5, clock, drainPermissionsOnResult: predicate });
      await expect(rl.execute(() => 1)).resolves.toBe(1);
      const boom = new Error('boom');
      await expect(
        rl.execute(() => {
          throw boom;
        }),
      ).rejects.toBe(boom);
      await expect(other.execute(() => Promise.reject('x'))).rejects.toBe('x');
      expect(rl.metrics.availablePermissions).toBe(3);
      expect(other.metrics.availablePermissions).toBe(4);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]![0]).toMatch(
        /^RateLimiter 'pg': drainPermissionsOnResult threw; the call's outcome is kept and nothing is drained \(reported once\): Error: bad predicate/,
      );
      expect(warn.mock.calls[0]![1]).toEqual({ type: 'BreakwaterCallbackWarning' });
    } finally {
      warn.mockRestore();
    }
  });

  it('drainPermissionsOnResult sees one outcome per call, whatever fn returns', async () => {
    const seen: unknown[] = [];
    const rl = new RateLimiter('pg', { limitForPeriod: 10, clock, drainPermissionsOnResult: (o) => (seen.push(o), false) });
    await rl.execute(() => hostilePromise('ok')).catch(() => {});
    await rl.execute(() => 7);
    expect(seen).toEqual([{ result: 'ok' }, { result: 7 }]);
  });
});

/** A native promise whose own `then` calls both handlers (and returns nothing). */
function hostilePromise<T>(value: T): Promise<T> {
  const p = Promise.resolve(value);
  Object.defineProperty(p, 'then', {
    value: (resolve: (v: T) => void, reject: (e: unknown) => void) => {
      resolve(value);
      reject(new Error('rejected too'));
    },
  });
  return p;
}

describe('RateLimiter — hostile input: settles once, never throws (§0)', () => {
  it('a native promise whose then calls both handlers resolves the call once, with the value', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 10, clock });
    await expect(rl.execute(() => hostilePromise('ok'))).resolves.toBe('ok');
    await expect(rl.withPermits(2).execute(() => hostilePromise('two'))).resolves.toBe('two');
    expect(rl.metrics.availablePermissions).toBe(7);
  });

  it('a thenable whose then getter or then throws is a rejection of the call, not a synchronous throw', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 10, clock });
    const getterThrows = {
      get then(): never {
        throw new Error('then getter');
      },
    };
    const thenThrows = {
      then(): never {
        throw new Error('then threw');
      },
    };
    let outcome: Promise<unknown> | undefined;
    expect(() => (outcome = rl.execute(() => getterThrows))).not.toThrow();
    await expect(outcome).rejects.toThrow('then getter');
    await expect(rl.execute(() => thenThrows)).rejects.toThrow('then threw');
  });

  it('options null is no options; a fake signal (even with an attempt) is a TypeError rejection that takes no permit', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 10, clock });
    await expect(rl.execute(() => 1, null)).resolves.toBe(1);
    await expect(rl.acquirePermission(1, null)).resolves.toBeUndefined();
    const fake = { signal: { aborted: false }, attempt: 1 } as unknown as { signal: AbortSignal };
    let p: Promise<unknown> | undefined;
    expect(() => (p = rl.execute(() => 1, fake))).not.toThrow();
    await expect(p).rejects.toThrow(TypeError);
    await expect(rl.acquirePermission(1, fake)).rejects.toThrow(TypeError);
    await expect(rl.withPermits(2).execute(() => 1, fake)).rejects.toThrow(TypeError);
    expect(rl.metrics.availablePermissions).toBe(8);
  });
});

describe('RateLimiter — a caller’s abort while fn runs (§0)', () => {
  it('rejects the call at once with the reason; fn goes on with ctx.signal aborted and its late value is dropped', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 5, clock });
    const ac = new AbortController();
    let seen: AbortSignal | undefined;
    const call = track(
      rl.execute(
        (ctx) => {
          seen = ctx.signal;
          return sleep(clock, 200).then(() => 'late');
        },
        { signal: ac.signal },
      ),
    );
    await clock.advance(50);
    expect(call.state).toBe('pending');
    ac.abort('client went away');
    await Promise.resolve();
    expect(call).toMatchObject({ state: 'rejected', error: 'client went away' });
    expect(seen?.aborted).toBe(true);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    await clock.advance(150);
    expect(call).toMatchObject({ state: 'rejected', error: 'client went away' });
    expect(rl.metrics.availablePermissions).toBe(4); // the permit was used: fn ran
  });

  it('the same for a call that waited for its permit, and drainPermissionsOnResult still sees fn’s own outcome', async () => {
    const outcomes: unknown[] = [];
    const rl = new RateLimiter('pg', {
      limitForPeriod: 1,
      limitRefreshPeriod: 100,
      timeoutDuration: 100,
      clock,
      drainPermissionsOnResult: (o) => (outcomes.push(o), false),
    });
    await rl.execute(() => 'first');
    const ac = new AbortController();
    const call = track(rl.execute(() => sleep(clock, 200).then(() => 'late'), { signal: ac.signal }));
    await clock.advance(150); // granted at 100, running since
    ac.abort('stop');
    await flush(); // promise callbacks only: no time passes
    expect(call).toMatchObject({ state: 'rejected', error: 'stop' });
    await clock.advance(150);
    expect(outcomes).toEqual([{ result: 'first' }, { result: 'late' }]);
  });

  it('an abort between the grant and the start does not start fn', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 1, limitRefreshPeriod: 100, timeoutDuration: 100, clock });
    await rl.execute(() => 0);
    const ac = new AbortController();
    const fn = vi.fn(() => 1);
    const call = track(rl.execute(fn, { signal: ac.signal }));
    // A listener of the grant aborts the caller in the same instant.
    rl.on('successfulAcquire', () => ac.abort('too late'));
    await clock.advance(100);
    expect(call).toMatchObject({ state: 'rejected', error: 'too late' });
    expect(fn).not.toHaveBeenCalled();
  });
});

describe('RateLimiter — events and metrics', () => {
  it('refuses an unknown event type, suggesting the closest', () => {
    const rl = new RateLimiter('pg', { clock });
    expect(() => rl.on('drainned' as 'drained', () => {})).toThrow(TypeError);
    expect(() => rl.on('drainned' as 'drained', () => {})).toThrow(
      "RateLimiter 'pg': unknown event type 'drainned' (did you mean 'drained'?) (event types: successfulAcquire, failedAcquire, drained, or '*')",
    );
    expect(() => rl.on('successfulAquire' as 'drained', () => {})).toThrow(/did you mean 'successfulAcquire'/);
  });


  it('publishes nothing it has no listener for, and stops after unsubscribe', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 1, timeoutDuration: 0, clock });
    const seen: string[] = [];
    const off = rl.on('failedAcquire', (e) => seen.push(`${e.type}:${e.name}:${e.at}`));
    await rl.acquirePermission();
    await rl.acquirePermission().catch(() => {});
    off();
    await rl.acquirePermission().catch(() => {});
    expect(seen).toEqual(['failedAcquire:pg:0']);
  });

  it('metrics is a fresh plain object each time', () => {
    const rl = new RateLimiter('pg', { clock });
    const a = rl.metrics;
    expect(rl.metrics).not.toBe(a);
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype);
  });

  it('writableStackTraceEnabled: false builds rejections without a stack', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 1, timeoutDuration: 0, writableStackTraceEnabled: false, clock });
    await rl.acquirePermission();
    const e = (await rl.acquirePermission().catch((x: unknown) => x)) as Error;
    expect(e).toBeInstanceOf(RequestNotPermittedError);
    expect(e.stack?.split('\n')).toHaveLength(1);
  });
});

describe('RateLimiterRegistry', () => {
  it('gets or creates named limiters from shared configs', () => {
    const registry = new RateLimiterRegistry({ defaultConfig: { limitForPeriod: 10, clock }, configs: { bulk: { limitForPeriod: 2 } } });
    const pg = registry.get('pg');
    expect(registry.get('pg')).toBe(pg);
    expect(pg.config.limitForPeriod).toBe(10);
    expect(registry.get('exports', 'bulk').config.limitForPeriod).toBe(2);
    expect(registry.get('x', { timeoutDuration: 0 }).config).toMatchObject({ limitForPeriod: 10, timeoutDuration: 0 });
    expect(registry.all().map((r) => r.name)).toEqual(['pg', 'exports', 'x']);
    expect(() => registry.get('y', 'nope')).toThrow(/no config named 'nope'/);
  });

  it('checks defaultConfig and every named config at construction, not at the first get', () => {
    expect(() => new RateLimiterRegistry({ defaultConfig: { limitForPeriod: 0 } })).toThrow(
      new RangeError("RateLimiterRegistry: config 'default': RateLimiter 'default': limitForPeriod must be an integer >= 1, got 0"),
    );
    expect(() => new RateLimiterRegistry({ configs: { bulk: { timeoutDuration: 'soon' as never } } })).toThrow(TypeError);
    expect(() => new RateLimiterRegistry({ configs: { bulk: { limitForPeriods: 2 } as never } })).toThrow(
      /RateLimiterRegistry: config 'bulk': RateLimiter 'bulk': unknown option 'limitForPeriods' \(did you mean 'limitForPeriod'\?\)/,
    );
  });
});
