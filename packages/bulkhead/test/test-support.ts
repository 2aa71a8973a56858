// Helpers of this package's tests (not part of the public surface). The ones every package's
// tests share (deferred, track, flush) come from @breakwater/test-support.
import type { VirtualClock } from '@breakwater/core';
import { flush } from '@breakwater/test-support';
import type fc from 'fast-check';

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
