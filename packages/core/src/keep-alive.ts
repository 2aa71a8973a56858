// What keeps the process alive while a caller awaits a wait (docs/conventions.md: a retry's back-off, a
// bulkhead's or rate limiter's queue wait, a time limiter's race keep it alive, like a socket;
// background timers never do). Every such wait in Breakwater goes through here.
//
// `systemClock`'s timers are unref'd, and the awaited ones stay so: an unref'd timer still fires
// while the loop runs. Instead, one ref'd handle shared by every awaited wait of the process keeps
// the loop running. Why not ref each awaited timer: a ref'd Node timer costs about 0.8 µs more to
// set and clear than an unref'd one (measured on Node 20), which would triple the cost of a time
// limiter's call. Here a wait costs an increment and a decrement; the shared handle is created when
// the first wait starts and released once none is left at the end of the loop turn (a
// `setImmediate` checks), so a steady stream of calls never creates nor clears it per call.

/** Awaited waits pending now, process-wide. */
let pending = 0;
/** The shared ref'd handle (an interval that never fires in practice), while waits are pending. */
let keeper: ReturnType<typeof setInterval> | undefined;
let releaseCheckScheduled = false;

/** Node's longest timer period: the keeper never fires in practice (and does nothing if it does). */
const FOREVER = 2 ** 31 - 1;

function idle(): void {}

function releaseIfIdle(): void {
  releaseCheckScheduled = false;
  if (pending === 0 && keeper !== undefined) {
    clearInterval(keeper);
    keeper = undefined;
  }
}

/**
 * Keeps the process alive for a wait its caller awaits on `timer`, until {@link releaseProcess}:
 * when the timer is Node-like (it has `ref`, as `systemClock`'s do), and so could have kept the
 * process alive itself. Returns whether it holds the process: a `VirtualClock`'s timers have no
 * `ref`, there is nothing to hold, and `false` means "do not release". Cheap (a counter): the one
 * shared handle that keeps the loop running is created with the first pending wait.
 *
 * @example
 * ```ts
 * const timer = clock.setTimeout(onTimeout, ms);
 * const holding = holdProcess(timer);
 * // … when the wait ends (the timer fired, or it was cleared):
 * if (holding) releaseProcess();
 * ```
 */
export function holdProcess(timer: unknown): boolean {
  if (typeof (timer as { ref?: unknown } | null)?.ref !== 'function') return false;
  if (pending++ === 0 && keeper === undefined) keeper = setInterval(idle, FOREVER);
  return true;
}

/**
 * Ends one hold of {@link holdProcess} (call it once per hold that returned `true`). The shared
 * handle goes at the end of the loop turn if no wait is left then.
 *
 * @example
 * ```ts
 * if (this.#holding) {
 *   this.#holding = false;
 *   releaseProcess();
 * }
 * ```
 */
export function releaseProcess(): void {
  if (--pending === 0 && !releaseCheckScheduled) {
    releaseCheckScheduled = true;
    setImmediate(releaseIfIdle);
  }
}

/**
 * Whether an awaited wait keeps the process alive right now: the one shared ref'd handle exists
 * (it goes at the end of the loop turn in which the last wait ended). For tests and diagnostics.
 *
 * @example
 * ```ts
 * const call = limiter.execute(() => new Promise(() => {}));
 * keepsProcessAlive(); // true: a script awaiting `call` will not exit before it settles
 * ```
 */
export function keepsProcessAlive(): boolean {
  return keeper !== undefined && keeper.hasRef();
}
