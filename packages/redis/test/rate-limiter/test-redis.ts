// Test helpers of the RedisRateLimiter suites (not exported): a client on the harness's server.
import { createClient } from 'redis';
import { expect } from 'vitest';
import { startRedis, type RedisServer } from '@breakwater/test-support/redis';

function makeClient(url: string) {
  return createClient({ url, socket: { reconnectStrategy: () => 50 } });
}

/** A node-redis client as the tests use it (reconnects every 50 ms). */
export type TestClient = ReturnType<typeof makeClient>;

/**
 * A connected client on `url` whose `error` events are collected, not thrown (node-redis emits
 * one per failed reconnection; an EventEmitter with no listener would crash the process).
 */
export async function connectClient(url: string): Promise<TestClient & { readonly errors: unknown[] }> {
  const errors: unknown[] = [];
  const client = makeClient(url);
  client.on('error', (error: unknown) => errors.push(error));
  await client.connect();
  return Object.assign(client, { errors });
}

let counter = 0;

/** A limiter name no other test uses (on a shared REDIS_URL too), with characters a name may hold. */
export function uniqueName(label: string): string {
  counter += 1;
  return `${label} {${process.pid}}:${counter}:${Date.now()}`;
}

/** A redis-server of the suite's own (or REDIS_URL's) and a connected client on it: a suite's `beforeAll`. */
export async function startWithClient(): Promise<{ redis: RedisServer; client: TestClient }> {
  const redis = await startRedis();
  return { redis, client: await connectClient(redis.url) };
}

/** The suite's `afterAll`: the client closed, the server stopped. */
export async function stopWithClient(redis: RedisServer, client: TestClient): Promise<void> {
  client.destroy();
  await redis.stop();
}

/**
 * Resolves once `ready()` holds, asking again after each turn of the event loop (`setImmediate`:
 * no fixed sleep; a round trip to Redis is real I/O, so the loop must turn for its answer); fails
 * the test when it still does not hold after `ms` of real time.
 */
export async function until(ready: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    expect(Date.now(), 'the condition still does not hold').toBeLessThan(deadline);
    await new Promise((r) => setImmediate(r));
  }
}
