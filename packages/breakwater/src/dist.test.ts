import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { redisUnavailable, startRedis } from '@breakwater/test-support/redis';
import { UMBRELLA_PACKAGES } from '../test/umbrella-packages.js';

/** Whether the Redis checks are skipped (no redis-server here, and not CI). */
const noRedisChecks = (): boolean => process.env['CI'] !== 'true' && redisUnavailable() !== undefined;

// The built packages, as a user gets them: each entry point loaded with `import` and with
// `require` by a plain `node` (no `@breakwater/source` condition, so the `exports` map leads to
// dist/), in a process of its own that runs test/dist-behaviour.cjs: it prints the entry point's
// export names, then makes real calls through it — a retried call, a breaker opening, a time-out,
// a bulkhead wait, a rate-limiter wait, an adaptive limit, a throttle, a hedged call, injected faults and latency, a pipeline, a worker task in a real worker thread, the
// test helpers, fromConfig (through @breakwater/spring-config and the umbrella) — on a VirtualClock. `pnpm test` builds what is stale first
// (scripts/build-if-stale.mjs).
const here = dirname(fileURLToPath(import.meta.url));
const packagesDir = join(here, '..', '..');
const umbrella = join(here, '..');
const packages = readdirSync(packagesDir)
  .map((dir) => join(packagesDir, dir, 'package.json'))
  .filter((file) => existsSync(file))
  .map((file) => JSON.parse(readFileSync(file, 'utf8')) as { name: string; exports: Record<string, unknown> });

// What each entry point must do through its built files (one check per policy it exports); an
// entry point missing here fails the test.
const behaviour: Record<string, string[]> = {
  '@breakwater/core': ['parseDuration'],
  '@breakwater/core/internal': ['enterCall'],
  '@breakwater/observe': ['health'],
  '@breakwater/circuit-breaker': ['CircuitBreaker'],
  '@breakwater/time-limiter': ['TimeLimiter'],
  '@breakwater/retry': ['Retry', 'Hedge'],
  '@breakwater/bulkhead': ['Bulkhead', 'PoolBulkhead'],
  '@breakwater/rate-limiter': ['RateLimiter'],
  '@breakwater/adaptive': ['AdaptiveLimiter', 'AdaptiveThrottle'],
  '@breakwater/chaos': ['FaultInjection', 'LatencyInjection'],
  '@breakwater/fetch': ['resilientFetch'],
  '@breakwater/decorators': ['decorate'],
  '@breakwater/spring-config': ['fromConfig'],
  '@breakwater/prometheus': ['PrometheusMetrics'],
  '@breakwater/opentelemetry': ['OpenTelemetryMetrics'],
  '@breakwater/testing': ['scriptedBackend'],
  '@breakwater/redis': noRedisChecks() ? [] : ['RedisRateLimiter', 'RedisBreakerSync'],
  '@breakwater/simulator': ['simulate'],
  breakwater: [
    'parseDuration',
    'Retry',
    'CircuitBreaker',
    'TimeLimiter',
    'Bulkhead',
    'PoolBulkhead',
    'RateLimiter',
    'AdaptiveLimiter',
    'AdaptiveThrottle',
    'Hedge',
    'FaultInjection',
    'LatencyInjection',
    'decorate',
    'fromConfig',
    'health',
  ],
  'breakwater/testing': ['scriptedBackend'],
};
const entryPoints = Object.keys(behaviour);
const modes = ['import', 'require'] as const;
type Mode = (typeof modes)[number];

// @breakwater/redis's checks talk to a real redis-server of this test's own (REDIS_URL). Without
// one they are skipped loudly, except under CI=true, where startRedis's error fails the file.
const noRedis = process.env['CI'] === 'true' ? undefined : redisUnavailable();
if (noRedis !== undefined) console.warn(`\n!!! SKIPPED the @breakwater/redis checks of the built packages: ${noRedis}\n`);
const redis = noRedis === undefined ? await startRedis() : undefined;
afterAll(() => redis?.stop());

// A user's environment: not the NODE_PATH into the workspace's node_modules that pnpm sets for vitest.
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(NODE_PATH|VITEST)/.test(key))),
  ...(redis ? { REDIS_URL: redis.url } : {}),
};

interface Run {
  code: number;
  stderr: string;
  exports: string[] | undefined;
  ran: string[] | undefined;
}

// One process per entry point and mode, started at once and shared by the tests that read it.
const runs = new Map<string, Promise<Run>>();
function run(name: string, how: Mode): Promise<Run> {
  const key = `${name} ${how}`;
  let result = runs.get(key);
  if (result === undefined) {
    result = new Promise((resolve) => {
      execFile(
        process.execPath,
        [join(umbrella, 'test', 'dist-behaviour.cjs'), name, how],
        { cwd: umbrella, encoding: 'utf8', env, timeout: 30_000 },
        (error, stdout, stderr) => {
          const lines = stdout
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as { exports?: string[]; ran?: string[] });
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          resolve({ code, stderr, exports: lines.find((l) => l.exports)?.exports, ran: lines.find((l) => l.ran)?.ran });
        },
      );
    });
    runs.set(key, result);
  }
  return result;
}
for (const name of entryPoints) for (const how of modes) void run(name, how);

describe('the built packages', () => {
  it('every package and entry point has its behaviour checks', () => {
    // Every key of every exports map but ./package.json: `@breakwater/core/internal`, `breakwater/testing`, ….
    const published = packages.flatMap((p) =>
      Object.keys(p.exports)
        .filter((key) => key !== './package.json')
        .map((key) => (key === '.' ? p.name : `${p.name}${key.slice(1)}`)),
    );
    expect(entryPoints.slice().sort()).toEqual(published.sort());
  });

  it.each(entryPoints)(
    '%s loads with import and with require, with the same exports',
    async (name) => {
      const [esm, cjs] = await Promise.all(modes.map((how) => run(name, how)));
      expect(esm!.exports).toBeDefined();
      expect(cjs!.exports).toEqual(esm!.exports);
    },
    30_000,
  );

  it('breakwater/testing has the test helpers', async () => {
    expect((await run('breakwater/testing', 'import')).exports).toContain('scriptedBackend');
  }, 30_000);

  it('the built umbrella exports its written list, each an export of one of its packages', async () => {
    const umbrellaExports = (await run('breakwater', 'import')).exports!;
    const source = Object.keys(await import('./index.js')).sort();
    expect(umbrellaExports).toEqual(source);
    const fromPackages = new Set((await Promise.all(UMBRELLA_PACKAGES.map((name) => run(name, 'import')))).flatMap((r) => r.exports!));
    for (const name of umbrellaExports) expect(fromPackages.has(name), name).toBe(true);
  }, 30_000);

  it.each(packages)('$name has an exports map with types, import and require', (pkg) => {
    const root = pkg.exports['.'] as { import: { types: string }; require: { types: string } };
    expect(root.import.types).toMatch(/\.d\.ts$/);
    expect(root.require.types).toMatch(/\.d\.cts$/);
  });

  // The behaviour, through both entry points of every package (the CommonJS retry once rejected
  // every retried call with "(0 , import_p_retry.default) is not a function").
  it.each(entryPoints.flatMap((name) => modes.map((how) => ({ name, how }))))(
    '$name through $how: its calls behave',
    async ({ name, how }) => {
      const { code, stderr, ran } = await run(name, how);
      expect(stderr).toBe(''); // no error, and no process warning
      expect(code).toBe(0);
      expect(ran).toEqual(behaviour[name]);
    },
    30_000,
  );
});
