// tsc itself on test/tc39/, a user's project with TypeScript's standard (TC39) decorators and
// experimentalDecorators off: the fixtures compile, each `@ts-expect-error` there is a type error
// that happens (tsc fails on one that does not), and the same code under experimentalDecorators
// does not type-check — @resilient is a standard decorator (contract: docs/decorators.md).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const project = fileURLToPath(new URL('../test/tc39/', import.meta.url));
const tscBin = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');

/** `tsc -p test/tc39 …flags`: its exit code and what it printed. */
function tsc(...flags: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [tscBin, '-p', project, '--pretty', 'false', ...flags], { timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

describe('@resilient under tsc', () => {
  it('the fixture project has experimentalDecorators off', () => {
    const config = JSON.parse(readFileSync(join(project, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    expect(config.compilerOptions['experimentalDecorators']).toBe(false);
  });

  it('compiles with standard decorators: types kept, every wrong use a type error', { timeout: 120_000 }, async () => {
    expect(await tsc()).toEqual({ code: 0, output: '' });
  });

  it('does not type-check as a legacy (experimentalDecorators) decorator', { timeout: 120_000 }, async () => {
    const { code, output } = await tsc('--experimentalDecorators');
    expect(code).not.toBe(0);
    expect(output).toMatch(/payment-gateway\.ts\(\d+,\d+\): error TS12\d\d: Unable to resolve signature of method decorator/);
  });
});
