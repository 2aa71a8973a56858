/** An opaque handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = { readonly __timer: unique symbol } | object;

/**
 * The source of time for every Breakwater component: readings in milliseconds (monotonic)
 * and timers. Inject {@link VirtualClock} in tests; production uses {@link systemClock}.
 *
 * @example
 * ```ts
 * const breaker = new CircuitBreaker('pg', { clock: new VirtualClock() });
 * ```
 */
export interface Clock {
  /** Milliseconds, monotonic (never goes backwards). */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer; a handle that already fired or was cleared is ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/**
 * The real clock: `performance.now()` and Node's timers, `unref`'d so that a pending
 * Breakwater timer never keeps the process alive.
 *
 * @example
 * ```ts
 * const started = systemClock.now();
 * const t = systemClock.setTimeout(() => console.log('tick'), 100);
 * systemClock.clearTimeout(t);
 * ```
 */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};
