import { once } from 'node:events';
import { redisSuite, type RedisServer } from '@breakwater/test-support/redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OnStoreError } from './config.js';
import { StoreUnavailableError } from './errors.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { connectClient, startWithClient, stopWithClient, type TestClient, uniqueName, until } from '../../test/rate-limiter/test-redis.js';

// Redis killed mid-run, hung, and restarted empty (script cache gone), on real time: each
// onStoreError mode answers within commandTimeout, the outage is one storeError and one
// storeRecovered, and after the restart calls go on with no error reaching the caller.

const COMMAND_TIMEOUT = 150;
/** Slack for a loaded 2-core machine: the claim is "an answer, not a hang". */
const SLACK = 600;

async function timed<T>(call: () => Promise<T>): Promise<{ ms: number; outcome: 'ok' | 'error'; value?: T; error?: unknown }> {
  const t0 = performance.now();
  try {
    const value = await call();
    return { ms: performance.now() - t0, outcome: 'ok', value };
  } catch (error) {
    return { ms: performance.now() - t0, outcome: 'error', error };
  }
}

redisSuite('RedisRateLimiter when Redis fails', () => {
  let redis: RedisServer;
  let client: TestClient;
  beforeAll(async () => ({ redis, client } = await startWithClient()));
  afterAll(() => stopWithClient(redis, client));

  const limiterOf = (onStoreError: OnStoreError) =>
    new RedisRateLimiter(uniqueName(onStoreError), {
      client,
      onStoreError,
      limitForPeriod: 1000,
      limitRefreshPeriod: '1s',
      localLimitForPeriod: 3,
      timeoutDuration: 0,
      commandTimeout: COMMAND_TIMEOUT,
    });

  it.each(['fail-closed', 'fail-open', 'local'] as const)(
    '%s: killed -> its mode within commandTimeout; restarted -> back on Redis, one event each',
    async (mode) => {
      if (!redis.owned) return;
      const rl = limiterOf(mode);
      const events: string[] = [];
      rl.on('storeError', (e) => events.push(`storeError:${e.mode}`));
      rl.on('storeRecovered', () => events.push('storeRecovered'));
      await rl.acquirePermission();
      expect(rl.metrics.store).toBe('redis');

      await redis.kill();
      const during = [];
      for (let i = 0; i < 5; i++) during.push(await timed(() => rl.acquirePermission()));
      for (const call of during) expect(call.ms).toBeLessThan(COMMAND_TIMEOUT + SLACK);
      if (mode === 'fail-closed') {
        for (const call of during) expect(call.error).toBeInstanceOf(StoreUnavailableError);
        expect((during[0]!.error as StoreUnavailableError).cause).toBeInstanceOf(Error);
      } else if (mode === 'fail-open') {
        expect(during.map((c) => c.outcome)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
      } else {
        expect(during.map((c) => c.outcome)).toEqual(['ok', 'ok', 'ok', 'error', 'error']); // localLimitForPeriod: 3
      }
      expect(rl.metrics.store).toBe(mode);
      expect(events).toEqual([`storeError:${mode}`]);

      await redis.restart();
      if (!client.isReady) await once(client, 'ready');
      await until(async () => (await timed(() => rl.acquirePermission())).outcome === 'ok' && rl.metrics.store === 'redis');
      const after = [];
      for (let i = 0; i < 5; i++) after.push(await timed(() => rl.acquirePermission()));
      expect(after.map((c) => c.outcome)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
      expect(events).toEqual([`storeError:${mode}`, 'storeRecovered']);
      // The script cache was empty after the restart: EVALSHA said NOSCRIPT once, EVAL loaded it.
      const stats = await client.info('commandstats');
      expect(stats).toMatch(/cmdstat_eval:calls=1,/);
    },
  );

  it('a hung Redis (CLIENT PAUSE) is a store error within commandTimeout, not a hang', async () => {
    const rl = limiterOf('fail-closed');
    await rl.acquirePermission();
    const pauser = await connectClient(redis.url);
    await pauser.sendCommand(['CLIENT', 'PAUSE', '700', 'ALL']);
    const call = await timed(() => rl.acquirePermission());
    expect(call.error).toBeInstanceOf(StoreUnavailableError);
    expect(call.ms).toBeGreaterThanOrEqual(COMMAND_TIMEOUT - 5);
    expect(call.ms).toBeLessThan(COMMAND_TIMEOUT + SLACK);
    pauser.destroy();
    await until(async () => (await timed(() => rl.acquirePermission())).outcome === 'ok');
    expect(rl.metrics.store).toBe('redis');
  });
});
