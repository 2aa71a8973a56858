import type { CircuitBreaker, CircuitBreakerConfig, CircuitBreakerStateName } from '@breakwater/circuit-breaker';
import type { EventOf } from '@breakwater/core';
import { createClient } from 'redis';
import { afterAll, beforeAll } from 'vitest';
import { startRedis, type RedisServer } from '@breakwater/test-support/redis';
import { RedisBreakerSync } from '../../src/breaker-sync/redis-breaker-sync.js';
import type { RedisBreakerSyncEvents } from '../../src/breaker-sync/events.js';
import type { RedisBreakerSyncOptions } from '../../src/breaker-sync/config.js';

// Helpers of the breaker-sync tests (never exported by the package): an instance (two connections,
// a sync), breakers with short waits, and waits on events bounded in time (no sleeps).

/** A breaker that opens after 2 failures of 2 calls, waits 300 ms in OPEN, closes after 1 good trial call. */
export const FAST: CircuitBreakerConfig = {
  slidingWindowSize: 2,
  minimumNumberOfCalls: 2,
  failureRateThreshold: 50,
  waitDurationInOpenState: 300,
  permittedNumberOfCallsInHalfOpenState: 1,
};

export interface Instance {
  readonly sync: RedisBreakerSync;
  /** How many scripts (`EVALSHA` / `EVAL`) this instance has sent so far on its command connection. */
  scripts(): number;
  close(): Promise<void>;
}

/** A sync on two fresh connections to `url`, created silently (a test's own client error listener). */
export async function instance(url: string, options: Partial<RedisBreakerSyncOptions> = {}): Promise<Instance> {
  const client = createClient({ url, socket: { reconnectStrategy: () => 50 } });
  client.on('error', () => {});
  await client.connect();
  let scripts = 0;
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((args: string[]) => {
    if (args[0] === 'EVALSHA' || args[0] === 'EVAL') scripts++;
    return send(args);
  }) as typeof client.sendCommand;
  const subscriber = client.duplicate();
  subscriber.on('error', () => {});
  await subscriber.connect();
  const sync = new RedisBreakerSync({ client, subscriber, trialLease: 300, ...options });
  return {
    sync,
    scripts: () => scripts,
    async close() {
      await sync.close();
      client.destroy();
      subscriber.destroy();
    },
  };
}

function newClient(url: string) {
  return createClient({ url });
}

/** A node-redis client as the tests make them. */
export type TestRedisClient = ReturnType<typeof newClient>;

/** A connected command client and its subscriber duplicate on `url`, each with a silent `error` listener (the application's own). */
export async function connections(url: string): Promise<{ client: TestRedisClient; subscriber: TestRedisClient }> {
  const client = newClient(url);
  const subscriber = client.duplicate();
  for (const c of [client, subscriber]) c.on('error', () => {});
  await Promise.all([client.connect(), subscriber.connect()]);
  return { client, subscriber };
}

/** What {@link fleetOnRedis} gives a suite: its redis-server, and instances on it. */
export interface Fleet {
  /** The suite's redis-server (started in its `beforeAll`). */
  readonly redis: () => RedisServer;
  /** A sync on fresh connections, closed after the suite. */
  make(options?: Partial<RedisBreakerSyncOptions>): Promise<Instance>;
}

/** Call inside a `redisSuite`: a redis-server of the suite's own, and the instances made on it, all stopped after the suite. */
export function fleetOnRedis(): Fleet {
  let redis: RedisServer | undefined;
  const opened: Instance[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(opened.map((i) => i.close()));
    await redis?.stop();
  });
  const server = (): RedisServer => redis ?? raise('the suite has not started its redis-server yet');
  return {
    redis: server,
    async make(options = {}) {
      const i = await instance(server().url, options);
      opened.push(i);
      return i;
    },
  };
}

function raise(message: string): never {
  throw new Error(message);
}

let serial = 0;
/** A breaker name no other test uses (names are fleet-wide). */
export function uniqueName(prefix: string): string {
  return `${prefix} {${process.pid}-${++serial}} é`;
}

/** Records two failures: a FAST breaker opens (cause 'failure_rate'). */
export async function fail(breaker: CircuitBreaker, times = 2): Promise<void> {
  for (let i = 0; i < times; i++) await breaker.execute(() => Promise.reject(new Error('down'))).catch(() => {});
}

/** Resolves with the first `type` event of `sync` that `match` accepts; rejects after `ms`. */
export function nextEvent<K extends keyof RedisBreakerSyncEvents & string>(
  sync: RedisBreakerSync,
  type: K,
  match: (e: EventOf<RedisBreakerSyncEvents, K>) => boolean = () => true,
  ms = 2000,
): Promise<EventOf<RedisBreakerSyncEvents, K>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no ${type} event within ${ms} ms`));
    }, ms);
    const off = sync.on(type, (e) => {
      if (!match(e)) return;
      clearTimeout(timer);
      off();
      resolve(e);
    });
  });
}

/** Resolves with the cause once `breaker` moves to `to` (at once if it is there); rejects after `ms`. */
export function reaches(breaker: CircuitBreaker, to: CircuitBreakerStateName, ms = 2000): Promise<string> {
  if (breaker.state === to) return Promise.resolve('already');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`${breaker.name} did not reach ${to} within ${ms} ms (is ${breaker.state})`));
    }, ms);
    const off = breaker.on('stateTransition', (e) => {
      if (e.to !== to) return;
      clearTimeout(timer);
      off();
      resolve(e.cause);
    });
  });
}
