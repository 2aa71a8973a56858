import { RequestNotPermittedError, VirtualClock } from '@breakwater/core';
import { redisClusterSuite, startRedisCluster, type RedisCluster } from '@breakwater/test-support/redis';
import { createClient, createCluster } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { keySlot, rateLimiterKey } from '../keys.js';
import type { RedisRateLimiterConfig } from './config.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import type { ScriptClient } from '../script-runner.js';
import { uniqueName, until } from '../../test/rate-limiter/test-redis.js';

// RedisRateLimiter on a real Redis Cluster (three masters started by the test, no replicas),
// through node-redis's createCluster(): the limiter's one hash-tagged key routes its script to the
// node that owns the key's slot. The cycle arithmetic is driven by a VirtualClock (`time`), so no
// test waits on real time.

function makeCluster(url: string) {
  return createCluster({ rootNodes: [{ url }] });
}
type TestCluster = ReturnType<typeof makeCluster>;
function makeNode(port: number) {
  return createClient({ url: `redis://127.0.0.1:${port}` });
}
type NodeClient = ReturnType<typeof makeNode>;

/** `client` with its EVALSHA / EVAL calls counted. */
function counting(client: ScriptClient): ScriptClient & { evalShas: number; evals: number } {
  const counted = {
    evalShas: 0,
    evals: 0,
    get isReady() {
      return client.isReady;
    },
    evalSha(sha1: string, options: { keys: string[]; arguments: string[] }) {
      counted.evalShas += 1;
      return client.evalSha(sha1, options);
    },
    eval(script: string, options: { keys: string[]; arguments: string[] }) {
      counted.evals += 1;
      return client.eval(script, options);
    },
  };
  return counted;
}

redisClusterSuite('RedisRateLimiter on a real Redis Cluster', () => {
  let cluster: RedisCluster;
  let client: TestCluster;
  /** A plain client on each node, by port. */
  const nodes = new Map<number, NodeClient>();
  /** The port of the master that owns each slot (from CLUSTER SLOTS). */
  const owner: number[] = [];
  let clock: VirtualClock;

  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    client = makeCluster(cluster.urls[0]!);
    client.on('error', () => {});
    await client.connect();
    for (const port of cluster.ports) {
      const node = makeNode(port);
      node.on('error', () => {});
      await node.connect();
      nodes.set(port, node);
    }
    const slots = (await nodes.get(cluster.ports[0]!)!.sendCommand(['CLUSTER', 'SLOTS'])) as [number, number, [string, number, ...unknown[]], ...unknown[]][];
    for (const [from, to, [, port]] of slots) for (let s = from; s <= to; s++) owner[s] = Number(port);
  }, 40_000); // above startRedisCluster's own worst case (5 s + 10 s + 10 s), so it never leaves nodes behind a timed-out hook

  afterAll(async () => {
    for (const node of nodes.values()) node.destroy();
    client?.destroy();
    await cluster?.stop();
  });

  function limiter(name: string, over: ScriptClient = client, config: Partial<RedisRateLimiterConfig> = {}): RedisRateLimiter {
    return new RedisRateLimiter(name, {
      client: over,
      limitForPeriod: 3,
      limitRefreshPeriod: 1000,
      timeoutDuration: 0,
      clock,
      time: () => clock.now(),
      ...config,
    });
  }

  /** The node (port) that owns the limiter named `name`'s key, checked against the server's CLUSTER KEYSLOT. */
  async function ownerOf(name: string): Promise<number> {
    const key = rateLimiterKey(name);
    const slot = keySlot(key);
    expect(await nodes.get(cluster.ports[0]!)!.sendCommand(['CLUSTER', 'KEYSLOT', key])).toBe(slot);
    return owner[slot]!;
  }

  /** One name per master: names `label-0`, `label-1`, … until every node owns one. */
  async function namesOnEveryNode(label: string): Promise<string[]> {
    const byNode = new Map<number, string>();
    for (let i = 0; byNode.size < cluster.ports.length; i++) {
      const name = uniqueName(`${label}-${i}`);
      const port = await ownerOf(name);
      if (!byNode.has(port)) byNode.set(port, name);
    }
    return [...byNode.values()];
  }

  /** Grants exactly `limit` permits in the current cycle, one by one, then refuses the next. */
  async function exactlyLimit(rl: RedisRateLimiter, limit: number): Promise<void> {
    for (let i = 0; i < limit; i++) await rl.acquirePermission();
    await expect(rl.acquirePermission()).rejects.toBeInstanceOf(RequestNotPermittedError);
  }

  it('the cluster has every slot owned by one of its three masters, and the client is ready', () => {
    expect(owner.filter((p) => p !== undefined)).toHaveLength(16384);
    expect(new Set(owner).size).toBe(3);
    expect(client.isReady).toBe(true);
  });

  it('limiters on different slots and nodes each grant exactly limitForPeriod per cycle, and the key is on its owner', async () => {
    clock = new VirtualClock(1_000_000);
    const names = await namesOnEveryNode('spread');
    const slots = names.map((n) => keySlot(rateLimiterKey(n)));
    expect(new Set(slots).size).toBe(3);
    const limiters = names.map((n) => limiter(n));
    for (const rl of limiters) await exactlyLimit(rl, 3);
    for (const name of names) {
      const port = await ownerOf(name);
      expect(await nodes.get(port)!.exists(rateLimiterKey(name))).toBe(1);
      for (const other of cluster.ports.filter((p) => p !== port)) {
        await expect(nodes.get(other)!.exists(rateLimiterKey(name))).rejects.toThrow(/^MOVED/);
      }
    }
    // The next cycle: each has its limit again, and only it.
    await clock.advance(1000);
    for (const rl of limiters) await exactlyLimit(rl, 3);
    // Waits across cycles work on the cluster too.
    await clock.advance(1000);
    const waiting = limiter(names[0]!, client, { timeoutDuration: 1000 });
    expect(await waiting.reservePermission(3)).toBe(0);
    expect(await waiting.reservePermission(3)).toBe(1000);
    expect(await waiting.reservePermission(1)).toBe(-1);
  });

  it('concurrent acquires on limiters of every node: one script call per limiter per tick, exactly the limit granted', async () => {
    clock = new VirtualClock(2_000_000);
    const names = await namesOnEveryNode('batch');
    const wrapped = names.map(() => counting(client));
    const limiters = names.map((n, i) => limiter(n, wrapped[i]!, { limitForPeriod: 4 }));
    const outcomes = await Promise.all(limiters.map((rl) => Promise.allSettled(Array.from({ length: 10 }, () => rl.acquirePermission()))));
    for (const [i, settled] of outcomes.entries()) {
      expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(4);
      expect(settled.filter((s) => s.status === 'rejected' && s.reason instanceof RequestNotPermittedError)).toHaveLength(6);
      expect(wrapped[i]!.evalShas).toBe(1);
    }
    // Waiters on the clock: 4 per cycle, a timeout of two cycles.
    clock.set(2_010_000);
    const rl = limiter(names[1]!, counting(client), { limitForPeriod: 4, timeoutDuration: 2000 });
    let granted = 0;
    const calls = Array.from({ length: 13 }, () =>
      rl.acquirePermission().then(
        () => (granted += 1),
        (e: unknown) => e,
      ),
    );
    await until(() => granted === 4 && rl.metrics.numberOfWaitingCalls === 8);
    await clock.advance(1000);
    await until(() => granted === 8);
    await clock.advance(1000);
    await until(() => granted === 12);
    const results = await Promise.all(calls);
    expect(results.filter((r) => r instanceof RequestNotPermittedError)).toHaveLength(1);
  });

  it('NOSCRIPT after SCRIPT FLUSH on the owning node: EVAL loads the script again, the count goes on', async () => {
    clock = new VirtualClock(3_000_000);
    const [name] = await namesOnEveryNode('noscript');
    const port = await ownerOf(name!);
    const wrapped = counting(client);
    const rl = limiter(name!, wrapped);
    await rl.acquirePermission(); // the script is cached on the owner now
    await nodes.get(port)!.sendCommand(['SCRIPT', 'FLUSH']);
    const events: string[] = [];
    rl.on('*', (e) => events.push(e.type));
    await rl.acquirePermission();
    expect(wrapped.evals).toBe(1);
    await rl.acquirePermission();
    expect(wrapped.evals).toBe(1); // cached again
    await expect(rl.acquirePermission()).rejects.toBeInstanceOf(RequestNotPermittedError);
    expect(events).toEqual(['successfulAcquire', 'successfulAcquire', 'failedAcquire']); // no storeError
    expect(rl.metrics.store).toBe('redis');
  });

  it('hostile names (braces, spaces, unicode, a lone surrogate) each get a limit of their own in one slot', async () => {
    clock = new VirtualClock(4_000_000);
    const suffix = `${process.pid}:${Date.now()}`;
    const names = ['{', '}', '{}', '}{', '{a}{b}', 'a b  c', '  ', 'ünïcødé 🚀 名前', '\ud800', '{ \u0000 }'].map((n) => `${n}${suffix}`);
    const ports = new Set<number>();
    for (const name of names) {
      ports.add(await ownerOf(name));
      await exactlyLimit(limiter(name), 3);
    }
    expect(ports.size).toBeGreaterThan(1); // they do not all land on one node
  });
});
