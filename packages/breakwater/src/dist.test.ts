import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built packages, as a user gets them: each one imported with `import` and with `require`
// by a plain `node` (no `@breakwater/source` condition, so the `exports` map leads to dist/).
// `pnpm test` builds what is stale first (scripts/build-if-stale.mjs).
const here = dirname(fileURLToPath(import.meta.url));
const packagesDir = join(here, '..', '..');
const umbrella = join(here, '..');
const packages = readdirSync(packagesDir)
  .map((dir) => join(packagesDir, dir, 'package.json'))
  .filter((file) => existsSync(file))
  .map((file) => JSON.parse(readFileSync(file, 'utf8')) as { name: string; exports: Record<string, unknown> });

function exportsOf(name: string, how: 'import' | 'require'): string[] {
  const script =
    how === 'import'
      ? `import(${JSON.stringify(name)}).then((m) => console.log(JSON.stringify(Object.keys(m).filter((k) => k !== 'default').sort())))`
      : `console.log(JSON.stringify(Object.keys(require(${JSON.stringify(name)})).sort()))`;
  const out = execFileSync(process.execPath, ['-e', script], { cwd: umbrella, encoding: 'utf8' });
  return JSON.parse(out) as string[];
}

describe('the built packages', () => {
  it.each(packages.map((p) => p.name))('%s loads with import and with require, with the same exports', (name) => {
    const esm = exportsOf(name, 'import');
    const cjs = exportsOf(name, 'require');
    expect(cjs).toEqual(esm);
  });

  it('breakwater/testing loads with import and with require', () => {
    expect(exportsOf('breakwater/testing', 'require')).toEqual(exportsOf('breakwater/testing', 'import'));
    expect(exportsOf('breakwater/testing', 'import')).toContain('scriptedBackend');
  });

  it('the umbrella has every export of every policy package', () => {
    const umbrellaExports = new Set(exportsOf('breakwater', 'import'));
    for (const pkg of packages.filter((p) => p.name.startsWith('@breakwater/') && p.name !== '@breakwater/testing')) {
      for (const name of exportsOf(pkg.name, 'import')) expect(umbrellaExports.has(name), `${pkg.name} ${name}`).toBe(true);
    }
  });

  it.each(packages)('$name has an exports map with types, import and require', (pkg) => {
    const root = pkg.exports['.'] as { import: { types: string }; require: { types: string } };
    expect(root.import.types).toMatch(/\.d\.ts$/);
    expect(root.require.types).toMatch(/\.d\.cts$/);
  });
});

// What each entry point must do through its built files (test/dist-behaviour.cjs runs one check
// per policy the entry point exports; a package missing here fails the test).
const behaviour: Record<string, string[]> = {
  '@breakwater/core': ['parseDuration'],
  '@breakwater/circuit-breaker': ['CircuitBreaker'],
  '@breakwater/time-limiter': ['TimeLimiter'],
  '@breakwater/retry': ['Retry'],
  '@breakwater/bulkhead': ['Bulkhead', 'PoolBulkhead'],
  '@breakwater/rate-limiter': ['RateLimiter'],
  '@breakwater/decorators': ['decorate'],
  '@breakwater/testing': ['scriptedBackend'],
  breakwater: ['parseDuration', 'Retry', 'CircuitBreaker', 'TimeLimiter', 'Bulkhead', 'PoolBulkhead', 'RateLimiter', 'decorate', 'fromConfig'],
  'breakwater/testing': ['scriptedBackend'],
};

function runBehaviour(name: string, how: 'import' | 'require'): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(umbrella, 'test', 'dist-behaviour.cjs'), name, how], { cwd: umbrella, encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe.concurrent('the built packages behave the same through import and require', () => {
  it('every package has its behaviour checks', () => {
    expect(Object.keys(behaviour).sort()).toEqual([...packages.map((p) => p.name), 'breakwater/testing'].sort());
  });

  // A retried call, a breaker opening, a time-out, a bulkhead wait, a rate-limiter wait, a
  // pipeline, the test helpers (VirtualClock), and a worker task in a real worker thread.
  it.each(Object.keys(behaviour).flatMap((name) => (['import', 'require'] as const).map((how) => ({ name, how }))))(
    '$name through $how',
    async ({ name, how }) => {
      const { code, stdout, stderr } = await runBehaviour(name, how);
      expect(stderr).toBe(''); // no error and no process warning
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toEqual({ ran: behaviour[name] });
    },
    30_000,
  );
});
