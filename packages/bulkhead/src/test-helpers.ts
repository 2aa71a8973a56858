// Helpers shared by this package's tests (not part of the public surface).
import type { VirtualClock } from '@breakwater/core';
import type fc from 'fast-check';

/** A promise to resolve or reject by hand. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Follows a promise's state without awaiting it (and marks its rejection handled). */
export function track<T>(p: Promise<T>): { state: 'pending' | 'fulfilled' | 'rejected'; value?: T; error?: unknown } {
  const t: { state: 'pending' | 'fulfilled' | 'rejected'; value?: T; error?: unknown } = { state: 'pending' };
  p.then(
    (value) => Object.assign(t, { state: 'fulfilled', value }),
    (error: unknown) => Object.assign(t, { state: 'rejected', error }),
  );
  return t;
}

/** One macrotask: every pending promise callback has run. */
export const flush = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** Releases every task of an fc scheduler and fires every timer of the clock, until nothing is left. */
export async function settleAll(s: fc.Scheduler, clock: VirtualClock): Promise<void> {
  for (let round = 0; ; round++) {
    if (round > 1000) throw new Error(`still busy: ${s.count()} scheduled, ${clock.pendingTimers} timers`);
    await s.waitAll();
    await flush();
    if (s.count() > 0) continue;
    if (clock.pendingTimers === 0) return;
    await clock.runAll();
  }
}

/**
 * The work of one call in a scheduler property test: `start` when it runs, `end` when it stops,
 * and an outcome — a sync throw, or a promise the scheduler settles (rejected for 'fail').
 */
export function scheduledWork(s: fc.Scheduler, outcome: 'ok' | 'fail' | 'throw', start: () => void, end: () => void): () => Promise<string> {
  return () => {
    start();
    if (outcome === 'throw') {
      end();
      throw new Error('sync');
    }
    return s.schedule(Promise.resolve('settle')).then(() => {
      end();
      if (outcome === 'fail') throw new Error('async');
      return 'ok';
    });
  };
}
