import { getEventListeners } from 'node:events';
import { RequestNotPermittedError, VirtualClock } from '@breakwater/core';
import { redisSuite, type RedisServer } from '@breakwater/test-support/redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rateLimiterKey } from '../keys.js';
import type { RedisRateLimiterConfig } from './config.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { startWithClient, stopWithClient, type TestClient, uniqueName, until } from '../../test/rate-limiter/test-redis.js';

// RedisRateLimiter on a real redis-server, its cycle arithmetic driven by a VirtualClock (the
// `time` option), so the waits are exact and no test waits on real time.

redisSuite('RedisRateLimiter on a real redis-server', () => {
  let redis: RedisServer;
  let client: TestClient;
  let clock: VirtualClock;
  beforeAll(async () => ({ redis, client } = await startWithClient()));
  afterAll(() => stopWithClient(redis, client));

  function limiter(config: Partial<RedisRateLimiterConfig> = {}, name = uniqueName('pg')): RedisRateLimiter {
    clock = new VirtualClock(1_000_000);
    return new RedisRateLimiter(name, {
      client,
      limitForPeriod: 2,
      limitRefreshPeriod: 1000,
      timeoutDuration: 5000,
      clock,
      time: () => clock.now(),
      ...config,
    });
  }

  it('grants at once, then waits on the clock to the cycle that covers the permits, then refuses beyond the timeout', async () => {
    const rl = limiter({ timeoutDuration: 1500 });
    const events: unknown[] = [];
    rl.on('*', (e) => events.push({ type: e.type, ...('waitMs' in e ? { waitMs: e.waitMs } : {}), ...('cycle' in e ? { cycle: e.cycle } : {}) }));
    await rl.acquirePermission();
    await rl.execute(() => 'ok');
    clock.set(1_000_250);
    let done = false;
    const waiting = rl.acquirePermission().then(() => (done = true));
    await until(() => rl.metrics.numberOfWaitingCalls === 1);
    await expect(rl.acquirePermission(2)).rejects.toMatchObject({ name: 'RequestNotPermittedError', waitMs: 1750, rateLimiterName: rl.name });
    await clock.advance(749);
    expect(done).toBe(false);
    await clock.advance(1);
    await waiting;
    expect(events).toEqual([
      { type: 'successfulAcquire', waitMs: 0, cycle: 1000 },
      { type: 'successfulAcquire', waitMs: 0, cycle: 1000 },
      { type: 'failedAcquire', waitMs: 1750 },
      { type: 'successfulAcquire', waitMs: 750, cycle: 1001 },
    ]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('reservePermission resolves 0, the wait, or -1; more permits than the limit span cycles', async () => {
    const rl = limiter({ limitForPeriod: 2, timeoutDuration: 2500 });
    expect(await rl.reservePermission(2)).toBe(0);
    expect(await rl.reservePermission(3)).toBe(2000); // 2 at cycle+1, the 3rd at cycle+2
    expect(await rl.reservePermission(2)).toBe(-1); // 3000 > 2500
    expect(rl.metrics).toEqual({ availablePermissions: -3, numberOfWaitingCalls: 0, waitMs: 2000, cycle: 1000, store: 'redis', storeStateLost: 0 });
    await expect(rl.reservePermission(0)).rejects.toThrow(RangeError);
  });

  it('instances sharing a name share the limit; a different name is another limit', async () => {
    const name = uniqueName('shared');
    const a = limiter({ timeoutDuration: 0 }, name);
    const b = new RedisRateLimiter(name, { client, limitForPeriod: 2, limitRefreshPeriod: 1000, timeoutDuration: 0, time: () => clock.now() });
    const other = new RedisRateLimiter(`${name}x`, { client, limitForPeriod: 2, limitRefreshPeriod: 1000, timeoutDuration: 0, time: () => clock.now() });
    await a.acquirePermission();
    await b.acquirePermission();
    await expect(a.acquirePermission()).rejects.toBeInstanceOf(RequestNotPermittedError);
    await expect(b.acquirePermission()).rejects.toBeInstanceOf(RequestNotPermittedError);
    await other.acquirePermission(2);
    expect(await client.exists(rateLimiterKey(name))).toBe(1);
    expect(await client.pTTL(rateLimiterKey(name))).toBeGreaterThan(1000);
  });

  it('an aborted waiter hands its permits back when it is the last reservation, not when a later one stands on them', async () => {
    const rl = limiter({ limitForPeriod: 1 });
    await rl.acquirePermission();
    const first = new AbortController();
    const waitingFirst = rl.acquirePermission(1, { signal: first.signal });
    await until(() => rl.metrics.numberOfWaitingCalls === 1);
    first.abort(new Error('gone'));
    await expect(waitingFirst).rejects.toThrow('gone');
    expect(getEventListeners(first.signal, 'abort')).toHaveLength(0);
    // Given back (the give-back goes before the next command on the same connection): the next
    // caller waits for cycle+1, not cycle+2.
    expect(await rl.reservePermission()).toBe(1000);
    // Now a reservation stands after this waiter's: its abort gives nothing back.
    const second = new AbortController();
    const waitingSecond = rl.acquirePermission(1, { signal: second.signal });
    await until(() => rl.metrics.numberOfWaitingCalls === 1);
    expect(await rl.reservePermission()).toBe(3000);
    second.abort(new Error('gone too'));
    await expect(waitingSecond).rejects.toThrow('gone too');
    expect((await rl.fetchMetrics()).availablePermissions).toBe(-3);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a caller that aborts during the round trip is rejected at once, and its reservation goes back', async () => {
    const rl = limiter({ limitForPeriod: 1 });
    await rl.acquirePermission();
    const controller = new AbortController();
    const call = rl.acquirePermission(1, { signal: controller.signal });
    controller.abort(new Error('left early'));
    await expect(call).rejects.toThrow('left early');
    // Its reservation (wait 1000) came back when the reply arrived: the next caller waits 1000, not 2000.
    await until(() => rl.metrics.availablePermissions === -1);
    expect(await rl.reservePermission()).toBe(1000);
    expect(rl.metrics.numberOfWaitingCalls).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('execute passes the signal to fn and rejects at once when it aborts while fn runs', async () => {
    const rl = limiter({ limitForPeriod: 5 });
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const call = rl.execute(
      (ctx) => {
        seen = ctx.signal;
        return new Promise(() => {});
      },
      { signal: controller.signal },
    );
    await until(() => seen !== undefined);
    controller.abort(new Error('stop'));
    await expect(call).rejects.toThrow('stop');
    expect(seen!.aborted).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('execute, decorate and withPermits take permits; execute never throws synchronously', async () => {
    const rl = limiter({ limitForPeriod: 5, timeoutDuration: 0 });
    expect(await rl.execute((ctx) => ctx.attempt)).toBe(1);
    expect(await rl.decorate((a: number, b: number) => a + b)(1, 2)).toBe(3);
    const bulk = rl.withPermits(3);
    expect(bulk).toMatchObject({ kind: 'rateLimiter', name: rl.name, permits: 3 });
    await expect(bulk.execute(() => 'x')).resolves.toBe('x');
    await expect(rl.execute(() => 'y')).rejects.toBeInstanceOf(RequestNotPermittedError);
    await expect(rl.execute(() => 1, { signal: 'nope' as unknown as AbortSignal })).rejects.toThrow(TypeError);
    await expect(
      rl.execute(() => {
        throw new Error('sync');
      }),
    ).rejects.toThrow(RequestNotPermittedError);
    expect(() => rl.withPermits(0)).toThrow(RangeError);
  });

  it('drains the cycle for every instance; changeLimitForPeriod counts from the next refill', async () => {
    const rl = limiter({ limitForPeriod: 4, timeoutDuration: 0 });
    const drained: number[] = [];
    rl.on('drained', (e) => drained.push(e.permits));
    await rl.acquirePermission();
    await rl.drainPermissions();
    expect(drained).toEqual([3]);
    await expect(rl.acquirePermission()).rejects.toBeInstanceOf(RequestNotPermittedError);
    rl.changeLimitForPeriod(1);
    rl.changeTimeoutDuration('1s');
    expect(rl.config).toMatchObject({ limitForPeriod: 1, timeoutDuration: 1000 });
    clock.set(1_001_000);
    await rl.acquirePermission();
    expect((await rl.fetchMetrics()).availablePermissions).toBe(0);
    expect(() => rl.changeLimitForPeriod(0)).toThrow("RedisRateLimiter '");
  });

  it('drainPermissionsOnResult drains the cycle after a call whose outcome says so; a predicate that throws drains nothing', async () => {
    const tooMany = Object.assign(new Error('429'), { status: 429 });
    const rl = limiter({
      limitForPeriod: 5,
      timeoutDuration: 0,
      drainPermissionsOnResult: (o) => {
        if ('result' in o && o.result === 'boom') throw new Error('predicate');
        return 'error' in o && (o.error as { status?: number }).status === 429;
      },
    });
    const drained: number[] = [];
    rl.on('drained', (e) => drained.push(e.permits));
    await expect(rl.execute(() => Promise.reject(tooMany))).rejects.toBe(tooMany);
    await until(() => drained.length === 1);
    expect(drained).toEqual([4]);
    await expect(rl.execute(() => 'x')).rejects.toBeInstanceOf(RequestNotPermittedError);
    clock.set(1_001_000);
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    expect(await rl.execute(() => 'boom')).toBe('boom');
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('drainPermissionsOnResult threw'), { type: 'BreakwaterCallbackWarning' });
    warn.mockRestore();
    expect((await rl.fetchMetrics()).availablePermissions).toBe(4);
  });

  it('loads the script again after SCRIPT FLUSH (NOSCRIPT -> EVAL), with no error reaching the caller', async () => {
    const rl = limiter({ limitForPeriod: 10 });
    const errors: unknown[] = [];
    rl.on('storeError', (e) => errors.push(e.error));
    await rl.acquirePermission();
    await client.scriptFlush();
    await rl.acquirePermission();
    await rl.acquirePermission();
    expect(errors).toEqual([]);
    expect(rl.metrics.availablePermissions).toBe(7);
  });
});

describe('RedisRateLimiter without Redis', () => {
  it('reports a client that is not connected as a store error at once, by its mode', async () => {
    const client = { isReady: false, evalSha: () => Promise.reject(new Error('unused')), eval: () => Promise.reject(new Error('unused')) };
    const closed = new RedisRateLimiter('pg', { client, onStoreError: 'fail-closed' });
    const events: string[] = [];
    closed.on('*', (e) => events.push(e.type));
    await expect(closed.acquirePermission()).rejects.toMatchObject({ name: 'StoreUnavailableError', store: 'redis', rateLimiterName: 'pg' });
    await expect(closed.acquirePermission()).rejects.toBeInstanceOf(RequestNotPermittedError);
    expect(await closed.reservePermission()).toBe(-1);
    expect(events).toEqual(['storeError', 'failedAcquire', 'failedAcquire', 'failedAcquire']);
    expect(closed.metrics.store).toBe('fail-closed');
    const open = new RedisRateLimiter('pg', { client, onStoreError: 'fail-open' });
    await open.acquirePermission(100);
    expect(await open.reservePermission(100)).toBe(0);
    expect(open.metrics.store).toBe('fail-open');
    const local = new RedisRateLimiter('pg', { client, limitForPeriod: 1, timeoutDuration: 0 });
    await local.acquirePermission();
    await expect(local.acquirePermission()).rejects.toMatchObject({ name: 'RequestNotPermittedError', rateLimiterName: 'pg' });
    expect(local.metrics).toMatchObject({ store: 'local', availablePermissions: 0 });
  });
});
