import type { Clock } from './clock.js';
import { NEVER_ABORTED } from './policy.js';

/**
 * Makes a timer someone is awaiting (a retry's back-off, a queue's wait) keep the process alive,
 * as any pending sleep would: `systemClock` timers are unref'd, so a script whose only pending work
 * is `await retry.execute(…)` would otherwise exit in the middle of the back-off. Timers of other
 * clocks (no `ref` method) are left as they are. Returns the timer.
 *
 * @example
 * ```ts
 * const timer = keepAlive(clock.setTimeout(grant, waitMs));
 * ```
 */
export function keepAlive<H>(timer: H): H {
  (timer as { ref?: () => void }).ref?.();
  return timer;
}

/**
 * Waits `ms` on `clock` (keeping the process alive meanwhile); rejects at once with `signal.reason` when the signal aborts (at once,
 * too, when it already has). The timer and the abort listener are both removed whichever comes
 * first, so a long-lived signal keeps no listener of a wait that has ended. With no signal, or
 * {@link NEVER_ABORTED}, no listener is added at all.
 *
 * @example
 * ```ts
 * await sleep(clock, 500, ctx.signal);
 * ```
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal === undefined || signal === NEVER_ABORTED) return new Promise<void>((resolve) => void keepAlive(clock.setTimeout(resolve, ms)));
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clock.clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = keepAlive(
      clock.setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms),
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Calls `listener` (once) when `signal` aborts; returns the function that stops listening
 * (idempotent). Does nothing, and allocates nothing, with no signal or {@link NEVER_ABORTED}.
 * Like `addEventListener`, it does not call `listener` for a signal that has already aborted:
 * check `signal.aborted` first.
 *
 * @example
 * ```ts
 * if (ctx.signal.aborted) throw ctx.signal.reason;
 * const stop = onAbort(ctx.signal, () => queue.remove(waiter));
 * try { await waiter.promise; } finally { stop(); }
 * ```
 */
export function onAbort(signal: AbortSignal | undefined, listener: () => void): () => void {
  if (signal === undefined || signal === NEVER_ABORTED) return noop;
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

const noop = (): void => {};
