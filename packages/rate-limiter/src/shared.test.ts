import { RequestNotPermittedError, systemClock, VirtualClock } from '@breakwater/core';
import { track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RateLimiter, type SharedRateLimiterHandle } from './index.js';

let clock: VirtualClock;
beforeEach(() => {
  clock = new VirtualClock();
});
afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

/** A shared limiter of `limitForPeriod` per 100 ms on the test's clock, and a second one attached to it (as another thread would). */
function pair(limitForPeriod = 2, timeoutDuration = 500) {
  const a = RateLimiter.shared('pg', { limitForPeriod, limitRefreshPeriod: 100, timeoutDuration, clock });
  const b = RateLimiter.shared(structuredClone(a.handle), { clock });
  return { a, b };
}

describe('RateLimiter.shared — one limit, several limiters', () => {
  it('returns a RateLimiter with a structured-cloneable handle; an in-process limiter has none', () => {
    const a = RateLimiter.shared('pg', { limitForPeriod: 3, limitRefreshPeriod: '1s', timeoutDuration: 250 });
    expect(a).toBeInstanceOf(RateLimiter);
    expect(a.handle).toEqual({
      type: 'breakwater.sharedRateLimiter',
      name: 'pg',
      buffer: expect.any(SharedArrayBuffer),
      timeoutDuration: 250,
      writableStackTraceEnabled: true,
    });
    const b = RateLimiter.shared(structuredClone(a.handle));
    expect(b.name).toBe('pg');
    expect(b.config).toMatchObject({ limitForPeriod: 3, limitRefreshPeriod: 1000, timeoutDuration: 250, clock: systemClock });
    expect(new RateLimiter('local').handle).toBeUndefined();
  });

  it('every limiter reserves from the same permits: what one takes, the others do not get', async () => {
    const { a, b } = pair();
    await a.acquirePermission();
    expect(b.metrics).toEqual({ availablePermissions: 1, numberOfWaitingCalls: 0, waitMs: 0, cycle: 0 });
    expect(b.reservePermission()).toBe(0);
    clock.set(30);
    // The cycle is spent: b's caller waits for the next one, a's for the one after.
    const waiting = track(b.acquirePermission(2));
    expect(b.metrics).toMatchObject({ availablePermissions: -2, numberOfWaitingCalls: 1 });
    expect(a.metrics).toMatchObject({ availablePermissions: -2, numberOfWaitingCalls: 0, waitMs: 170 });
    expect(a.reservePermission()).toBe(170);
    await clock.advance(70);
    expect(waiting.state).toBe('fulfilled');
    expect(a.metrics.cycle).toBe(1);
    // At t = 100 the permissions are -1, and 2 come a cycle: 10 are covered at t = 700, a wait of 600 > 500.
    await expect(a.acquirePermission(10)).rejects.toMatchObject({ name: 'RequestNotPermittedError', rateLimiterName: 'pg', waitMs: 600 });
  });

  it('changeLimitForPeriod and drainPermissions act for every limiter', async () => {
    const { a, b } = pair(2);
    b.changeLimitForPeriod(5);
    expect(a.config.limitForPeriod).toBe(5);
    // As in Resilience4j, the new limit counts from the next refill.
    expect(a.metrics.availablePermissions).toBe(2);
    clock.set(100);
    expect(a.metrics.availablePermissions).toBe(5);
    const drained: number[] = [];
    b.on('drained', (e) => drained.push(e.permits));
    b.drainPermissions();
    expect(drained).toEqual([5]);
    expect(a.metrics.availablePermissions).toBe(0);
  });

  it('timeoutDuration, waiters, events and metrics stay per limiter', async () => {
    const { a, b } = pair(1, 500);
    const events: string[] = [];
    a.on('*', (e) => events.push(`a ${e.type}`));
    b.on('*', (e) => events.push(`b ${e.type}`));
    b.changeTimeoutDuration(0);
    expect(a.config.timeoutDuration).toBe(500);
    await a.acquirePermission();
    await expect(b.acquirePermission()).rejects.toBeInstanceOf(RequestNotPermittedError);
    const waiting = a.acquirePermission();
    expect([a.metrics.numberOfWaitingCalls, b.metrics.numberOfWaitingCalls]).toEqual([1, 0]);
    await clock.advance(100);
    await waiting;
    expect(events).toEqual(['a successfulAcquire', 'b failedAcquire', 'a successfulAcquire']);
    expect(RateLimiter.shared(a.handle, { clock }).config.timeoutDuration).toBe(500);
    expect(RateLimiter.shared(b.handle, { clock, timeoutDuration: '2s' }).config.timeoutDuration).toBe(2000);
  });

  it('an aborted waiter hands its permits back while no other limiter changed the state since its reservation', async () => {
    const { a, b } = pair(1, 1000);
    await a.acquirePermission();
    const ac = new AbortController();
    const first = a.acquirePermission(1, { signal: ac.signal });
    ac.abort('gone');
    await expect(first).rejects.toBe('gone');
    expect(b.metrics.availablePermissions).toBe(0);

    // Another limiter reserves after it: the aborted waiter's slot stays used (handing it back would over-grant).
    const ac2 = new AbortController();
    const second = a.acquirePermission(1, { signal: ac2.signal });
    expect(b.reservePermission()).toBe(200);
    ac2.abort('gone');
    await expect(second).rejects.toBe('gone');
    expect(b.metrics.availablePermissions).toBe(-2);
    expect(a.reservePermission()).toBe(300);
  });

  it('a limiter that only looks (metrics) or is refused changes nothing another limiter could be hurt by', async () => {
    const { a, b } = pair(1, 150);
    await a.acquirePermission();
    const ac = new AbortController();
    const waiting = a.acquirePermission(1, { signal: ac.signal });
    expect(b.metrics.waitMs).toBe(200);
    expect(b.reservePermission()).toBe(-1); // refused in the same cycle: nothing written
    ac.abort('gone');
    await expect(waiting).rejects.toBe('gone');
    expect(b.metrics.availablePermissions).toBe(0);
  });

  it('keeps counting after 2^32 cycles (the word holds the cycle modulo 2^32)', () => {
    const rl = RateLimiter.shared('wrap', { limitForPeriod: 2, limitRefreshPeriod: 1, timeoutDuration: 0, clock });
    expect(rl.reservePermission(2)).toBe(0);
    for (const cycle of [2 ** 31 + 7, 2 ** 32 + 3, 3 * 2 ** 32 + 1]) {
      clock.set(cycle + 0.5);
      expect(rl.metrics).toEqual({ availablePermissions: 2, numberOfWaitingCalls: 0, waitMs: 0, cycle });
      expect(rl.reservePermission(2)).toBe(0);
      expect(rl.metrics.availablePermissions).toBe(0);
      expect(rl.reservePermission()).toBe(-1);
    }
  });

  it('refuses a reservation that would take the permissions below -2^31 (they are an int32)', () => {
    const max = 2 ** 31 - 1;
    const rl = RateLimiter.shared('deep', { limitForPeriod: max, limitRefreshPeriod: 1000, timeoutDuration: Infinity, clock });
    expect(rl.reservePermission(max)).toBe(0);
    expect(rl.reservePermission(max)).toBe(1000);
    expect(rl.reservePermission(2)).toBe(-1);
    expect(rl.metrics.availablePermissions).toBe(-max);
  });

  it('counts time on the process monotonic clock by default: limiters attached anywhere agree on the cycle', () => {
    const a = RateLimiter.shared('mono', { limitForPeriod: 1, limitRefreshPeriod: '1h', timeoutDuration: 0 });
    const b = RateLimiter.shared(a.handle);
    expect(a.reservePermission()).toBe(0);
    expect(b.reservePermission()).toBe(-1);
    expect(b.metrics).toMatchObject({ cycle: 0, availablePermissions: 0 });
  });
});

describe('RateLimiter.shared — bad arguments', () => {
  const good = () => RateLimiter.shared('pg', { limitForPeriod: 1 }).handle;

  it('a config is checked as new RateLimiter checks it; limitForPeriod must fit 32 bits', () => {
    expect(() => RateLimiter.shared('pg', { limitForPeriod: 0 })).toThrow(new RangeError("RateLimiter 'pg': limitForPeriod must be an integer >= 1, got 0"));
    expect(() => RateLimiter.shared('pg', { limitForPeriod: 2 ** 31 })).toThrow(
      new RangeError("RateLimiter 'pg': limitForPeriod of a shared limiter must be an integer in [1, 2147483647], got 2147483648"),
    );
  });

  it('anything but a name or a handle is a TypeError that says what is expected', () => {
    for (const bad of [42, null, {}, { type: 'other', name: 'pg' }, new Map()]) {
      expect(() => RateLimiter.shared(bad as unknown as SharedRateLimiterHandle)).toThrow(TypeError);
    }
    expect(() => RateLimiter.shared(42 as unknown as SharedRateLimiterHandle)).toThrow(
      "RateLimiter.shared: expected a name and a config, or a handle from limiter.handle ({ type: 'breakwater.sharedRateLimiter', name, buffer, … }), got 42",
    );
  });

  it('a handle whose buffer holds no limiter state names the limiter, handle.buffer and what it got', () => {
    const handle = good();
    const message = (got: string) =>
      `RateLimiter 'pg': handle.buffer must be the SharedArrayBuffer of a shared limiter's state (40 bytes, from limiter.handle), got ${got}`;
    expect(() => RateLimiter.shared({ ...handle, buffer: new ArrayBuffer(40) as unknown as SharedArrayBuffer })).toThrow(
      new TypeError(message('an ArrayBuffer')),
    );
    expect(() => RateLimiter.shared({ ...handle, buffer: new SharedArrayBuffer(16) })).toThrow(
      new TypeError(message("a SharedArrayBuffer of 16 bytes without a limiter's state")),
    );
    expect(() => RateLimiter.shared({ ...handle, buffer: new SharedArrayBuffer(40) })).toThrow(
      new TypeError(message("a SharedArrayBuffer of 40 bytes without a limiter's state")),
    );
    expect(() => RateLimiter.shared({ ...handle, buffer: undefined as unknown as SharedArrayBuffer })).toThrow(new TypeError(message('undefined')));
  });

  it('the options of a thread attaching are checked; the limit is not one of them', () => {
    expect(() => RateLimiter.shared(good(), { limitForPeriod: 3 } as never)).toThrow(/^RateLimiter 'pg': unknown option 'limitForPeriod'/);
    expect(() => RateLimiter.shared(good(), { timeoutDuration: -1 })).toThrow(new RangeError("RateLimiter 'pg': timeoutDuration must be >= 0, got -1"));
  });

  it('the clock: given exactly when the sharing limiter was given one', () => {
    expect(() => RateLimiter.shared(good(), { clock })).toThrow(
      new TypeError("RateLimiter 'pg': clock must not be given: this shared state counts time on the process's monotonic clock, got a VirtualClock"),
    );
    const onClock = RateLimiter.shared('pg', { clock }).handle;
    expect(() => RateLimiter.shared(onClock)).toThrow(
      new TypeError(
        "RateLimiter 'pg': clock must be given: this shared state counts time on the clock its limiter was given (one thread's, e.g. a VirtualClock), got undefined",
      ),
    );
  });
});
