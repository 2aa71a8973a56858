import { RequestNotPermittedError, VirtualClock } from '@breakwater/core';
import { track, twoFaced } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from './index.js';

let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
});
afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
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

  it('a throwing drainPermissionsOnResult keeps the outcome, drains nothing and is reported once per callback (contract: docs/conventions.md, user callbacks)', async () => {
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
    await rl.execute(() => twoFaced('ok')).catch(() => {});
    await rl.execute(() => 7);
    expect(seen).toEqual([{ result: 'ok' }, { result: 7 }]);
  });
});
