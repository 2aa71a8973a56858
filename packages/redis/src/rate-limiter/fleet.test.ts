import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { redisSuite, startRedis, type RedisServer } from '@breakwater/test-support/redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { uniqueName } from '../../test/rate-limiter/test-redis.js';

// Four processes share one limiter, on real time (a short period, bounded; counts only, no speed):
// the permits granted in any cycle, over all processes, never exceed limitForPeriod, counting each
// grant in the cycle Redis computed for it.

const CHILD = fileURLToPath(new URL('../../test/rate-limiter/fleet-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const LIMIT = 5;
const PERIOD = 200;
const DURATION = 1400; // 7 cycles

interface ChildReport {
  readonly grants: Record<string, number>;
  readonly refused: number;
  readonly errors: number;
  readonly fromFallback: number;
}

function startChild(url: string, name: string): { child: ChildProcess; ready: Promise<void>; report: Promise<ChildReport> } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@breakwater/source', CHILD, url, name, String(LIMIT), String(PERIOD), String(DURATION)],
    {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes('ready\n')) onReady();
  });
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const report = new Promise<ChildReport>((resolve, reject) =>
    child.on('exit', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && last.startsWith('{')) resolve(JSON.parse(last) as ChildReport);
      else reject(new Error(`child exited ${code}: ${err || out}`));
    }),
  );
  return { child, ready, report };
}

redisSuite('RedisRateLimiter shared by four processes', () => {
  let redis: RedisServer;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill();
    await redis.stop();
  });

  it('never grants more than limitForPeriod in a cycle, over all processes', { timeout: 60_000 }, async () => {
    const name = uniqueName('fleet');
    const fleet = Array.from({ length: 4 }, () => startChild(redis.url, name));
    children.push(...fleet.map((f) => f.child));
    await Promise.all(fleet.map((f) => f.ready));
    for (const f of fleet) f.child.stdin!.write('go\n');
    const reports = await Promise.all(fleet.map((f) => f.report));

    const perCycle = new Map<number, number>();
    for (const r of reports) for (const [cycle, n] of Object.entries(r.grants)) perCycle.set(Number(cycle), (perCycle.get(Number(cycle)) ?? 0) + n);
    const counts = [...perCycle.values()];
    expect(Math.max(...counts)).toBeLessThanOrEqual(LIMIT);
    expect(perCycle.size).toBeGreaterThanOrEqual(5);
    // The processes competed: several of them got permits, and some calls were refused.
    expect(reports.filter((r) => Object.keys(r.grants).length > 0).length).toBeGreaterThanOrEqual(2);
    expect(reports.reduce((n, r) => n + r.refused, 0)).toBeGreaterThan(0);
    expect(reports.map((r) => r.errors + r.fromFallback)).toEqual([0, 0, 0, 0]);
    // Full cycles in the middle of the run were used up to the limit, not beyond.
    expect(counts.filter((n) => n === LIMIT).length).toBeGreaterThanOrEqual(3);
  });
});
