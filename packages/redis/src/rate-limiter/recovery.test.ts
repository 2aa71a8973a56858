import { spawn, type ChildProcess } from 'node:child_process';
import { redisSuite, startRedis, type RedisServer } from '@breakwater/test-support/redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { connectClient, type TestClient, uniqueName, until } from '../../test/rate-limiter/test-redis.js';

// 'fail-open' must not starve its own way back: a caller that loops on `await acquirePermission()`
// never yields to the event loop (every answer is a resolved promise), so node-redis could never
// reconnect. On time, a call of the call path gives the loop a turn and tries Redis again.

/** How long the loop may spin before the test gives up (real time: a real redis-server comes back). */
const BOUND_MS = 8000;

redisSuite('RedisRateLimiter recovers from the call path', () => {
  let redis: RedisServer;
  let client: TestClient;
  let revived: ChildProcess | undefined;
  beforeAll(async () => {
    redis = await startRedis();
    client = await connectClient(redis.url);
  });
  afterAll(async () => {
    client.destroy();
    revived?.kill('SIGKILL');
    await redis.stop();
  });

  it(
    "'fail-open': a loop of awaited acquires that never yields to macrotasks sees storeRecovered once Redis is back",
    async () => {
      if (!redis.owned) return; // needs to kill the server
      const rl = new RedisRateLimiter(uniqueName('starved'), {
        client,
        onStoreError: 'fail-open',
        limitForPeriod: 1_000_000,
        limitRefreshPeriod: '1s',
        commandTimeout: 150,
      });
      const events: string[] = [];
      rl.on('storeError', () => events.push('storeError'));
      rl.on('storeRecovered', () => events.push('storeRecovered'));
      await rl.acquirePermission();
      await redis.kill();
      await until(() => !client.isReady);
      await rl.acquirePermission();
      expect(events).toEqual(['storeError']);

      // The server comes back in 300 ms by a process of its own: nothing of this one has to run for it.
      revived = spawn('sh', ['-c', `sleep 0.3; exec redis-server --port ${redis.port} --bind 127.0.0.1 --save '' --appendonly no --loglevel warning`], {
        stdio: 'ignore',
      });
      const t0 = Date.now();
      let loops = 0;
      let macrotasks = 0;
      const counter = setInterval(() => (macrotasks += 1), 0); // counts the turns the loop gives (none, before the fix)
      try {
        while (!events.includes('storeRecovered') && Date.now() - t0 < BOUND_MS) {
          await rl.acquirePermission();
          loops += 1;
        }
      } finally {
        clearInterval(counter);
      }
      expect(events).toEqual(['storeError', 'storeRecovered']);
      expect(Date.now() - t0).toBeLessThan(BOUND_MS);
      expect(rl.metrics.store).toBe('redis');
      expect(loops).toBeGreaterThan(0);
      expect(macrotasks).toBeGreaterThan(0);
      // Back on Redis: the permits are counted there again.
      await rl.acquirePermission(10);
      expect((await rl.fetchMetrics()).availablePermissions).toBeLessThanOrEqual(1_000_000 - 10);
    },
    BOUND_MS + 10_000,
  );
});
