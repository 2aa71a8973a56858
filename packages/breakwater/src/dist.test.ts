import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built packages, as a user gets them: each one imported with `import` and with `require`
// by a plain `node` (no `source` condition, so the `exports` map leads to dist/).
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
