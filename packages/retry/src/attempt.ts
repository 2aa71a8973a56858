import { NEVER_ABORTED, type CallContext, type PolicyFn } from '@breakwater/core';

/**
 * Runs one attempt. With a signal that can abort, the attempt also ends (rejecting with the
 * signal's reason) the moment the signal aborts, even if `fn` does not stop; `fn`'s own late
 * outcome is then swallowed, and the listener is removed whichever comes first.
 */
export function runAttempt<T>(fn: PolicyFn<T>, ctx: CallContext): T | PromiseLike<T> {
  const signal = ctx.signal;
  if (signal === NEVER_ABORTED) return fn(ctx);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let value: T | PromiseLike<T>;
    try {
      value = fn(ctx);
    } catch (error) {
      signal.removeEventListener('abort', onAbort);
      reject(error);
      return;
    }
    Promise.resolve(value).then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
