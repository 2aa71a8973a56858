// Test helpers of the RedisRateLimiter suites (not exported): a client on the harness's server.
import { createClient } from 'redis';

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
