import { ERROR_BIT, SLOW_BIT, type Outcome } from '../outcome.js';
import type { SlidingWindow, WindowTotals } from './window.js';

// A bucket is four counters laid out side by side in one typed array.
const CALLS = 0;
const FAILED = 1;
const SLOW = 2;
const SLOW_FAILED = 3;
const FIELDS = 4;

/**
 * The counts of one second of a {@link TimeWindow}.
 *
 * @example
 * ```ts
 * const bucket: TimeBucket = { second: 1_764_619, calls: 3, failed: 1, slow: 0, slowFailed: 0 };
 * ```
 */
export interface TimeBucket extends WindowTotals {
  /** `floor(clock time / 1000)` of the second the bucket stands for. */
  readonly second: number;
}

/**
 * TIME_BASED: `size` one-second buckets keyed by `floor(now / 1000)`. The window is the current
 * second and the `size − 1` before it, so a call counts for between `size − 1` and `size`
 * seconds. Every record and every read first moves the window to `now`, clearing
 * `min(elapsed seconds, size)` buckets; memory is O(size) whatever the traffic.
 *
 * @example
 * ```ts
 * const w = new TimeWindow(2, 0);
 * w.record(Outcome.ERROR, 100);
 * w.at(1_500).failed; // 1 (seconds 0 and 1 are in the window)
 * w.at(2_000).failed; // 0 (second 0 fell out)
 * ```
 */
export class TimeWindow implements SlidingWindow {
  readonly #buckets: Uint32Array;
  /** The second the newest bucket stands for. */
  #second: number;
  /** Where that bucket's counters start in {@link #buckets}. */
  #head: number;
  calls = 0;
  failed = 0;
  slow = 0;
  slowFailed = 0;

  constructor(
    readonly size: number,
    now: number,
  ) {
    this.#buckets = new Uint32Array(size * FIELDS);
    this.#second = Math.floor(now / 1000);
    this.#head = this.#offset(this.#second);
  }

  record(outcome: Outcome, now: number): void {
    this.at(now);
    const b = this.#head;
    const buckets = this.#buckets;
    buckets[b + CALLS]!++;
    this.calls++;
    if (outcome & ERROR_BIT) {
      buckets[b + FAILED]!++;
      this.failed++;
    }
    if (outcome & SLOW_BIT) {
      buckets[b + SLOW]!++;
      this.slow++;
      if (outcome & ERROR_BIT) {
        buckets[b + SLOW_FAILED]!++;
        this.slowFailed++;
      }
    }
  }

  /** The second the window has moved to: at a new one, whole buckets may fall out (see {@link SlidingWindow.epoch}). */
  get epoch(): number {
    return this.#second;
  }

  at(now: number): WindowTotals {
    const second = Math.floor(now / 1000);
    if (second <= this.#second) return this;
    const steps = Math.min(second - this.#second, this.size);
    const buckets = this.#buckets;
    for (let s = second - steps + 1; s <= second; s++) {
      const b = this.#offset(s);
      this.calls -= buckets[b + CALLS]!;
      this.failed -= buckets[b + FAILED]!;
      this.slow -= buckets[b + SLOW]!;
      this.slowFailed -= buckets[b + SLOW_FAILED]!;
      buckets.fill(0, b, b + FIELDS);
    }
    this.#second = second;
    this.#head = this.#offset(second);
    return this;
  }

  /**
   * The buckets holding calls once the window is moved to `now`, oldest first, each with the
   * second it stands for (`floor(clock time / 1000)`): what a snapshot keeps.
   *
   * @example
   * ```ts
   * for (const b of w.buckets(clock.now())) console.log(b.second, b.calls, b.failed);
   * ```
   */
  buckets(now: number): TimeBucket[] {
    this.at(now);
    const out: TimeBucket[] = [];
    const buckets = this.#buckets;
    for (let s = this.#second - this.size + 1; s <= this.#second; s++) {
      const b = this.#offset(s);
      if (buckets[b + CALLS] === 0) continue;
      out.push({ second: s, calls: buckets[b + CALLS]!, failed: buckets[b + FAILED]!, slow: buckets[b + SLOW]!, slowFailed: buckets[b + SLOW_FAILED]! });
    }
    return out;
  }

  /**
   * Adds the counts of a bucket of `bucket.second` (how a snapshot is restored). A second the
   * window does not hold (older than its `size` seconds, or after the one it has moved to) is
   * ignored; the counts must be consistent (`slowFailed <= failed, slow <= calls`).
   *
   * @example
   * ```ts
   * const copy = new TimeWindow(w.size, clock.now());
   * for (const b of w.buckets(clock.now())) copy.addBucket(b);
   * ```
   */
  addBucket(bucket: TimeBucket): void {
    const s = bucket.second;
    if (!(s <= this.#second && s > this.#second - this.size)) return;
    const b = this.#offset(s);
    const buckets = this.#buckets;
    buckets[b + CALLS]! += bucket.calls;
    buckets[b + FAILED]! += bucket.failed;
    buckets[b + SLOW]! += bucket.slow;
    buckets[b + SLOW_FAILED]! += bucket.slowFailed;
    this.calls += bucket.calls;
    this.failed += bucket.failed;
    this.slow += bucket.slow;
    this.slowFailed += bucket.slowFailed;
  }

  /** The offset of second `s`'s bucket (seconds before the clock's origin included). */
  #offset(s: number): number {
    const i = s % this.size;
    return (i < 0 ? i + this.size : i) * FIELDS;
  }
}
