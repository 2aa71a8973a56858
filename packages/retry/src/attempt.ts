import { invoke, raceAbort, type CallContext, type PolicyFn } from '@breakwater/core';

/**
 * Runs one attempt: `fn`'s outcome as a promise that settles exactly once (a sync throw is a
 * rejection, a plain value a resolution, a hostile thenable is adopted once). With a signal
 * that can abort, the attempt also ends (rejecting with the signal's reason) the moment the
 * signal aborts, even if `fn` does not stop; `fn`'s own late outcome is then swallowed. The
 * abort listener goes through core's per-signal hub (one listener on the signal for all of
 * Breakwater) and is removed whichever comes first.
 */
export function runAttempt<T>(fn: PolicyFn<T>, ctx: CallContext): Promise<T> {
  return raceAbort(invoke(fn, ctx), ctx.signal);
}
