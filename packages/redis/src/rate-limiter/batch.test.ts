import { VirtualClock } from '@breakwater/core';
import { redisSuite, type RedisServer } from '@breakwater/test-support/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimiterKey } from '../keys.js';
import { MAX_BATCH } from './batch.js';
import type { RedisRateLimiterConfig } from './config.js';
import { StoreUnavailableError } from './errors.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import type { ScriptClient } from '../script-runner.js';
import { startWithClient, stopWithClient, type TestClient, uniqueName, until } from '../../test/rate-limiter/test-redis.js';

// Batching: the calls of one limiter in one tick go to Redis as one EVALSHA, run in order as if
// one after another. A client wrapper counts the script calls.

/** `client` with its EVALSHA / EVAL calls counted (and their operation counts). */
function counting(client: ScriptClient): ScriptClient & { evalShas: number; evals: number; ops: number[] } {
  const counted = {
    evalShas: 0,
    evals: 0,
    ops: [] as number[],
    get isReady() {
      return client.isReady;
    },
    evalSha(sha1: string, options: { keys: string[]; arguments: string[] }) {
      counted.evalShas += 1;
      counted.ops.push(options.arguments.length - 8); // the header: 8 strings
      return client.evalSha(sha1, options);
    },
    eval(script: string, options: { keys: string[]; arguments: string[] }) {
      counted.evals += 1;
      return client.eval(script, options);
    },
  };
  return counted;
}

redisSuite('RedisRateLimiter batches on a real redis-server', () => {
  let redis: RedisServer;
  let client: TestClient;
  let clock: VirtualClock;
  beforeAll(async () => ({ redis, client } = await startWithClient()));
  afterAll(() => stopWithClient(redis, client));

  function limiter(over: ScriptClient, config: Partial<RedisRateLimiterConfig> = {}): RedisRateLimiter {
    return new RedisRateLimiter(uniqueName('batch'), {
      client: over,
      limitForPeriod: 3,
      limitRefreshPeriod: 1000,
      timeoutDuration: 2500,
      clock,
      time: () => clock.now(),
      ...config,
    });
  }

  it('N concurrent calls of one tick are one EVALSHA and get exactly what the same calls one after another get', async () => {
    clock = new VirtualClock(1_000_000);
    const permits = [1, 2, 1, 3, 1, 1, 4, 1, 2, 1, 1, 1];
    const one = counting(client);
    const sequential = limiter(one);
    const expected: number[] = [];
    for (const p of permits) expected.push(await sequential.reservePermission(p));
    expect(one.evalShas).toBe(permits.length);

    const many = counting(client);
    const batched = limiter(many);
    const events: string[] = [];
    batched.on('*', (e) => events.push(e.type));
    const got = await Promise.all(permits.map((p) => batched.reservePermission(p)));
    expect(many.evalShas).toBe(1);
    expect(many.ops).toEqual([permits.length]);
    expect(got).toEqual(expected);
    expect(got.filter((w) => w === -1).length).toBeGreaterThan(0); // some refused, some waited
    expect(events.filter((t) => t === 'failedAcquire')).toHaveLength(got.filter((w) => w === -1).length);
    expect(batched.metrics).toEqual(sequential.metrics);

    // Acquires: the granted ones wait on the clock for their cycles, the refused ones reject.
    clock.set(1_010_000);
    const acquires = counting(client);
    const rl = limiter(acquires);
    const settled: string[] = [];
    const calls = Array.from({ length: 10 }, (_, i) =>
      rl.acquirePermission().then(
        () => settled.push(`ok${i}`),
        (e: Error) => settled.push(`${e.name}${i}`),
      ),
    );
    await until(() => rl.metrics.numberOfWaitingCalls === 6);
    expect(acquires.evalShas).toBe(1);
    // 3 per cycle: waits 0 ×3, 1000 ×3, 2000 ×3, and 3000 > 2500 refused.
    expect(settled).toEqual(['ok0', 'ok1', 'ok2', 'RequestNotPermittedError9']);
    await clock.advance(1000);
    await until(() => settled.length === 7);
    expect(settled.slice(4)).toEqual(['ok3', 'ok4', 'ok5']);
    await clock.advance(1000);
    await Promise.all(calls);
    expect(settled.slice(7)).toEqual(['ok6', 'ok7', 'ok8']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a change of limit within a tick, and a full batch, start the next batch; order is kept', async () => {
    clock = new VirtualClock(2_000_000);
    const counted = counting(client);
    const rl = limiter(counted, { limitForPeriod: 1000, timeoutDuration: 0 });
    const first = rl.reservePermission(10);
    rl.changeLimitForPeriod(5); // from the next refill: the cycle's 990 left stay
    const second = Array.from({ length: MAX_BATCH + 1 }, () => rl.reservePermission());
    expect(await first).toBe(0);
    const waits = await Promise.all(second);
    expect(counted.ops).toEqual([1, MAX_BATCH, 1]);
    expect(waits.every((w) => w === 0)).toBe(true);
    expect((await rl.fetchMetrics()).availablePermissions).toBe(1000 - 10 - MAX_BATCH - 1);
  });

  it('after a batch, an aborted reservation gives its permits back once every reservation after it has (the sequence number is exact)', async () => {
    clock = new VirtualClock(3_000_000);
    const counted = counting(client);
    const rl = limiter(counted, { limitForPeriod: 1, timeoutDuration: 5000 });
    await rl.acquirePermission();
    const signals = [new AbortController(), new AbortController(), new AbortController()];
    const calls = signals.map((c) => rl.acquirePermission(1, { signal: c.signal }));
    await until(() => rl.metrics.numberOfWaitingCalls === 3);
    expect(counted.evalShas).toBe(2);
    expect(rl.metrics.availablePermissions).toBe(-3); // waits 1000, 2000, 3000
    signals[1]!.abort(new Error('middle'));
    await expect(calls[1]).rejects.toThrow('middle');
    expect((await rl.fetchMetrics()).availablePermissions).toBe(-3); // a later reservation stands on it
    signals[2]!.abort(new Error('last'));
    await expect(calls[2]).rejects.toThrow('last');
    expect((await rl.fetchMetrics()).availablePermissions).toBe(-1); // the last one given back, then the middle one under it (as in-process)
    await clock.advance(1000);
    await calls[0];
    expect(clock.pendingTimers).toBe(0);
  });

  it('the key keeps a TTL: set by the first write of a cycle and by any write that reserves ahead, kept by the others', async () => {
    clock = new VirtualClock(5_000_000);
    const rl = limiter(client, { limitForPeriod: 2, timeoutDuration: 10_000 });
    const key = rateLimiterKey(rl.name);
    await rl.acquirePermission();
    const first = await client.pTTL(key);
    expect(first).toBeGreaterThan(2000); // max(1 s, 3 periods)
    expect(first).toBeLessThanOrEqual(3000);
    await rl.acquirePermission(); // same cycle, nothing ahead: KEEPTTL
    const kept = await client.pTTL(key);
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(first);
    expect(await rl.reservePermission(4)).toBe(2000); // 4 ahead: (2 + 3) periods
    expect(await client.pTTL(key)).toBeGreaterThan(4000);
  });

  it('a batch that aborts during its round trip: the aborted caller is rejected at once, the others are answered', async () => {
    clock = new VirtualClock(4_000_000);
    const rl = limiter(client, { limitForPeriod: 1, timeoutDuration: 5000 });
    await rl.acquirePermission();
    const gone = new AbortController();
    const a = rl.acquirePermission(1, { signal: gone.signal });
    const b = rl.reservePermission();
    gone.abort(new Error('left'));
    await expect(a).rejects.toThrow('left');
    // a reserved 1000 and was last when the reply came... but b reserved after it: nothing goes back.
    expect(await b).toBe(2000);
    expect((await rl.fetchMetrics()).availablePermissions).toBe(-2);
  });
});

describe('RedisRateLimiter batches when Redis does not answer', () => {
  const TIMEOUT = 100;
  const SLACK = 600;

  it.each(['fail-open', 'fail-closed', 'local'] as const)(
    '%s: every caller of a batch that gets no answer goes to the fallback exactly once, within commandTimeout',
    async (mode) => {
      let sent = 0;
      const hung: ScriptClient = { isReady: true, evalSha: () => (sent++, new Promise(() => {})), eval: () => new Promise(() => {}) };
      const rl = new RedisRateLimiter(uniqueName(mode), {
        client: hung,
        onStoreError: mode,
        limitForPeriod: 4,
        localLimitForPeriod: 4,
        timeoutDuration: 0,
        commandTimeout: TIMEOUT,
      });
      const events: string[] = [];
      rl.on('*', (e) => events.push(e.type));
      const t0 = performance.now();
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, () =>
          rl.acquirePermission().then(
            () => ({ ok: true, ms: performance.now() - t0 }),
            (e: unknown) => ({ ok: false, e, ms: performance.now() - t0 }),
          ),
        ),
      );
      expect(sent).toBe(1);
      for (const o of outcomes) expect(o.ms).toBeLessThan(TIMEOUT + SLACK);
      for (const o of outcomes) expect(o.ms).toBeGreaterThanOrEqual(TIMEOUT - 5);
      expect(events.filter((t) => t === 'storeError')).toHaveLength(1);
      const granted = events.filter((t) => t === 'successfulAcquire').length;
      const refused = events.filter((t) => t === 'failedAcquire').length;
      expect(granted + refused).toBe(6); // each caller decided once
      if (mode === 'fail-open') expect(outcomes.map((o) => o.ok)).toEqual([true, true, true, true, true, true]);
      if (mode === 'fail-closed') for (const o of outcomes) expect((o as { e: unknown }).e).toBeInstanceOf(StoreUnavailableError);
      if (mode === 'local') expect(outcomes.map((o) => o.ok)).toEqual([true, true, true, true, false, false]);
    },
  );

  it('a batch whose connection fails is a store error for each caller once (the error, not a timeout)', async () => {
    const failing: ScriptClient = {
      isReady: true,
      evalSha: () => Promise.reject(new Error('connection lost')),
      eval: () => Promise.reject(new Error('unused')),
    };
    const rl = new RedisRateLimiter(uniqueName('lost'), { client: failing, onStoreError: 'fail-closed', commandTimeout: 10_000 });
    const results = await Promise.allSettled([rl.acquirePermission(), rl.reservePermission(), rl.acquirePermission(2), rl.drainPermissions()]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseRejectedResult).reason).toMatchObject({ name: 'StoreUnavailableError', cause: { message: 'connection lost' } });
    expect((results[1] as PromiseFulfilledResult<number>).value).toBe(-1);
  });
});
