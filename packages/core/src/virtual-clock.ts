import type { Clock, TimerHandle } from './clock.js';
import { describeValue } from './config.js';

interface VirtualTimer {
  readonly due: number;
  readonly seq: number;
  readonly fn: () => void;
  /** Index in the heap; -1 once fired or cleared. */
  index: number;
}

/** Lets every pending promise callback run (one macrotask turn drains the microtask queue). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A clock that moves only when told to: deterministic time for tests.
 *
 * - `now()` starts at `start` (default 0) and changes only through {@link advance},
 *   {@link advanceTo} and {@link set}.
 * - {@link wallNow} (the wall-clock time events carry as `time`) starts at `wallStart`
 *   (default {@link VirtualClock.DEFAULT_WALL_START}, 2000-01-01T00:00:00Z) and moves with `now()`,
 *   so event times are as deterministic as everything else.
 * - {@link advance} runs every timer due within the span, in time order (ties in the order
 *   they were set), and lets promise callbacks settle between timers and at the end, so
 *   `await clock.advance(1000)` leaves the system as if one second had really passed.
 * - {@link set} jumps at once, synchronously, firing the due timers without letting promise
 *   callbacks run in between; {@link runAll} runs timers until none is left.
 * - {@link pendingTimers} counts timers not yet fired nor cleared: a test can check it is 0
 *   at the end (no leaked timer).
 * - A timer callback that throws rejects the `advance` (time stays at that timer's time, later
 *   timers stay pending). "Settle" is one `setImmediate` turn, so do not combine a VirtualClock
 *   with `vi.useFakeTimers()` faking `setImmediate`; await one advance before starting the next.
 *
 * @example
 * ```ts
 * const clock = new VirtualClock();
 * const limiter = new TimeLimiter('pg', { timeoutDuration: 600, clock });
 * const call = limiter.execute(() => new Promise(() => {}));
 * await clock.advance(600);
 * await expect(call).rejects.toThrow(TimeoutError);
 * expect(clock.pendingTimers).toBe(0);
 * ```
 */
export class VirtualClock implements Clock {
  /** The wall-clock time a `VirtualClock` starts at unless told otherwise: 2000-01-01T00:00:00Z (as .NET's FakeTimeProvider). */
  static readonly DEFAULT_WALL_START = Date.UTC(2000, 0, 1);

  #now: number;
  #seq = 0;
  readonly #heap: VirtualTimer[] = [];
  /** `wallNow() - now()`: fixed, so wall time moves exactly as `now()` does. */
  readonly #wallOffset: number;

  constructor(start = 0, options?: { readonly wallStart?: number }) {
    if (typeof start !== 'number') throw new TypeError(`VirtualClock: start must be a number of milliseconds, got ${describeValue(start)}`);
    if (!Number.isFinite(start)) throw new RangeError(`VirtualClock: start must be a finite number, got ${String(start)}`);
    const wallStart = options?.wallStart ?? VirtualClock.DEFAULT_WALL_START;
    if (typeof wallStart !== 'number')
      throw new TypeError(`VirtualClock: wallStart must be a number of milliseconds since the Unix epoch, got ${describeValue(wallStart)}`);
    if (!Number.isFinite(wallStart)) throw new RangeError(`VirtualClock: wallStart must be a finite number, got ${String(wallStart)}`);
    this.#now = start;
    this.#wallOffset = wallStart - start;
  }

  now(): number {
    return this.#now;
  }

  /** Wall-clock time (ms since the Unix epoch): `wallStart` plus the time advanced since the start. */
  wallNow(): number {
    return this.#wallOffset + this.#now;
  }

  /**
   * Sets a timer due at `now() + ms`. A delay that is not a positive number (0, negative, NaN) is
   * due now; `Infinity` is never due (it stays pending until cleared).
   */
  setTimeout(fn: () => void, ms: number): TimerHandle {
    // biome-ignore lint/complexity/useMathMinMax: Math.max(ms, 0) is NaN for NaN; a NaN delay is due now
    const delay = ms > 0 ? ms : 0;
    const timer: VirtualTimer = { due: this.#now + delay, seq: this.#seq++, fn, index: this.#heap.length };
    this.#heap.push(timer);
    this.#up(timer.index);
    return timer;
  }

  /** Cancels a pending timer; a fired, cleared or foreign handle (even `undefined`) is ignored. */
  clearTimeout(handle: TimerHandle): void {
    if (typeof handle !== 'object' || handle === null) return;
    const timer = handle as VirtualTimer;
    if (!(timer.index >= 0) || this.#heap[timer.index] !== timer) return;
    this.#removeAt(timer.index);
  }

  /** Timers set and neither fired nor cleared. */
  get pendingTimers(): number {
    return this.#heap.length;
  }

  /** When the next timer is due, or `undefined` when none is pending. */
  get nextTimerAt(): number | undefined {
    return this.#heap[0]?.due;
  }

  /**
   * Moves time forward by `ms`, firing every timer due on the way in order and letting promise
   * callbacks settle between timers and at the end. Throws once `limit` timers have fired at one
   * instant (a timer that keeps setting itself with 0 ms would otherwise spin forever); time then
   * stays at that instant. A timer that calls {@link set} moves time on: the advance never takes
   * it back.
   */
  async advance(ms: number, limit = 10_000): Promise<void> {
    if (typeof ms !== 'number' || !(ms >= 0) || !Number.isFinite(ms)) {
      throw new RangeError(`VirtualClock: advance(ms) needs a finite ms >= 0, got ${describeValue(ms)}`);
    }
    await this.advanceTo(this.#now + ms, limit);
  }

  /** Like {@link advance}, to an absolute time (which must not be in the past). */
  async advanceTo(time: number, limit = 10_000): Promise<void> {
    this.#checkForward(time, 'advanceTo');
    await settle();
    let instant = this.#now;
    let firedAtInstant = 0;
    for (let next = this.#heap[0]; next !== undefined && next.due <= time; next = this.#heap[0]) {
      this.#fire(next);
      if (this.#now !== instant) {
        instant = this.#now;
        firedAtInstant = 0;
      }
      if (++firedAtInstant > limit) {
        throw new Error(`VirtualClock: ${limit} timers fired at ${instant} ms and more are due (a timer that sets itself again with 0 ms?)`);
      }
      await settle();
    }
    if (time > this.#now) this.#now = time;
    await settle();
  }

  /**
   * Jumps to `time` at once, synchronously. Timers due by then fire synchronously, in order,
   * without letting promise callbacks run in between (use {@link advanceTo} for that).
   */
  set(time: number, limit = 10_000): void {
    this.#checkForward(time, 'set');
    let fired = 0;
    for (let next = this.#heap[0]; next !== undefined && next.due <= time; next = this.#heap[0]) {
      if (++fired > limit) throw new Error(`VirtualClock: set(${time}) fired ${limit} timers and more are due (a timer that sets itself again with 0 ms?)`);
      this.#fire(next);
    }
    if (time > this.#now) this.#now = time;
  }

  /**
   * Runs every pending timer (and those they set) in order, letting promise callbacks settle
   * between them, until none is left; time ends at the last one fired. Throws once `limit`
   * timers have fired and more are pending (a timer that keeps setting itself). Timers set
   * with `Infinity` are never due and stay pending.
   */
  async runAll(limit = 10_000): Promise<void> {
    await settle();
    for (let fired = 0, next = this.#heap[0]; next !== undefined && next.due !== Infinity; next = this.#heap[0]) {
      if (++fired > limit) throw new Error(`VirtualClock: runAll fired ${limit} timers and more are pending`);
      this.#fire(next);
      await settle();
    }
  }

  #fire(timer: VirtualTimer): void {
    this.#removeAt(0);
    if (timer.due > this.#now) this.#now = timer.due;
    timer.fn();
  }

  #checkForward(time: number, method: string): void {
    if (typeof time !== 'number' || !Number.isFinite(time))
      throw new RangeError(`VirtualClock: ${method}(time) needs a finite number, got ${describeValue(time)}`);
    if (time < this.#now) throw new RangeError(`VirtualClock: ${method}(${time}) would move time backwards from ${this.#now}`);
  }

  // A binary min-heap on (due, seq): O(log n) set, clear and fire.
  #less(a: VirtualTimer, b: VirtualTimer): boolean {
    return a.due < b.due || (a.due === b.due && a.seq < b.seq);
  }

  #swap(i: number, j: number): void {
    const heap = this.#heap;
    const a = heap[i]!;
    const b = heap[j]!;
    heap[i] = b;
    heap[j] = a;
    b.index = i;
    a.index = j;
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(this.#heap[i]!, this.#heap[parent]!)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const heap = this.#heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < heap.length && this.#less(heap[l]!, heap[min]!)) min = l;
      if (r < heap.length && this.#less(heap[r]!, heap[min]!)) min = r;
      if (min === i) return;
      this.#swap(i, min);
      i = min;
    }
  }

  #removeAt(i: number): void {
    const heap = this.#heap;
    const removed = heap[i]!;
    const last = heap.pop()!;
    removed.index = -1;
    if (last !== removed) {
      heap[i] = last;
      last.index = i;
      this.#down(i);
      this.#up(last.index);
    }
  }
}
