import { ERROR_BIT, SLOW_BIT, type Outcome } from '../outcome.js';
import type { SlidingWindow, WindowTotals } from './window.js';

/**
 * COUNT_BASED: the last `size` recorded calls, in a ring of `size` outcome bytes. The totals
 * are adjusted as a slot is overwritten (subtract the evicted outcome, add the new one), so each
 * record is O(1) and nothing is allocated after construction.
 *
 * @example
 * ```ts
 * const w = new CountWindow(3);
 * w.record(Outcome.ERROR, 0); w.record(Outcome.SUCCESS, 0); w.record(Outcome.SUCCESS, 0); w.record(Outcome.SUCCESS, 0);
 * w.failed; // 0 — the error fell out of the last 3
 * ```
 */
export class CountWindow implements SlidingWindow {
  readonly #ring: Uint8Array;
  /** The index in the ring the next record writes to (the oldest call, once the ring is full). */
  #next = 0;
  calls = 0;
  failed = 0;
  slow = 0;
  slowFailed = 0;
  /** Always 0: a call leaves a count window only as a newer one takes its place (see {@link SlidingWindow.epoch}). */
  readonly epoch = 0;

  constructor(readonly size: number) {
    this.#ring = new Uint8Array(size);
  }

  record(outcome: Outcome): void {
    const ring = this.#ring;
    const i = this.#next;
    if (this.calls === this.size) {
      const evicted = ring[i]!;
      if (evicted !== 0) this.#count(evicted, -1);
    } else this.calls++;
    ring[i] = outcome;
    if (outcome !== 0) this.#count(outcome, 1);
    this.#next = i + 1 === this.size ? 0 : i + 1;
  }

  at(): WindowTotals {
    return this;
  }

  /**
   * The calls the window holds, oldest first (what a snapshot keeps; recording them in this order
   * into a fresh window of the same size rebuilds this one).
   *
   * @example
   * ```ts
   * const copy = new CountWindow(w.size);
   * for (const o of w.outcomes()) copy.record(o);
   * ```
   */
  outcomes(): Outcome[] {
    const ring = this.#ring;
    const start = this.calls === this.size ? this.#next : 0;
    const out: Outcome[] = new Array<Outcome>(this.calls);
    for (let k = 0; k < this.calls; k++) {
      const i = start + k;
      out[k] = ring[i < this.size ? i : i - this.size] as Outcome;
    }
    return out;
  }

  /** Adds `delta` to the totals `outcome` counts in (1 as a call comes in, −1 as it is overwritten). */
  #count(outcome: number, delta: 1 | -1): void {
    if (outcome & ERROR_BIT) this.failed += delta;
    if (outcome & SLOW_BIT) {
      this.slow += delta;
      if (outcome & ERROR_BIT) this.slowFailed += delta;
    }
  }
}
