// tsc itself on two users' projects: test/tc39/, TypeScript's standard (TC39) decorators
// (experimentalDecorators off), and test/legacy/, a NestJS project's legacy decorators
// (experimentalDecorators and emitDecoratorMetadata on). Each compiles, and each `@ts-expect-error`
// there is a type error that happens (tsc fails on one that does not) (contract: docs/decorators.md).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const project = fileURLToPath(new URL('../test/tc39/', import.meta.url));
const legacyProject = fileURLToPath(new URL('../test/legacy/', import.meta.url));
const tscBin = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');

/** `tsc -p <dir> …flags`: its exit code and what it printed. */
function tscOn(dir: string, ...flags: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [tscBin, '-p', dir, '--pretty', 'false', ...flags], { timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

const tsc = (...flags: string[]) => tscOn(project, ...flags);
const compilerOptions = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> }).compilerOptions;

describe('@resilient under tsc', () => {
  it('the fixture project has experimentalDecorators off', () => {
    expect(compilerOptions(project)['experimentalDecorators']).toBe(false);
  });

  it('compiles with standard decorators: types kept, every wrong use a type error', { timeout: 120_000 }, async () => {
    expect(await tsc()).toEqual({ code: 0, output: '' });
  });

  it('the legacy fixture project has experimentalDecorators and emitDecoratorMetadata on, as NestJS has them', () => {
    expect(compilerOptions(legacyProject)).toMatchObject({ experimentalDecorators: true, emitDecoratorMetadata: true });
  });

  it('compiles as a legacy (experimentalDecorators) decorator: types kept, every wrong use a type error', { timeout: 120_000 }, async () => {
    expect(await tscOn(legacyProject)).toEqual({ code: 0, output: '' });
  });
});
