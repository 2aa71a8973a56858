/**
 * Two counters (calls and retries) over a sliding window cut into `slices` time slices of
 * `sliceMs` each: the window is the current slice and the `slices − 1` before it, keyed by
 * `floor(now / sliceMs)`. Memory is fixed at construction; adding allocates nothing and costs
 * O(1) (moving the window clears at most `slices` slots, once per slice that passed).
 *
 * A pure structure: it knows nothing of clocks, the caller passes `now`.
 *
 * @example
 * ```ts
 * const counts = new SlidingCounts(10, 1000);
 * counts.addCall(0); counts.addRetry(500);
 * counts.calls(9_999);  // 1
 * counts.calls(10_000); // 0 — slice 0 has left the window
 * ```
 */
export class SlidingCounts {
  readonly #calls: Float64Array;
  readonly #retries: Float64Array;
  readonly #sliceMs: number;
  /** The slice index `floor(now / sliceMs)` the window ends at. */
  #current = -Infinity;
  #callSum = 0;
  #retrySum = 0;

  constructor(
    readonly slices: number,
    sliceMs: number,
  ) {
    this.#calls = new Float64Array(slices);
    this.#retries = new Float64Array(slices);
    this.#sliceMs = sliceMs;
  }

  addCall(now: number): void {
    const slot = this.#move(now);
    this.#calls[slot]!++;
    this.#callSum++;
  }

  addRetry(now: number): void {
    const slot = this.#move(now);
    this.#retries[slot]!++;
    this.#retrySum++;
  }

  /** Calls in the window ending at `now`. */
  calls(now: number): number {
    this.#move(now);
    return this.#callSum;
  }

  /** Retries in the window ending at `now`. */
  retries(now: number): number {
    this.#move(now);
    return this.#retrySum;
  }

  /** Moves the window to `now` (never backwards), clearing the slices that left it; returns the slot of `now`. */
  #move(now: number): number {
    const n = this.slices;
    const slice = Math.floor(now / this.#sliceMs);
    if (slice > this.#current) {
      const passed = this.#current === -Infinity ? n : Math.min(slice - this.#current, n);
      for (let i = 1; i <= passed; i++) {
        const slot = (((slice - passed + i) % n) + n) % n;
        this.#callSum -= this.#calls[slot]!;
        this.#retrySum -= this.#retries[slot]!;
        this.#calls[slot] = 0;
        this.#retries[slot] = 0;
      }
      this.#current = slice;
    }
    return ((this.#current % n) + n) % n;
  }
}
