import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';

/**
 * A real `redis-server` a test starts on a free port of its own, so it can kill and restart it
 * (the machine's Redis on 6379 is never touched). With `REDIS_URL` set, tests use that server
 * instead and `kill`/`restart` are refused (they would need to own the process).
 */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Whether this harness owns the process (false under `REDIS_URL`). */
  readonly owned: boolean;
  /** Kills the server (SIGKILL: a crash, not a shutdown) and waits until the port is closed. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty (no persistence: the script cache is gone too). */
  restart(): Promise<void>;
  /** Stops it for good (idempotent). */
  stop(): Promise<void>;
}

/** Whether `redis-server` is on the PATH. */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Why the Redis suites cannot run here, or `undefined` when they can (a `redis-server` binary on
 * the PATH, or `REDIS_URL`). Under `CI=true` a missing Redis is not a reason to skip: the caller
 * fails instead (see {@link redisSuite}).
 */
export function redisUnavailable(): string | undefined {
  if (process.env['REDIS_URL']) return undefined;
  if (hasRedisServer()) return undefined;
  return 'no redis-server on the PATH and no REDIS_URL: install Redis (Debian: apt-get install -y redis-server) or set REDIS_URL';
}

/**
 * `describe` for a suite that needs Redis: runs it when Redis is there; else skips it with a loud
 * warning locally, and under `CI=true` registers one failing test that says what is missing (CI
 * must run these suites).
 *
 * @example
 * ```ts
 * redisSuite('RedisRateLimiter on a real redis-server', () => { ... });
 * ```
 */
export function redisSuite(name: string, fn: () => void): void {
  const reason = redisUnavailable();
  if (reason === undefined) {
    describe(name, fn);
    return;
  }
  if (process.env['CI'] === 'true') {
    describe(name, () => {
      it('needs Redis', () => {
        throw new Error(`${name}: ${reason}`);
      });
    });
    return;
  }
  console.warn(`\n!!! SKIPPED "${name}": ${reason}\n`);
  describe.skip(name, fn);
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once a TCP connection to `port` succeeds (or fails, when `open` is false), polling every 20 ms for at most `timeoutMs`. */
async function waitForPort(port: number, open: boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const isOpen = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (isOpen === open) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not ${open ? 'start' : 'stop'} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Starts a `redis-server` on a free port (no persistence), or wraps `REDIS_URL` when set.
 *
 * @example
 * ```ts
 * const redis = await startRedis();
 * afterAll(() => redis.stop());
 * const client = createClient({ url: redis.url });
 * ```
 */
export async function startRedis(): Promise<RedisServer> {
  const external = process.env['REDIS_URL'];
  if (external) {
    const port = Number(new URL(external).port || 6379);
    const refuse = async () => {
      throw new Error('REDIS_URL is set: this test cannot kill or restart a server it does not own');
    };
    return { url: external, port, owned: false, kill: refuse, restart: refuse, stop: async () => {} };
  }
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], {
      stdio: 'ignore',
    });
    child.unref();
    await waitForPort(port, true);
  };
  const kill = async () => {
    if (child === undefined) return;
    const c = child;
    child = undefined;
    const exited = new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', () => resolve())));
    c.kill('SIGKILL');
    await exited;
    await waitForPort(port, false);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    owned: true,
    kill,
    restart: async () => {
      await kill();
      await start();
    },
    stop: kill,
  };
}

/**
 * A Redis Cluster of `redis-server` processes a test started (see {@link startRedisCluster}).
 *
 * @example
 * ```ts
 * const cluster: RedisCluster = await startRedisCluster();
 * const client = createCluster({ rootNodes: [{ url: cluster.urls[0] }] });
 * ```
 */
export interface RedisCluster {
  /** `redis://127.0.0.1:<port>` of every node, in port order of creation (all masters, no replicas). */
  readonly urls: readonly string[];
  readonly ports: readonly number[];
  /** Kills every node (SIGKILL) and removes their temp dirs (idempotent). */
  stop(): Promise<void>;
}

/**
 * Whether `redis-cli` is on the PATH (Debian: in `redis-tools`, a dependency of `redis-server`).
 *
 * @example
 * ```ts
 * if (!hasRedisCli()) console.warn('no redis-cli: the cluster suites skip');
 * ```
 */
export function hasRedisCli(): boolean {
  return spawnSync('redis-cli', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Why a Redis Cluster cannot be started here (no `redis-server` or no `redis-cli` on the PATH), or
 * `undefined` when it can. `REDIS_URL` does not help: a cluster is always started by the test.
 *
 * @example
 * ```ts
 * const reason = redisClusterUnavailable(); // undefined, or what to install
 * ```
 */
export function redisClusterUnavailable(): string | undefined {
  if (!hasRedisServer()) return 'no redis-server on the PATH: install Redis (Debian: apt-get install -y redis-server)';
  if (!hasRedisCli()) return 'no redis-cli on the PATH: install it (Debian: apt-get install -y redis-tools)';
  return undefined;
}

/**
 * `describe` for a suite that needs {@link startRedisCluster}: the rule of {@link redisSuite} (skips
 * loudly locally, fails under `CI=true`) with {@link redisClusterUnavailable} as the reason.
 *
 * @example
 * ```ts
 * redisClusterSuite('RedisRateLimiter on a real Redis Cluster', () => { ... });
 * ```
 */
export function redisClusterSuite(name: string, fn: () => void): void {
  const reason = redisClusterUnavailable();
  if (reason === undefined) {
    describe(name, fn);
    return;
  }
  if (process.env['CI'] === 'true') {
    describe(name, () => {
      it('needs a Redis Cluster', () => {
        throw new Error(`${name}: ${reason}`);
      });
    });
    return;
  }
  console.warn(`\n!!! SKIPPED "${name}": ${reason}\n`);
  describe.skip(name, fn);
}

/** Runs `redis-cli` with `args`; resolves with its stdout, rejects on a non-zero exit or after `timeoutMs`. */
function redisCli(args: readonly string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('redis-cli', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`redis-cli ${args.join(' ')} exited with ${String(code)}: ${out.trim()}`));
    });
  });
}

/**
 * Starts a Redis Cluster of `nodes` masters (no replicas, at least 3) on free ports of 127.0.0.1:
 * one `redis-server --cluster-enabled yes` per node, each with a temp dir of its own for its
 * `nodes-<port>.conf` (no persistence), joined by `redis-cli --cluster create`, then polled (every
 * 50 ms, for at most 10 s) until `CLUSTER INFO` says `cluster_state:ok` on every node. On any
 * failure the nodes started so far are killed and their dirs removed before it rejects.
 *
 * @example
 * ```ts
 * const cluster = await startRedisCluster();
 * afterAll(() => cluster.stop());
 * const client = createCluster({ rootNodes: [{ url: cluster.urls[0] }] });
 * ```
 */
export async function startRedisCluster(nodes = 3): Promise<RedisCluster> {
  if (!Number.isInteger(nodes) || nodes < 3) throw new RangeError(`startRedisCluster: a cluster needs at least 3 masters, got ${nodes}`);
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  const ports: number[] = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all(
      children.map((c) => {
        const exited = new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', () => resolve())));
        c.ref(); // the process must not end before its children's exits are seen
        c.kill('SIGKILL');
        return exited;
      }),
    );
    await Promise.all(ports.map((port) => waitForPort(port, false)));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < nodes; i++) {
      let port = await freePort();
      while (ports.includes(port)) port = await freePort();
      ports.push(port);
      const dir = mkdtempSync(join(tmpdir(), `breakwater-cluster-${port}-`));
      dirs.push(dir);
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout',
          '2000',
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          dir,
          '--loglevel',
          'warning',
        ],
        { stdio: 'ignore' },
      );
      child.unref();
      children.push(child);
    }
    await Promise.all(ports.map((port) => waitForPort(port, true)));
    await redisCli(['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], 10_000);
    const deadline = Date.now() + 10_000;
    for (const port of ports) {
      for (;;) {
        const info = await redisCli(['-h', '127.0.0.1', '-p', String(port), 'CLUSTER', 'INFO'], 2000);
        if (/^cluster_state:ok\r?$/m.test(info)) break;
        if (Date.now() > deadline) throw new Error(`redis cluster node ${port} not ok within 10 s: ${info.trim()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { urls: ports.map((p) => `redis://127.0.0.1:${p}`), ports, stop };
}
