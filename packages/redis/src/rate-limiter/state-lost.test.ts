import { RequestNotPermittedError, VirtualClock } from '@breakwater/core';
import { redisSuite, startRedis, type RedisServer } from '@breakwater/test-support/redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rateLimiterKey } from '../keys.js';
import type { RedisRateLimiterConfig } from './config.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { connectClient, startWithClient, stopWithClient, type TestClient, uniqueName, until } from '../../test/rate-limiter/test-redis.js';

// The limiter's key lost mid-use — deleted, flushed, evicted under maxmemory — on a real
// redis-server, with several limiter instances (each its own client) sharing it: every instance
// that notices reports it once (storeStateLost, metrics.storeStateLost), and the cycle of the loss
// grants no more than limitForPeriod in all. Grants are counted per Redis cycle from the
// successfulAcquire events (the cycle the permits belong to). The script's time is a VirtualClock.

const LIMIT = 5;

redisSuite('RedisRateLimiter when its key is lost mid-use', () => {
  let redis: RedisServer;
  let client: TestClient;
  const clients: TestClient[] = [];
  beforeAll(async () => {
    ({ redis, client } = await startWithClient());
    for (let i = 0; i < 3; i++) clients.push(await connectClient(redis.url));
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await stopWithClient(redis, client);
  });

  /** Three instances of one limiter, each on its own client, and the grants they make per cycle. */
  function fleet(config: Partial<RedisRateLimiterConfig> = {}) {
    const clock = new VirtualClock(1_000_000); // cycle 1000 of a 1000 ms period
    const name = uniqueName('lost');
    const perCycle = new Map<number, number>();
    const lost: string[] = [];
    const instances = clients.map((c, i) => {
      const rl = new RedisRateLimiter(name, {
        client: c,
        limitForPeriod: LIMIT,
        limitRefreshPeriod: 1000,
        timeoutDuration: 0,
        clock,
        time: () => clock.now(),
        ...config,
      });
      rl.on('successfulAcquire', (e) => perCycle.set(e.cycle, (perCycle.get(e.cycle) ?? 0) + e.permits));
      rl.on('storeStateLost', (e) => lost.push(`${'abc'[i]}:${e.cycle}`));
      return rl;
    });
    return { clock, name, perCycle, lost, instances };
  }

  /** Each instance in turn asks for one permit, `rounds` times (timeoutDuration 0: granted or refused). */
  async function roundRobin(instances: readonly RedisRateLimiter[], rounds: number): Promise<number> {
    let granted = 0;
    for (let r = 0; r < rounds; r++) {
      for (const rl of instances) {
        const ok = await rl.acquirePermission().then(
          () => true,
          (e: unknown) => (expect(e).toBeInstanceOf(RequestNotPermittedError), false),
        );
        if (ok) granted += 1;
      }
    }
    return granted;
  }

  it('DEL mid-cycle: the cycle grants 5 in all, not 10; each instance reports the loss once; the next cycle grants 5', async () => {
    const { clock, name, perCycle, lost, instances } = fleet();
    expect(await roundRobin(instances, 1)).toBe(3);
    expect(await roundRobin(instances.slice(0, 2), 1)).toBe(2); // the cycle's 5
    expect(await client.del(rateLimiterKey(name))).toBe(1);
    expect(await roundRobin(instances, 3)).toBe(0);
    expect(perCycle).toEqual(new Map([[1000, LIMIT]]));
    expect(lost).toEqual(['a:1000', 'b:1000', 'c:1000']);
    expect(instances.map((rl) => rl.metrics.storeStateLost)).toEqual([1, 1, 1]);
    expect(instances.map((rl) => rl.metrics.store)).toEqual(['redis', 'redis', 'redis']);
    clock.set(1_001_000);
    expect(await roundRobin(instances, 3)).toBe(LIMIT);
    expect(perCycle).toEqual(
      new Map([
        [1000, LIMIT],
        [1001, LIMIT],
      ]),
    );
    expect(lost).toHaveLength(3);
  });

  it('DEL with permits left: what was left before the loss is not granted again', async () => {
    const { perCycle, lost, instances, name } = fleet();
    expect(await roundRobin(instances, 1)).toBe(3);
    await client.del(rateLimiterKey(name));
    expect(await roundRobin(instances, 3)).toBe(0); // 2 were left, but what the others took after this instance's last look is unknown
    expect(perCycle).toEqual(new Map([[1000, 3]]));
    expect(lost).toEqual(['a:1000', 'b:1000', 'c:1000']);
  });

  it('FLUSHDB mid-cycle while all instances call concurrently: at most 5 per cycle, over three cycles', async () => {
    const { clock, perCycle, lost, instances } = fleet();
    const burst = () => Promise.allSettled(instances.flatMap((rl) => Array.from({ length: 4 }, () => rl.acquirePermission())));
    await burst();
    await client.flushDb();
    await burst();
    await burst();
    clock.set(1_001_000);
    await burst();
    await client.flushDb();
    await burst();
    clock.set(1_002_000);
    await burst();
    expect(perCycle).toEqual(
      new Map([
        [1000, LIMIT],
        [1001, LIMIT],
        [1002, LIMIT],
      ]),
    );
    expect(lost.sort()).toEqual(['a:1000', 'a:1001', 'b:1000', 'b:1001', 'c:1000', 'c:1001']);
    expect(instances.map((rl) => rl.metrics.storeStateLost)).toEqual([2, 2, 2]);
  });

  it('FLUSHDB with waiters reserved ahead: noticed by the instance that saw them, their cycle grants no more than the limit', async () => {
    const { clock, perCycle, lost, instances } = fleet({ timeoutDuration: 3000 });
    const [a, b, c] = instances as [RedisRateLimiter, RedisRateLimiter, RedisRateLimiter];
    await a.acquirePermission(LIMIT); // cycle 1000's 5
    const waiting = [b.acquirePermission(3)]; // 3 of cycle 1001: b saw the key reserved through 1001
    await until(() => b.metrics.numberOfWaitingCalls === 1);
    await client.flushDb();
    waiting.push(b.acquirePermission(2)); // b notices: 1000 and 1001 count as taken, so these 2 wait for 1002
    await until(() => b.metrics.numberOfWaitingCalls === 2);
    waiting.push(a.acquirePermission(), c.acquirePermission()); // reserved in 1002 (3 left there) after b's 2
    await until(() => a.metrics.numberOfWaitingCalls === 1 && c.metrics.numberOfWaitingCalls === 1);
    await clock.advance(3000);
    await Promise.all(waiting);
    expect(perCycle).toEqual(
      new Map([
        [1000, 5],
        [1001, 3],
        [1002, 4],
      ]),
    );
    expect(lost.sort()).toEqual(['a:1000', 'b:1000']); // c had no answer from the key before: nothing to notice
    expect(clock.pendingTimers).toBe(0);
  });
});

redisSuite('RedisRateLimiter when its key is evicted (maxmemory, volatile-lru)', () => {
  let redis: RedisServer;
  let admin: TestClient;
  const clients: TestClient[] = [];
  beforeAll(async () => {
    redis = await startRedis(); // a server of this suite's own: its memory settings are changed
    admin = await connectClient(redis.url);
    for (let i = 0; i < 2; i++) clients.push(await connectClient(redis.url));
  });
  afterAll(async () => {
    for (const c of [admin, ...clients]) c.destroy();
    await redis.stop();
  });

  it('the key evicted mid-cycle: the cycle grants 5 in all, the loss is reported', async () => {
    if (!redis.owned) return; // changes the server's maxmemory
    const clock = new VirtualClock(1_000_000);
    const name = uniqueName('evicted');
    const perCycle = new Map<number, number>();
    const lost: number[] = [];
    const [a, b] = clients.map((c) => {
      const rl = new RedisRateLimiter(name, { client: c, limitForPeriod: LIMIT, limitRefreshPeriod: 1000, timeoutDuration: 0, clock, time: () => clock.now() });
      rl.on('successfulAcquire', (e) => perCycle.set(e.cycle, (perCycle.get(e.cycle) ?? 0) + e.permits));
      rl.on('storeStateLost', (e) => lost.push(e.cycle));
      return rl;
    }) as [RedisRateLimiter, RedisRateLimiter];
    await a.acquirePermission(3);
    await b.acquirePermission(2);
    // Memory just above what is used, volatile-lru: keys with a TTL (the limiter's has one) are evicted, least recently used first.
    const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);
    await admin.configSet({ 'maxmemory-policy': 'volatile-lru', maxmemory: String(used + 256 * 1024) });
    const filler = 'x'.repeat(16 * 1024);
    let written = 0;
    while ((await admin.exists(rateLimiterKey(name))) === 1) {
      expect(written, 'the limiter key is still there').toBeLessThan(2000);
      await admin.set(`filler:${written++}`, filler, { PX: 600_000 });
    }
    expect(Number(/evicted_keys:(\d+)/.exec(await admin.info('stats'))![1])).toBeGreaterThan(0);
    await admin.configSet({ maxmemory: '0' });
    for (let i = 0; i < 3; i++) {
      await expect(a.acquirePermission()).rejects.toBeInstanceOf(RequestNotPermittedError);
      await expect(b.acquirePermission()).rejects.toBeInstanceOf(RequestNotPermittedError);
    }
    expect(perCycle).toEqual(new Map([[1000, LIMIT]]));
    expect(lost).toEqual([1000, 1000]);
    expect([a.metrics.storeStateLost, b.metrics.storeStateLost]).toEqual([1, 1]);
    clock.set(1_001_000);
    await a.acquirePermission(LIMIT);
    await expect(b.acquirePermission()).rejects.toBeInstanceOf(RequestNotPermittedError);
    expect(perCycle.get(1001)).toBe(LIMIT);
  });
});
