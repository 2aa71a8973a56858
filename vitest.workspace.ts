import { readdirSync, existsSync } from 'node:fs';
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

export default defineConfig({
  resolve: { conditions: ['@breakwater/source'] },
  ssr: { resolve: { conditions: ['@breakwater/source'] } },
  test: {
    reporters: jsonReport ? ['default', ['json', { outputFile: jsonReport }]] : ['default'],
    projects: dirs.map((root) => ({
      extends: true,
      test: {
        name: root.replace(/^packages\//, ''),
        root,
        include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
        // The builder's type tests also run under tsc (vitest's typecheck mode): a wrong expectTypeOf fails the run.
        ...(root === 'packages/decorators'
          ? { typecheck: { enabled: true, include: ['src/types.test.ts'], tsconfig: 'tsconfig.json', ignoreSourceErrors: true } }
          : {}),
      },
    })),
  },
});
