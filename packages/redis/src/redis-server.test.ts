import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient } from 'redis';
import { redisSuite, startRedis, type RedisServer } from '@breakwater/test-support/redis';

// The harness every Redis suite stands on: a real redis-server of the test's own, killed and
// restarted on the same port, empty after a restart.
redisSuite('the test redis-server', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());

  it('answers, dies, and comes back empty on the same port', async () => {
    const client = createClient({ url: redis.url });
    await client.connect();
    await client.set('k', 'v');
    expect(await client.get('k')).toBe('v');
    client.destroy();
    if (!redis.owned) return;
    await redis.restart();
    const again = createClient({ url: redis.url });
    await again.connect();
    expect(await again.get('k')).toBeNull();
    again.destroy();
  });
});
