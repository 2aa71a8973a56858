// Helpers of the hedge's tests: attempts settled by hand, each with the context it got.
import type { CallContext, VirtualClock } from '@breakwater/core';
import { deferred } from '@breakwater/test-support';

/** One attempt of a hedged call, as the test sees it. */
export interface ManualAttempt {
  readonly ctx: CallContext;
  /** When it started, on the clock. */
  readonly startedAt: number;
  /** When its signal aborted, on the clock (undefined while it has not). */
  abortedAt: number | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  settled: boolean;
}

/**
 * A function whose every call is an attempt the test settles by hand (`attempts[i].resolve(…)`).
 * With `rejectOnAbort`, an attempt rejects with its signal's reason when its signal aborts (as a
 * well-behaved `fetch` does); without it, it ignores its signal and stays pending until settled.
 */
export function manualAttempts(
  clock: VirtualClock,
  options: { readonly rejectOnAbort?: boolean } = {},
): { fn: (ctx: CallContext) => Promise<unknown>; attempts: ManualAttempt[] } {
  const attempts: ManualAttempt[] = [];
  const fn = (ctx: CallContext): Promise<unknown> => {
    const d = deferred<unknown>();
    const attempt: ManualAttempt = {
      ctx,
      startedAt: clock.now(),
      abortedAt: undefined,
      settled: false,
      resolve(value) {
        if (attempt.settled) return;
        attempt.settled = true;
        d.resolve(value);
      },
      reject(error) {
        if (attempt.settled) return;
        attempt.settled = true;
        d.reject(error);
      },
    };
    ctx.signal.addEventListener(
      'abort',
      () => {
        attempt.abortedAt = clock.now();
        if (options.rejectOnAbort === true) attempt.reject(ctx.signal.reason);
      },
      { once: true },
    );
    attempts.push(attempt);
    return d.promise;
  };
  return { fn, attempts };
}
