import { getEventListeners } from 'node:events';
import { RequestNotPermittedError, VirtualClock } from '@breakwater/core';
import { track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
