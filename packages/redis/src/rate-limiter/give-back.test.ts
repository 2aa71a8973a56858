import { VirtualClock } from '@breakwater/core';
import { RateLimiter } from '@breakwater/rate-limiter';
import { redisSuite, type RedisServer } from '@breakwater/test-support/redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RedisRateLimiterConfig } from './config.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { startWithClient, stopWithClient, type TestClient, uniqueName, until } from '../../test/rate-limiter/test-redis.js';

// Aborted waiters give back every permit they reserved, as the in-process limiter does: the
// aborted reservations at the end of the sequence come back, newest first, each undoing the last.

redisSuite('RedisRateLimiter gives back every aborted reservation, as in-process', () => {
  let redis: RedisServer;
  let client: TestClient;
  beforeAll(async () => ({ redis, client } = await startWithClient()));
  afterAll(() => stopWithClient(redis, client));

  const config = { limitForPeriod: 1, limitRefreshPeriod: 1000, timeoutDuration: 100_000 } as const;

  function pair(over: Partial<RedisRateLimiterConfig> = {}): {
    redisClock: VirtualClock;
    rl: RedisRateLimiter;
    inProcess: RateLimiter;
    localClock: VirtualClock;
  } {
    const redisClock = new VirtualClock(1_000_000); // a cycle start, as the in-process limiter's creation is
    const localClock = new VirtualClock(0);
    return {
      redisClock,
      localClock,
      rl: new RedisRateLimiter(uniqueName('abort'), { client, ...config, ...over, clock: redisClock, time: () => redisClock.now() }),
      inProcess: new RateLimiter('same', { ...config, clock: localClock }),
    };
  }

  it('50 waiters aborted on one signal hand back all 50 permits: availablePermissions is the in-process figure (0, not -49)', async () => {
    const { rl, inProcess, redisClock, localClock } = pair();
    await rl.acquirePermission();
    await inProcess.acquirePermission();
    const controller = new AbortController();
    const waiting = Array.from({ length: 50 }, () => rl.acquirePermission(1, { signal: controller.signal }));
    const local = Array.from({ length: 50 }, () => inProcess.acquirePermission(1, { signal: controller.signal }));
    await until(() => rl.metrics.numberOfWaitingCalls === 50);
    expect(rl.metrics.availablePermissions).toBe(-50);
    expect(inProcess.metrics.availablePermissions).toBe(-50);
    controller.abort(new Error('all gone'));
    for (const call of [...waiting, ...local]) await expect(call).rejects.toThrow('all gone');
    expect(inProcess.metrics.availablePermissions).toBe(0);
    expect((await rl.fetchMetrics()).availablePermissions).toBe(inProcess.metrics.availablePermissions);
    // And the next caller waits as in-process: one cycle, not 51.
    expect(await rl.reservePermission()).toBe(inProcess.reservePermission());
    expect(redisClock.pendingTimers).toBe(0);
    expect(localClock.pendingTimers).toBe(0);
  });

  it('waiters of several batches, aborted out of order: each comes back once every later one has, as in-process', async () => {
    const { rl, inProcess } = pair();
    const controllers = Array.from({ length: 6 }, () => new AbortController());
    const calls: Promise<unknown>[] = [];
    // Three batches of two (a tick each): permits of cycles +0 (at once) and +1 ... +5.
    for (let b = 0; b < 3; b++) {
      for (const c of controllers.slice(2 * b, 2 * b + 2)) {
        calls.push(rl.acquirePermission(1, { signal: c.signal }).catch((e: unknown) => e));
        calls.push(inProcess.acquirePermission(1, { signal: c.signal }).catch((e: unknown) => e));
      }
      await until(() => rl.metrics.numberOfWaitingCalls === 2 * b + 1);
    }
    const figures: [number, number][] = [];
    for (const i of [2, 4, 5, 3, 1]) {
      controllers[i]!.abort(new Error(`gone ${i}`));
      await until(() => rl.metrics.numberOfWaitingCalls === inProcess.metrics.numberOfWaitingCalls);
      figures.push([(await rl.fetchMetrics()).availablePermissions, inProcess.metrics.availablePermissions]);
    }
    // 2 and 4: holes under later waiters; 5: the tail, then 4 with it; 3: the tail, then 2 with it; 1: the tail.
    expect(figures).toEqual([
      [-5, -5],
      [-5, -5],
      [-3, -3],
      [-1, -1],
      [0, 0],
    ]);
    await Promise.all(calls);
  });

  it('a reservation of another instance after them stands on them: nothing comes back', async () => {
    const { rl, redisClock } = pair();
    const other = new RedisRateLimiter(rl.name, { client, ...config, clock: redisClock, time: () => redisClock.now() });
    await rl.acquirePermission();
    const controller = new AbortController();
    const waiting = Array.from({ length: 3 }, () => rl.acquirePermission(1, { signal: controller.signal }));
    await until(() => rl.metrics.numberOfWaitingCalls === 3);
    expect(await other.reservePermission()).toBe(4000);
    controller.abort(new Error('gone'));
    for (const call of waiting) await expect(call).rejects.toThrow('gone');
    expect((await rl.fetchMetrics()).availablePermissions).toBe(-4);
  });
});
