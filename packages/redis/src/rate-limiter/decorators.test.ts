import { RequestNotPermittedError, VirtualClock } from '@breakwater/core';
import { redisSuite, type RedisServer } from '@breakwater/test-support/redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
// The builder by path: @breakwater/decorators is not a dependency of this package (a policy
// package depends on core alone), and the test needs only its source.
import { decorate } from '@breakwater/decorators';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { startWithClient, stopWithClient, type TestClient, uniqueName } from '../../test/rate-limiter/test-redis.js';

redisSuite('RedisRateLimiter in a decorate() pipeline', () => {
  let redis: RedisServer;
  let client: TestClient;
  beforeAll(async () => ({ redis, client } = await startWithClient()));
  afterAll(() => stopWithClient(redis, client));

  it('withRateLimiter accepts it as a rate limiter, with and without permits', async () => {
    const clock = new VirtualClock(5000);
    const limiter = new RedisRateLimiter(uniqueName('pipeline'), {
      client,
      limitForPeriod: 3,
      limitRefreshPeriod: 1000,
      timeoutDuration: 0,
      clock,
      time: () => clock.now(),
    });
    const one = decorate().withRateLimiter(limiter);
    const two = decorate().withRateLimiter(limiter, 2);
    expect(one.describe()).toContain(`RateLimiter '${limiter.name}'`);
    expect(two.describe()).toContain('2 permits');
    expect(await one.execute(() => 'a')).toBe('a');
    expect(await two.execute(() => 'b')).toBe('b');
    await expect(one.execute(() => 'c')).rejects.toBeInstanceOf(RequestNotPermittedError);
    const wrapped = one.wrap((_ctx, x: number) => x * 2);
    clock.set(6000);
    expect(await wrapped(21)).toBe(42);
  });
});
