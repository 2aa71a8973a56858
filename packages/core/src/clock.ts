import { performance } from 'node:perf_hooks';

/**
 * An opaque handle returned by {@link Clock.setTimeout}; only the clock that made it reads it.
 *
 * @example
 * ```ts
 * const handle: TimerHandle = clock.setTimeout(onTimeout, 600);
 * clock.clearTimeout(handle);
 * ```
 */
export type TimerHandle = { readonly __timer: unique symbol } | object;

/**
 * The source of time for every Breakwater component: readings in milliseconds (monotonic)
 * and timers. Inject {@link VirtualClock} in tests; production uses {@link systemClock}.
 * A clock of your own needs only these three methods; `clearTimeout` must ignore a handle
 * that already fired or was cleared.
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

/** Node's longest timer; a longer delay would fire after 1 ms (with a `TimeoutOverflowWarning`). */
const MAX_NODE_DELAY = 2 ** 31 - 1;

/**
 * A timer longer than Node allows: armed in slices of at most {@link MAX_NODE_DELAY}, or never
 * for `Infinity`. Unref'd like every system timer; `ref()` / `unref()` / `hasRef()` behave like
 * a Node `Timeout`'s (`sleep` refs the timer it awaits).
 */
class LongTimeout {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #ref = false;

  constructor(fn: () => void, ms: number) {
    if (ms !== Infinity) this.#arm(fn, ms);
  }

  #arm(fn: () => void, left: number): void {
    const slice = Math.min(left, MAX_NODE_DELAY);
    this.#timer = setTimeout(() => {
      if (left > slice) this.#arm(fn, left - slice);
      else {
        this.#timer = undefined;
        fn();
      }
    }, slice);
    if (!this.#ref) this.#timer.unref();
  }

  /** Whether the timer keeps the process alive (never for `Infinity`: there is no timer). */
  hasRef(): boolean {
    return this.#ref && this.#timer !== undefined;
  }

  ref(): this {
    this.#ref = true;
    this.#timer?.ref();
    return this;
  }

  unref(): this {
    this.#ref = false;
    this.#timer?.unref();
    return this;
  }

  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * The real clock: `performance.now()` and Node's timers, `unref`'d so that a pending
 * Breakwater timer never keeps the process alive. A delay longer than Node's limit
 * (2^31 - 1 ms, about 24.8 days) is honoured, and `Infinity` never fires.
 *
 * @example
 * ```ts
 * const started = systemClock.now();
 * const t = systemClock.setTimeout(() => console.log('tick'), 100);
 * systemClock.clearTimeout(t);
 * ```
 */
export const systemClock: Clock = {
  // perf_hooks' `performance`, held here: the global `performance` is a lazy getter, read on every call otherwise.
  now: () => performance.now(),
  setTimeout(fn, ms) {
    if (ms > MAX_NODE_DELAY) return new LongTimeout(fn, ms);
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout(handle) {
    if (handle instanceof LongTimeout) handle.clear();
    else clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};
