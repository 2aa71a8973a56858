/** How many buckets a throttle's window is cut into (failsafe-go's throttler uses 20 too). */
export const THROTTLE_BUCKETS = 20;

/**
 * The counts of an adaptive throttle over a sliding window, in {@link THROTTLE_BUCKETS} buckets of
 * `window / 20` ms each, counted from the window's creation: a bucket leaves the window whole, so
 * the counts cover the current bucket and the 19 before it — between `window − window/20` and
 * `window` of the past. Pure: time is given to each method (the throttle passes its clock's
 * `now()`), never read. Each method moves the window up to `now` first; time never goes back
 * (an earlier `now` counts in the newest bucket).
 *
 * `requests` counts the requests whose outcome is known — those the backend answered (counted
 * when the answer comes, in the bucket of the request's own start) and those the throttle
 * rejected locally (at once) — `accepts` those the backend accepted, `rejected` those the
 * throttle rejected. A request still in flight is not counted (Google SRE's history of answered
 * requests: a cold burst is not refused for want of answers that cannot have come yet).
 */
export class ThrottleWindow {
  readonly #origin: number;
  readonly #bucketMs: number;
  readonly #requests = new Array<number>(THROTTLE_BUCKETS).fill(0);
  readonly #accepts = new Array<number>(THROTTLE_BUCKETS).fill(0);
  readonly #rejected = new Array<number>(THROTTLE_BUCKETS).fill(0);
  /** The index (since the origin) of the newest bucket. */
  #head = 0;
  #totalRequests = 0;
  #totalAccepts = 0;
  #totalRejected = 0;

  constructor(windowMs: number, origin: number) {
    this.#origin = origin;
    this.#bucketMs = windowMs / THROTTLE_BUCKETS;
  }

  /** Moves the window to `now`; returns the index of the current bucket. */
  advance(now: number): number {
    const index = Math.floor((now - this.#origin) / this.#bucketMs);
    const head = this.#head;
    if (index <= head) return head;
    const last = Math.min(index, head + THROTTLE_BUCKETS);
    for (let i = head + 1; i <= last; i++) {
      const slot = i % THROTTLE_BUCKETS;
      this.#totalRequests -= this.#requests[slot]!;
      this.#totalAccepts -= this.#accepts[slot]!;
      this.#totalRejected -= this.#rejected[slot]!;
      this.#requests[slot] = 0;
      this.#accepts[slot] = 0;
      this.#rejected[slot] = 0;
    }
    this.#head = index;
    return index;
  }

  /** Requests in the window (as of the last move). */
  get requests(): number {
    return this.#totalRequests;
  }

  /** Accepts in the window. */
  get accepts(): number {
    return this.#totalAccepts;
  }

  /** Local rejections in the window. */
  get rejected(): number {
    return this.#totalRejected;
  }

  /** `min(cap, max(0, (requests − k·accepts) / (requests + 1)))` over the window as it is. */
  ratio(k: number, cap: number): number {
    const requests = this.#totalRequests;
    const excess = requests - k * this.#totalAccepts;
    return excess <= 0 ? 0 : Math.min(excess / (requests + 1), cap);
  }

  /** Counts, in the current bucket (move the window first), a request the throttle rejected locally: a request and a local rejection. */
  countRefused(): void {
    const slot = this.#head % THROTTLE_BUCKETS;
    this.#requests[slot]!++;
    this.#rejected[slot]!++;
    this.#totalRequests++;
    this.#totalRejected++;
  }

  /**
   * Counts a request the backend answered — and its accept, if `accepted` — in the bucket of the
   * request's own start, `index` (from {@link advance} when it was let through), if that bucket is
   * still in the window as last moved: a request and its accept leave the window together, and
   * where they are counted depends on the request alone — not on whether the window was moved at
   * the same instant before the answer (no clock reading: the throttle's calls end without one).
   * An answer whose request's bucket has left is not counted (a bucket still in the window as last
   * moved, but not at the answer's time, is emptied by the next move, as it would have been).
   */
  countAnswered(index: number, accepted: boolean): void {
    if (index <= this.#head - THROTTLE_BUCKETS) return;
    const slot = index % THROTTLE_BUCKETS;
    this.#requests[slot]!++;
    this.#totalRequests++;
    if (!accepted) return;
    this.#accepts[slot]!++;
    this.#totalAccepts++;
  }
}
