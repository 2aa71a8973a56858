import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
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
      socket.once('connect', () => { socket.destroy(); resolve(true); });
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
    const refuse = async () => { throw new Error('REDIS_URL is set: this test cannot kill or restart a server it does not own'); };
    return { url: external, port, owned: false, kill: refuse, restart: refuse, stop: async () => {} };
  }
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], { stdio: 'ignore' });
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
  return { url: `redis://127.0.0.1:${port}`, port, owned: true, kill, restart: async () => { await kill(); await start(); }, stop: kill };
}
