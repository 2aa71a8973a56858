import { afterEach, describe, expect, it } from 'vitest';
// A test-only path to the rate limiter's sources: the bulkhead package depends on no other policy.
import { RateLimiter } from '@breakwater/rate-limiter';
import { PoolBulkhead, type WorkerPoolBulkhead } from './index.js';

// Real worker threads: the tasks take permits from a limit the main thread shares with them.
// They wait for outcomes, never for durations (the limiter's cycle is an hour long).
const filename = new URL('../test/fixtures/rate-limited.mjs', import.meta.url);

interface Payload {
  readonly limiter: unknown;
  readonly permits: number;
}
interface Seen {
  readonly threadId: number;
  readonly wait: number;
  readonly limitForPeriod: number;
  readonly availablePermissions: number;
}

const pools: WorkerPoolBulkhead<Payload, Seen>[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('PoolBulkhead.workers with RateLimiter.shared', () => {
  it('tasks on two worker threads take permits from the limit of a handle passed in their payload', async () => {
    const limiter = RateLimiter.shared('pg', { limitForPeriod: 5, limitRefreshPeriod: '1h', timeoutDuration: 0 });
    const pool = PoolBulkhead.workers<Payload, Seen>('cpu', {
      filename,
      maxThreadPoolSize: 2,
      coreThreadPoolSize: 2,
      queueCapacity: 10,
      execArgv: ['--conditions=@breakwater/source'],
    });
    pools.push(pool);
    await limiter.acquirePermission();
    const seen = await Promise.all(Array.from({ length: 6 }, () => pool.run({ limiter: limiter.handle, permits: 1 })));
    // 4 permits were left: 4 tasks got one, 2 were refused, whatever thread ran them.
    expect(seen.map((s) => s.wait).sort()).toEqual([-1, -1, 0, 0, 0, 0]);
    expect(limiter.metrics.availablePermissions).toBe(0);
    expect(limiter.reservePermission()).toBe(-1);
    // A limit changed in the main thread is the limit of the tasks (from the next refill, as in Resilience4j).
    limiter.changeLimitForPeriod(8);
    const after = await pool.run({ limiter: limiter.handle, permits: 1 });
    expect(after).toMatchObject({ wait: -1, limitForPeriod: 8, availablePermissions: 0 });
    // Every task ran in a worker thread (the main thread's id is 0).
    expect([...seen, after].every((s) => s.threadId > 0)).toBe(true);
  }, 30_000);
});
