import { getEventListeners } from 'node:events';
import { TimeoutError, VirtualClock } from '@breakwater/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TimeLimiter } from './index.js';

/**
 * Three things race on the clock: the caller's abort (its timer set first), the work settling
 * (its timer set by the work, second) and the limiter's time-out (set last). The model: the
 * earliest wins, ties going to the timer set first. Whatever wins, no timer and no listener is
 * left, the counters say what happened, and the work's signal aborts exactly when the call did
 * not end by the work itself (and cancelRunningFuture, for a time-out).
 */
describe('TimeLimiter against a model of the race', () => {
  it('the earliest of abort, settle and time-out decides the outcome', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: 1500 }),
        fc.option(fc.integer({ min: 0, max: 1500 }), { nil: undefined }),
        fc.boolean(),
        fc.boolean(),
        async (timeout, settleAt, abortAt, rejects, cancelRunningFuture) => {
          const clock = new VirtualClock();
          const tl = new TimeLimiter('model', { clock, timeoutDuration: timeout, cancelRunningFuture });
          const caller = new AbortController();
          if (abortAt !== undefined) clock.setTimeout(() => caller.abort('aborted'), abortAt);
          let workSignal: AbortSignal | undefined;
          const outcome: { kind?: string; value?: unknown } = {};
          tl.execute(
            (ctx) => {
              workSignal = ctx.signal;
              return new Promise((resolve, reject) => {
                clock.setTimeout(() => (rejects ? reject(new Error('failed')) : resolve('value')), settleAt);
              });
            },
            { signal: caller.signal },
          ).then(
            (value) => Object.assign(outcome, { kind: 'value', value }),
            (error: unknown) => Object.assign(outcome, { kind: 'error', value: error }),
          );
          await clock.runAll();

          const candidates = [
            ...(abortAt !== undefined ? [{ at: abortAt, seq: 0, wins: 'abort' }] : []),
            { at: settleAt, seq: 1, wins: 'settle' },
            { at: timeout, seq: 2, wins: 'timeout' },
          ].sort((a, b) => a.at - b.at || a.seq - b.seq);
          const winner = candidates[0]!.wins;

          if (winner === 'abort') {
            expect(outcome).toEqual({ kind: 'error', value: 'aborted' });
            expect(tl.metrics).toEqual({ numberOfSuccessfulCalls: 0, numberOfFailedCalls: 1, numberOfTimeouts: 0 });
            expect(workSignal!.aborted).toBe(true);
          } else if (winner === 'timeout') {
            expect(outcome.kind).toBe('error');
            expect(outcome.value).toBeInstanceOf(TimeoutError);
            expect(tl.metrics).toEqual({ numberOfSuccessfulCalls: 0, numberOfFailedCalls: 0, numberOfTimeouts: 1 });
            // The caller may abort later: by then the call is over, so only the time-out counts.
            expect(workSignal!.aborted).toBe(cancelRunningFuture || abortAt !== undefined);
            if (cancelRunningFuture) expect(workSignal!.reason).toBe(outcome.value);
          } else if (rejects) {
            expect(outcome.kind).toBe('error');
            expect((outcome.value as Error).message).toBe('failed');
            expect(tl.metrics).toEqual({ numberOfSuccessfulCalls: 0, numberOfFailedCalls: 1, numberOfTimeouts: 0 });
          } else {
            expect(outcome).toEqual({ kind: 'value', value: 'value' });
            expect(tl.metrics).toEqual({ numberOfSuccessfulCalls: 1, numberOfFailedCalls: 0, numberOfTimeouts: 0 });
          }
          if (winner === 'settle' && cancelRunningFuture) expect(workSignal!.aborted).toBe(false);
          expect(clock.pendingTimers).toBe(0);
          expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
        },
      ),
      { numRuns: 300 },
    );
  });
});
