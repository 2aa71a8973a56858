/**
 * Keeps the process alive while at least one time limiter's race is pending (SPEC §0: a time
 * limiter's race is a wait its caller awaits, like a socket). The race's own timer stays unref'd
 * — an unref'd timer still fires while the loop runs — and one ref'd handle, shared by every
 * pending race of the process, keeps the loop running instead.
 *
 * Why not `keepAlive` (ref) on each race's timer: a ref'd Node timer costs about 0.8 µs more to
 * set and clear than an unref'd one (measured on Node 20), which would triple the cost of a time
 * limiter's call. Here a call costs an increment and a decrement; the shared handle is created
 * when the first race starts and released once no race is left at the end of the loop turn (a
 * `setImmediate` checks), so a steady stream of calls never creates nor clears it per call.
 */
let pending = 0;
let keeper: ReturnType<typeof setInterval> | undefined;
let checkScheduled = false;

/** Node's longest timer period: the keeper never fires in practice (and does nothing if it does). */
const FOREVER = 2 ** 31 - 1;

function idle(): void {}

function releaseIfIdle(): void {
  checkScheduled = false;
  if (pending === 0 && keeper !== undefined) {
    clearInterval(keeper);
    keeper = undefined;
  }
}

/**
 * Whether a race on a timer from this clock should hold the process: its timers are Node-like
 * (they have `ref`, as `systemClock`'s do), so they could keep it alive. A `VirtualClock`'s
 * timers have no `ref`: nothing to hold.
 *
 * @example
 * ```ts
 * if (holdsProcess(timer)) { hold(); … release(); }
 * ```
 */
export function holdsProcess(timer: unknown): boolean {
  return typeof (timer as { ref?: unknown } | null)?.ref === 'function';
}

/** One more pending race: the process stays alive until it is {@link release}d. */
export function hold(): void {
  if (pending++ === 0 && keeper === undefined) keeper = setInterval(idle, FOREVER);
}

/** One race fewer; the shared handle goes at the end of the loop turn if none is left. */
export function release(): void {
  if (--pending === 0 && !checkScheduled) {
    checkScheduled = true;
    setImmediate(releaseIfIdle);
  }
}
