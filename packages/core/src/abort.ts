import type { Clock } from './clock.js';

/**
 * Waits `ms` on `clock`; rejects at once with `signal.reason` when the signal aborts. The timer
 * and the abort listener are both removed whichever comes first, so a long-lived signal keeps no
 * listener of a wait that has ended.
 *
 * @example
 * ```ts
 * await sleep(clock, 500, ctx.signal);
 * ```
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clock.clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Calls `onAbort` when `signal` aborts; returns the function that stops listening. Does nothing
 * (and allocates nothing) for a signal that can never abort.
 *
 * @example
 * ```ts
 * const stop = onAbort(ctx.signal, () => queue.remove(waiter));
 * ```
 */
export function onAbort(signal: AbortSignal | undefined, listener: () => void): () => void {
  if (signal === undefined) return noop;
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

const noop = (): void => {};
