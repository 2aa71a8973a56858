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
  /**
   * Wall-clock time, in milliseconds since the Unix epoch: what an event's `time` says, for logs
   * (`new Date(event.time)`). Optional: a clock without it is read as `Date.now()`.
   */
  wallNow?(): number;
}

/**
 * The wall-clock time of `clock` (ms since the Unix epoch): its `wallNow()` when it has one,
 * else `Date.now()`. Events carry it as `time`; durations are measured with `now()`, never with this.
 *
 * @example
 * ```ts
 * const clock = new VirtualClock(0, { wallStart: Date.UTC(2026, 11, 2, 9, 30) });
 * await clock.advance(1500);
 * new Date(wallTime(clock)).toISOString(); // '2026-12-02T09:30:01.500Z'
 * ```
 */
export function wallTime(clock: Clock): number {
  return clock.wallNow === undefined ? Date.now() : clock.wallNow();
}

/** Node's longest timer; a longer delay would fire after 1 ms (with a `TimeoutOverflowWarning`). */
const MAX_NODE_DELAY = 2 ** 31 - 1;

/**
 * A timer of {@link systemClock}. Node truncates a fractional delay and measures it from the
 * event loop's cached time, which can be a few milliseconds stale, so a bare `setTimeout(fn, 9.7)`
 * may run when `performance.now()` has moved only 8 ms. This timer remembers when it is due on
 * the clock, arms Node's timer for the delay rounded up, and when Node fires early re-arms for
 * what is left: `fn` never runs before its due time. A delay longer than Node allows is armed in
 * slices of at most {@link MAX_NODE_DELAY}; `Infinity` is never armed. Unref'd unless `ref()`'d;
 * `ref()` / `unref()` / `hasRef()` behave like a Node `Timeout`'s (having `ref` marks it as a timer
 * that could keep the process alive: see `holdProcess`).
 */
class SystemTimer {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #ref = false;
  readonly #due: number;
  readonly #fn: () => void;

  constructor(fn: () => void, ms: number) {
    this.#fn = fn;
    this.#due = performance.now() + ms;
    if (ms !== Infinity) this.#arm(ms);
  }

  #arm(left: number): void {
    this.#timer = setTimeout(fire, Math.min(Math.ceil(left), MAX_NODE_DELAY), this);
    if (!this.#ref) this.#timer.unref();
  }

  /** Node's timer ran: run `fn` if it is due (a NaN or negative delay is due at once), else wait for the rest. */
  tick(): void {
    const left = this.#due - performance.now();
    if (left > 0) this.#arm(left);
    else {
      this.#timer = undefined;
      this.#fn();
    }
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

function fire(timer: SystemTimer): void {
  timer.tick();
}

/**
 * The real clock: `performance.now()` (and `Date.now()` for {@link Clock.wallNow}) and Node's timers, `unref`'d so that a pending background
 * timer never keeps the process alive (a wait a caller awaits holds the process with `holdProcess`). A timer
 * never fires before its due time as `now()` reads it (Node's own timers can run up to a few
 * milliseconds early: they truncate fractions and count from a stale loop time). A delay longer
 * than Node's limit (2^31 - 1 ms, about 24.8 days) is honoured, and `Infinity` never fires.
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
  wallNow: () => Date.now(),
  setTimeout: (fn, ms) => new SystemTimer(fn, ms),
  clearTimeout(handle) {
    if (handle instanceof SystemTimer) handle.clear();
  },
};
