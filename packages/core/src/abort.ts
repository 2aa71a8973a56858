import type { Clock } from './clock.js';
import { holdProcess, releaseProcess } from './keep-alive.js';
import { NEVER_ABORTED } from './policy.js';
import { describeThrown, warnOnce } from './warn.js';

/**
 * Waits `ms` on `clock`, keeping the process alive meanwhile ({@link holdProcess}); rejects at
 * once with `signal.reason` when the signal aborts (at once, too, when it already has). The timer and the abort listener
 * are both removed whichever comes first, so a long-lived signal keeps no listener of a wait that
 * has ended. With no signal, or {@link NEVER_ABORTED}, no listener is added at all.
 *
 * @example
 * ```ts
 * await sleep(clock, 500, ctx.signal);
 * ```
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal === undefined || signal === NEVER_ABORTED) {
    return new Promise<void>((resolve) => {
      const timer = clock.setTimeout(() => {
        if (holding) releaseProcess();
        resolve();
      }, ms);
      const holding = holdProcess(timer);
    });
  }
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const stop = onAbort(signal, () => {
      clock.clearTimeout(timer);
      if (holding) releaseProcess();
      reject(signal.reason);
    });
    const timer = clock.setTimeout(() => {
      stop();
      if (holding) releaseProcess();
      resolve();
    }, ms);
    const holding = holdProcess(timer);
  });
}

/**
 * The listeners Breakwater keeps on one signal: a single `abort` listener on the signal itself
 * (`dispatch`) calls them all, so any number of calls and layers sharing one caller signal add
 * one listener to it, not one each (no `MaxListenersExceededWarning`). The hub goes when its last
 * listener does.
 */
interface Hub {
  readonly listeners: Set<() => void>;
  readonly dispatch: () => void;
}

const hubs = new WeakMap<AbortSignal, Hub>();

function hubOf(signal: AbortSignal): Hub {
  let hub = hubs.get(signal);
  if (hub !== undefined) return hub;
  const listeners = new Set<() => void>();
  const dispatch = (): void => {
    hubs.delete(signal);
    const called = [...listeners];
    listeners.clear();
    for (const listener of called) {
      try {
        listener();
      } catch (error) {
        warnOnce(
          listener,
          `An abort listener threw; the other listeners of the signal ran (reported once): ${describeThrown(error)}`,
          'BreakwaterListenerWarning',
        );
      }
    }
  };
  hub = { listeners, dispatch };
  hubs.set(signal, hub);
  signal.addEventListener('abort', dispatch, { once: true });
  return hub;
}

/**
 * Calls `listener` (once) when `signal` aborts; returns the function that stops listening
 * (idempotent). However many listeners are registered on one signal through it, the signal
 * carries a single `abort` listener of Breakwater's, removed with the last of them. Does nothing,
 * and allocates nothing, with no signal or {@link NEVER_ABORTED}. Like `addEventListener`, it
 * does not call `listener` for a signal that has already aborted: check `signal.aborted` first.
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
  const hub = hubOf(signal);
  // A wrapper of its own, so that the same function registered twice is two registrations.
  const entry = (): void => listener();
  hub.listeners.add(entry);
  return () => {
    if (!hub.listeners.delete(entry) || hub.listeners.size !== 0) return;
    signal.removeEventListener('abort', hub.dispatch);
    if (hubs.get(signal) === hub) hubs.delete(signal);
  };
}

const noop = (): void => {};
