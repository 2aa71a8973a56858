import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Vitest 4 reads this file only when pointed at it: `vitest run --config vitest.workspace.ts`.
// One project per package / example. The `@breakwater/source` condition resolves every @breakwater/*
// import to its TypeScript source, so a test sees the code as it is, without a build.
const dirs = ['packages', 'examples', 'bench'].flatMap((top) =>
  existsSync(top)
    ? top === 'bench'
      ? ['bench']
      : readdirSync(top, { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => `${top}/${d.name}`)
    : [],
);

// CI sets BREAKWATER_JSON_REPORT to a file: the JSON report it reads the pass/fail counts from.
const jsonReport = process.env['BREAKWATER_JSON_REPORT'];

const TEST_DIRS = ['src', 'test'];
const TEST_FILE = /\.test\.ts$/;

/** The test files of a project (paths relative to its root). */
function testFiles(root: string): string[] {
  return TEST_DIRS.flatMap((dir) =>
    existsSync(join(root, dir))
      ? readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
          .filter((f) => TEST_FILE.test(f) && !f.split('/').includes('node_modules'))
          .map((f) => `${dir}/${f}`)
      : [],
  );
}

// Test files run without isolation (`isolate: false`): a worker keeps the modules it has loaded from
// one file to the next instead of starting afresh for each. Most of a run's time was the start of a
// fresh module graph per file (import and transform, ~1 s a file on a loaded 2-core machine); the
// tests themselves share nothing through modules (every clock, registry and policy is made in its
// test). The exception is a file that replaces a module (`vi.mock`): a module another file already
// loaded in the same worker would stay unreplaced, so such a file runs in a project of its own,
// isolated. The choice is made here by reading the files, so a new test that mocks needs no entry.
const MOCKS_A_MODULE = /\bvi\.(do)?mock\(/;

function mocking(root: string): string[] {
  return testFiles(root).filter((f) => MOCKS_A_MODULE.test(readFileSync(join(root, f), 'utf8')));
}

// The builder's type tests also run under tsc (vitest's typecheck mode): a wrong expectTypeOf fails the run.
const typecheck = (root: string) =>
  root === 'packages/decorators' ? { typecheck: { enabled: true, include: ['src/types.test.ts'], tsconfig: 'tsconfig.json', ignoreSourceErrors: true } } : {};

export default defineConfig({
  resolve: { conditions: ['@breakwater/source'] },
  ssr: { resolve: { conditions: ['@breakwater/source'] } },
  test: {
    // At least two workers (vitest's default is one fewer than the cores: a single worker on the
    // 2-core machines we measure on and CI runs on, and the real-time suites' waits — Redis, child
    // processes, Chromium — then overlap nothing). Transformed modules are cached on disk between runs
    // (node_modules/.experimental-vitest-cache, keyed by content), so a warm run transforms only what changed.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // A test that starts processes (the pack test's `node` runs, the fleets) can take seconds of CPU;
    // with two workers on two cores, vitest's default 5 s bound is too close (a hang still fails).
    testTimeout: 20_000,
    experimental: { fsModuleCache: true },
    reporters: jsonReport ? ['default', ['json', { outputFile: jsonReport }]] : ['default'],
    projects: dirs.flatMap((root) => {
      const name = root.replace(/^packages\//, '');
      const isolated = mocking(root);
      const shared = {
        extends: true as const,
        test: {
          name,
          root,
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...isolated],
          isolate: false,
          ...typecheck(root),
        },
      };
      if (isolated.length === 0) return [shared];
      return [shared, { extends: true as const, test: { name: `${name}:isolated`, root, include: isolated, isolate: true } }];
    }),
  },
});
