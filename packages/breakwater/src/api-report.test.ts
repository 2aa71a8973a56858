import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// scripts/api-report.mjs (pnpm api:check / api:update) on a workspace of its own: one package whose
// built declarations change under it. The workspace lives under the repository's node_modules/.cache
// so that API Extractor's compiler finds @types/node as it does for the real packages.
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const script = join(repo, 'scripts', 'api-report.mjs');
const cache = join(repo, 'node_modules', '.cache');
let root: string;
let pkg: string;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args, '--root', root], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

const declarations = (text: string): void => writeFileSync(join(pkg, 'dist', 'index.d.ts'), text);
const report = (): string => readFileSync(join(pkg, 'etc', 'fake.api.md'), 'utf8');

beforeAll(() => {
  mkdirSync(cache, { recursive: true });
  root = mkdtempSync(join(cache, 'api-report-test-'));
  pkg = join(root, 'packages', 'fake');
  mkdirSync(join(pkg, 'dist'), { recursive: true });
  mkdirSync(join(root, 'packages', 'private-one'));
  writeFileSync(join(root, 'packages', 'private-one', 'package.json'), JSON.stringify({ name: 'private-one', private: true }));
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({
      name: '@fake/pkg',
      version: '0.1.0',
      type: 'module',
      exports: { '.': { import: { types: './dist/index.d.ts', default: './dist/index.js' } } },
    }),
  );
  declarations('/** Adds one. @example `inc(1)` */\nexport declare function inc(n: number): number;\n');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('pnpm api:check / api:update', () => {
  it('writes a report per entry point of the published packages, then finds the code and the report alike', async () => {
    const updated = await run('--update');
    expect(updated.code, updated.stderr).toBe(0);
    expect(report()).toContain('export function inc(n: number): number;');
    expect(existsSync(join(root, 'packages', 'private-one', 'etc'))).toBe(false);
    const checked = await run('--check');
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toContain('every public API report matches the code');
  }, 60_000);

  it('fails with a diff on an unreviewed change of the surface (and on a missing or left-over report), leaving the reports as they were', async () => {
    const before = report();
    declarations('/** Adds one. @example `inc(1)` */\nexport declare function inc(n: number, by?: number): number;\nexport declare const version: string;\n');
    writeFileSync(join(pkg, 'etc', 'fake-gone.api.md'), 'an entry point removed from exports\n');
    const other = join(root, 'packages', 'other');
    mkdirSync(join(other, 'dist'), { recursive: true });
    writeFileSync(
      join(other, 'package.json'),
      JSON.stringify({ name: '@fake/other', version: '0.1.0', type: 'module', exports: { '.': { import: { types: './dist/index.d.ts' } } } }),
    );
    writeFileSync(join(other, 'dist', 'index.d.ts'), 'export declare const other: number;\n');
    const checked = await run('--check');
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain('--- a/packages/fake/etc/fake.api.md');
    expect(checked.stderr).toContain('-export function inc(n: number): number;');
    expect(checked.stderr).toContain('+export function inc(n: number, by?: number): number;');
    expect(checked.stderr).toContain('+export const version: string;');
    expect(checked.stderr).toContain('packages/fake/etc/fake-gone.api.md has no entry point in package.json exports');
    expect(checked.stderr).toContain('packages/other/etc/other.api.md is missing');
    expect(checked.stderr).toContain('3 public API report(s) differ from the code');
    expect(checked.stderr).toContain('run pnpm api:update');
    expect(report()).toBe(before);
    expect(existsSync(join(other, 'etc'))).toBe(false);
  }, 60_000);
});
