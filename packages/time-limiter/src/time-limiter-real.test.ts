import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { systemClock, TimeoutError, VirtualClock, type Clock } from '@breakwater/core';
import { keepsProcessAlive } from '@breakwater/core/internal';
import { describe, expect, it } from 'vitest';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { TimeLimiter } from './index.js';

// The two places where real time is what is tested (contract: docs/conventions.md): a time limiter's race is a wait a
// caller awaits, so it keeps the process alive; and a time-out never comes before
// timeoutDuration as systemClock reads it. Both are bounded (well under a second of real time
// each, plus the child process's start).

/** Runs `source` (TypeScript) in a child `node` through tsx, with Breakwater's sources. */
function runScript(source: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'breakwater-time-limiter-'));
  const script = join(dir, 'script.mts');
  writeFileSync(script, source);
  // tsx is the workspace root's dev dependency (what `pnpm demo` runs); `@breakwater/source`
  // resolves @breakwater/core to its sources as in the tests.
  const tsx = createRequire(import.meta.url).resolve('tsx/cli');
  return new Promise((resolve) => {
    execFile(process.execPath, [tsx, '--conditions=@breakwater/source', script], { timeout: 60_000 }, (error, stdout, stderr) => {
      rmSync(dir, { recursive: true, force: true });
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('TimeLimiter on the real clock', () => {
  it('keeps the process alive while a call races its timer: a script awaiting a hung call sees the TimeoutError and exits 0', async () => {
    const entry = pathToFileURL(fileURLToPath(new URL('./index.ts', import.meta.url))).href;
    const { code, stdout, stderr } = await runScript(`
      import { TimeLimiter } from ${JSON.stringify(entry)};
      // A call that settles in time leaves nothing behind: its 60 s timer is cleared at once.
      const patient = new TimeLimiter('patient', { timeoutDuration: 60_000 });
      console.log('in time:', await patient.execute(() => Promise.resolve('ok')));
      try {
        await new TimeLimiter('t', { timeoutDuration: 100 }).execute(() => new Promise(() => {}));
        console.log('resolved');
      } catch (e) {
        console.log('caught', e.name + ':', e.message);
      }
    `);
    expect(stderr).toBe('');
    expect(stdout).toBe("in time: ok\ncaught TimeoutError: TimeLimiter 't' timed out after 100 ms\n");
    expect(code).toBe(0); // not 13 (a top-level await left unsettled when the loop emptied)
  }, 60_000);

  it('never times out before timeoutDuration as systemClock reads it (20 calls of ~15 ms, fractional delays)', async () => {
    const early: string[] = [];
    for (let i = 0; i < 20; i++) {
      const timeoutDuration = 14.3 + i * 0.07;
      const tl = new TimeLimiter('real', { timeoutDuration });
      let eventElapsed: number | undefined;
      tl.on('timeout', (e) => (eventElapsed = e.elapsed));
      const started = systemClock.now();
      const error = await tl.execute(() => new Promise(() => {})).catch((e: unknown) => e);
      const elapsed = systemClock.now() - started;
      expect(error).toBeInstanceOf(TimeoutError);
      if (elapsed < timeoutDuration || eventElapsed! < timeoutDuration)
        early.push(`call ${i}: ${timeoutDuration} ms timed out at ${elapsed} (event ${eventElapsed})`);
    }
    expect(early).toEqual([]);
  }, 10_000);
});

describe('TimeLimiter: what keeps the process alive', () => {
  it('one shared handle while races on Node-like timers are pending (any number of them), none once they have ended', async () => {
    // A VirtualClock whose timers look like Node's (they have ref): the limiter holds the process for them.
    const virtual = new VirtualClock();
    const clock: Clock = {
      now: () => virtual.now(),
      setTimeout: (fn, ms) => Object.assign(virtual.setTimeout(fn, ms), { ref() {}, unref() {} }),
      clearTimeout: (handle) => virtual.clearTimeout(handle),
    };
    const tl = new TimeLimiter('held', { clock, timeoutDuration: 100 });
    await nextTurn();
    const calls = Array.from({ length: 10 }, (_, i) =>
      tl.execute(() => new Promise((resolve) => virtual.setTimeout(() => resolve(i), 10 * i))).catch((e: unknown) => e),
    );
    expect(keepsProcessAlive()).toBe(true);
    await virtual.advance(50); // half of them have settled
    await nextTurn();
    expect(keepsProcessAlive()).toBe(true);
    await virtual.advance(100);
    expect(await Promise.all(calls)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await nextTurn();
    expect(keepsProcessAlive()).toBe(false);
  });

  it('nothing for a VirtualClock', async () => {
    const clock = new VirtualClock();
    await nextTurn();
    const call = new TimeLimiter('virtual', { clock, timeoutDuration: 100 }).execute(() => new Promise(() => {})).catch((e: unknown) => e);
    expect(keepsProcessAlive()).toBe(false);
    await clock.advance(100);
    expect(await call).toBeInstanceOf(TimeoutError);
  });
});
