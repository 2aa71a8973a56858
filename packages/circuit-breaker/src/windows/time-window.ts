import { ERROR_BIT, SLOW_BIT, type Outcome } from '../outcome.js';
import type { SlidingWindow, WindowTotals } from './window.js';

// A bucket is four counters laid out side by side in one typed array.
const CALLS = 0;
const FAILED = 1;
const SLOW = 2;
const SLOW_FAILED = 3;
const FIELDS = 4;

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

  /** The offset of second `s`'s bucket (seconds before the clock's origin included). */
  #offset(s: number): number {
    const i = s % this.size;
    return (i < 0 ? i + this.size : i) * FIELDS;
  }
}
