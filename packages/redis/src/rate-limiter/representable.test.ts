import { RequestNotPermittedError, VirtualClock } from '@breakwater/core';
import { RateLimiter } from '@breakwater/rate-limiter';
import { redisSuite, type RedisServer } from '@breakwater/test-support/redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RedisRateLimiterConfig } from './config.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { MAX_WAIT_MS } from './script.js';
import type { ScriptClient } from '../script-runner.js';
import { startWithClient, stopWithClient, type TestClient, uniqueName, until } from '../../test/rate-limiter/test-redis.js';

// A permit count whose wait the store cannot represent (the script's waits are integers of µs and
// its TTLs integers of ms) is a RangeError before Redis is asked; a large count whose wait can be
// represented waits, or is refused by timeoutDuration, as the in-process limiter does.

redisSuite('RedisRateLimiter: permit counts and the waits they need', () => {
  let redis: RedisServer;
  let client: TestClient;
  beforeAll(async () => ({ redis, client } = await startWithClient()));
  afterAll(() => stopWithClient(redis, client));

  /** `client` with its round trips counted (each begins with one EVALSHA; an EVAL after NOSCRIPT is the same round trip). */
  function counting(): ScriptClient & { calls: number } {
    const counted = {
      calls: 0,
      get isReady() {
        return client.isReady;
      },
      evalSha(sha1: string, options: { keys: string[]; arguments: string[] }) {
        counted.calls += 1;
        return client.evalSha(sha1, options);
      },
      eval(script: string, options: { keys: string[]; arguments: string[] }) {
        return client.eval(script, options);
      },
    };
    return counted;
  }

  function limiter(over: ScriptClient, clock: VirtualClock, config: Partial<RedisRateLimiterConfig> = {}): RedisRateLimiter {
    return new RedisRateLimiter(uniqueName('permits'), {
      client: over,
      limitForPeriod: 50,
      limitRefreshPeriod: 500,
      timeoutDuration: Infinity,
      clock,
      time: () => clock.now(),
      ...config,
    });
  }

  it.each(['fail-open', 'fail-closed', 'local'] as const)(
    '%s: acquirePermission(1e14) is a RangeError before Redis is asked, never a store error nor a grant',
    async (onStoreError) => {
      const clock = new VirtualClock(1_000_000);
      const counted = counting();
      const rl = limiter(counted, clock, { onStoreError });
      const events: string[] = [];
      rl.on('*', (e) => events.push(e.type));
      await expect(rl.acquirePermission(1e14)).rejects.toThrow(RangeError);
      await expect(rl.acquirePermission(1e14)).rejects.toThrow(
        `RedisRateLimiter '${rl.name}': acquirePermission(permits) must be at most 900719925550 (a wait of at most 9007199254740 ms at 50 per 500 ms, what the store can represent), got 100000000000000`,
      );
      await expect(rl.reservePermission(1e14)).rejects.toThrow(RangeError);
      await expect(rl.withPermits(1e14).execute(() => 'never')).rejects.toThrow(RangeError);
      expect(counted.calls).toBe(0);
      expect(events).toEqual([]);
      expect(rl.metrics.store).toBe('redis');
      // The bound follows changeLimitForPeriod.
      rl.changeLimitForPeriod(1);
      await expect(rl.reservePermission(18_014_398_512)).rejects.toThrow('must be at most 18014398511 (a wait of at most 9007199254740 ms at 1 per 500 ms');
      expect(counted.calls).toBe(0);
    },
  );

  it('the largest representable count waits, as in-process; where the state makes its wait too long it is refused; one more is a RangeError', async () => {
    const largest = 900_719_925_550;
    // At the very end of a cycle (1 ms left) its wait is the least it can be, and representable.
    const clock = new VirtualClock(1_000_499);
    const counted = counting();
    const rl = limiter(counted, clock);
    const inProcessClock = new VirtualClock(0);
    const inProcess = new RateLimiter('same', { limitForPeriod: 50, limitRefreshPeriod: 500, timeoutDuration: Infinity, clock: inProcessClock });
    inProcessClock.set(499); // cycles count from its creation: 1 ms before its cycle 1
    expect(await rl.reservePermission(largest)).toBe(inProcess.reservePermission(largest));
    // A waiter: it waits on the clock (and gives its permits back when it aborts).
    const next = limiter(counted, clock);
    const controller = new AbortController();
    const waiting = next.acquirePermission(largest, { signal: controller.signal });
    await until(() => next.metrics.numberOfWaitingCalls === 1);
    controller.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    // At the start of a cycle the same count would wait 500 ms longer than the store can represent:
    // refused (nothing reserved) whatever timeoutDuration, never a store error; the wait it reports is capped at MAX_WAIT_MS.
    clock.set(1_000_500);
    const fresh = limiter(counted, clock);
    await expect(fresh.acquirePermission(largest)).rejects.toMatchObject({ name: 'RequestNotPermittedError', waitMs: MAX_WAIT_MS });
    expect(await fresh.fetchMetrics()).toMatchObject({ store: 'redis', availablePermissions: 50 });
    await expect(fresh.acquirePermission(largest + 1)).rejects.toThrow(RangeError);
    expect(counted.calls).toBe(5); // reserve, acquire, its give-back, the refused acquire, fetchMetrics
    expect(clock.pendingTimers).toBe(0);
  });

  it('a large representable count is refused by timeoutDuration with the wait it needs, as in-process', async () => {
    const clock = new VirtualClock(1_000_000);
    const rl = limiter(client, clock, { timeoutDuration: 5000 });
    const inProcess = new RateLimiter('same', { limitForPeriod: 50, limitRefreshPeriod: 500, timeoutDuration: 5000, clock: new VirtualClock(0) });
    let expected: unknown;
    await inProcess.acquirePermission(1e11).catch((e: unknown) => (expected = e));
    expect(expected).toBeInstanceOf(RequestNotPermittedError);
    await expect(rl.acquirePermission(1e11)).rejects.toMatchObject({ name: 'RequestNotPermittedError', waitMs: (expected as RequestNotPermittedError).waitMs });
    expect(await rl.reservePermission(1e11)).toBe(-1);
    expect(rl.metrics).toMatchObject({ store: 'redis', availablePermissions: 50 });
  });
});
