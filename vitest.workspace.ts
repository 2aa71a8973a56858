import { readdirSync, existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// Vitest 4 reads this file only when pointed at it: `vitest run --config vitest.workspace.ts`.
// One project per package / example. The `source` condition resolves every @breakwater/*
// import to its TypeScript source, so a test sees the code as it is, without a build.
const dirs = ['packages', 'examples', 'bench'].flatMap((top) =>
  existsSync(top)
    ? top === 'bench'
      ? ['bench']
      : readdirSync(top, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `${top}/${d.name}`)
    : [],
);

export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    projects: dirs.map((root) => ({
      extends: true,
      test: { name: root.replace(/^packages\//, ''), root, include: ['src/**/*.test.ts', 'test/**/*.test.ts'] },
    })),
  },
});
