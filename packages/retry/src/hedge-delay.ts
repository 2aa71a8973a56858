import type { HedgeDelaySetting } from './hedge-config.js';

/** Buckets per doubling of a duration: a bucket's upper bound is at most 2^(1/8) ≈ 9 % above its lower. */
const STEPS_PER_DOUBLING = 8;
/** Bucket 0 holds [0, 1 ms]; the last one ends at 2^31 ms (Node's longest timer); longer durations are counted there. */
const BUCKETS = 31 * STEPS_PER_DOUBLING + 1;
/** Slices of the window: a duration counts for between 0.9 × window and window (as the retry budget's counts). */
const SLICES = 10;
/** Floating-point slack in the rank, so that 0.95 × 20 is rank 19, not 20. */
const EPSILON = 1e-9;

/** Each bucket's upper bound in ms: bucket i holds (2^((i-1)/8), 2^(i/8)]; bucket 0 holds [0, 1]. */
const UPPER = Float64Array.from({ length: BUCKETS }, (_, i) => 2 ** (i / STEPS_PER_DOUBLING));

/**
 * The bucket of a duration of `ms` (>= 0): the smallest i with `ms <= upper(i)`, the last bucket
 * for anything longer than 2^31 ms.
 *
 * @example
 * ```ts
 * hedgeDelayBucket(1);   // 0
 * hedgeDelayBucket(100); // 54 (upper bound 2^(54/8) ≈ 107.6 ms)
 * ```
 */
export function hedgeDelayBucket(ms: number): number {
  if (!(ms > 1)) return 0;
  let i = Math.ceil(Math.log2(ms) * STEPS_PER_DOUBLING);
  if (i >= BUCKETS) return BUCKETS - 1;
  // log2's rounding can miss a boundary by one either way.
  if (ms > UPPER[i]!) i++;
  else if (ms <= UPPER[i - 1]!) i--;
  return Math.min(i, BUCKETS - 1);
}

/**
 * The upper bound, in ms, of bucket `i`: what {@link HedgeDelay} answers for a percentile that
 * falls in it (never below the true percentile, at most ~9 % above).
 *
 * @example
 * ```ts
 * hedgeDelayBucketUpper(hedgeDelayBucket(100)); // ≈ 107.6
 * ```
 */
export function hedgeDelayBucketUpper(i: number): number {
  return UPPER[i]!;
}

/** The 1-based nearest rank of percentile `p` among `n` durations. */
function rankOf(p: number, n: number): number {
  return Math.max(1, Math.ceil(p * n - EPSILON));
}

/**
 * The delay a hedge waits now (contract: docs/hedging.md). A fixed setting answers its `ms`; a
 * percentile setting answers the `percentile` of the call durations recorded within `window`
 * (nearest rank, read as the upper bound of its log bucket: never below the true percentile, at
 * most 2^(1/8) ≈ 9 % above), or `initialMs` while fewer than `minSamples` are in the window.
 *
 * Memory is bounded (a log-bucketed histogram per tenth of the window) and each `record` costs
 * O(1) but for a slice's expiry (once per tenth of the window): the bucket of the percentile is
 * kept, with the count below it, and moved by the one duration each record adds. Exported so
 * that a driver of its own (the simulator) uses the same arithmetic as {@link Hedge}.
 *
 * @example
 * ```ts
 * const delay = new HedgeDelay({ kind: 'percentile', percentile: 0.9, windowMs: 60_000, minSamples: 2, initialMs: 500 });
 * delay.current(0);     // 500: no samples yet
 * delay.record(80, 0);
 * delay.record(120, 1);
 * delay.current(2);     // ≈ 123.4: the 90th percentile (120 ms) read as its bucket's upper bound
 * ```
 */
export class HedgeDelay {
  /** Whether the setting is a fixed delay ({@link #fixedMs}). */
  readonly #fixed: boolean;
  readonly #fixedMs: number;
  readonly #percentile: number;
  readonly #minSamples: number;
  readonly #initialMs: number;
  readonly #sliceMs: number;
  /** Counts per slice and bucket (slot s at [s × BUCKETS, (s + 1) × BUCKETS)); empty for a fixed setting. */
  readonly #slices: Uint32Array;
  /** Counts per bucket over the whole window (the sum of the slices). */
  readonly #total: Uint32Array;
  /** Durations in the window. */
  #n = 0;
  /** The absolute index (⌊now / sliceMs⌋) of the newest slice. */
  #head = Number.NEGATIVE_INFINITY;
  /** The bucket of the percentile, and how many durations lie in the buckets below it. */
  #cursor = 0;
  #below = 0;

  constructor(setting: HedgeDelaySetting) {
    if (setting.kind === 'fixed') {
      this.#fixed = true;
      this.#fixedMs = setting.ms;
      this.#percentile = 0;
      this.#minSamples = 0;
      this.#initialMs = 0;
      this.#sliceMs = 1;
      this.#slices = new Uint32Array(0);
      this.#total = new Uint32Array(0);
      return;
    }
    this.#fixed = false;
    this.#fixedMs = 0;
    this.#percentile = setting.percentile;
    this.#minSamples = setting.minSamples;
    this.#initialMs = setting.initialMs;
    this.#sliceMs = setting.windowMs / SLICES;
    this.#slices = new Uint32Array(SLICES * BUCKETS);
    this.#total = new Uint32Array(BUCKETS);
  }

  /**
   * The delay, in ms, a hedge started at `nowMs` waits before its next attempt (negative: only
   * after a failure).
   *
   * @example
   * ```ts
   * clock.setTimeout(startNextAttempt, delay.current(clock.now()));
   * ```
   */
  current(nowMs: number): number {
    if (this.#fixed) return this.#fixedMs;
    this.#advance(nowMs);
    return this.#n < this.#minSamples ? this.#initialMs : UPPER[this.#cursor]!;
  }

  /**
   * Records a successful call's duration (`durationMs`, from the call's start to its winning
   * outcome) at `nowMs`. Nothing for a fixed setting; a duration that is not a number >= 0 is
   * ignored.
   *
   * @example
   * ```ts
   * delay.record(clock.now() - startedAt, clock.now());
   * ```
   */
  record(durationMs: number, nowMs: number): void {
    if (this.#fixed || !(durationMs >= 0)) return;
    this.#advance(nowMs);
    const b = hedgeDelayBucket(durationMs);
    const slot = mod(this.#head, SLICES);
    this.#slices[slot * BUCKETS + b]!++;
    this.#total[b]!++;
    this.#n++;
    if (b < this.#cursor) this.#below++;
    this.#settleCursor();
  }

  /** Moves the window to `nowMs`: slices that left it are subtracted from the totals. */
  #advance(nowMs: number): void {
    const slice = Math.floor(nowMs / this.#sliceMs);
    if (!(slice > this.#head)) return;
    const total = this.#total;
    const slices = this.#slices;
    if (slice - this.#head >= SLICES) {
      if (this.#n !== 0) {
        slices.fill(0);
        total.fill(0);
        this.#n = 0;
      }
    } else {
      for (let s = this.#head + 1; s <= slice; s++) {
        const base = mod(s, SLICES) * BUCKETS;
        for (let b = 0; b < BUCKETS; b++) {
          const c = slices[base + b]!;
          if (c !== 0) {
            total[b]! -= c;
            this.#n -= c;
            slices[base + b] = 0;
          }
        }
      }
    }
    this.#head = slice;
    this.#cursor = 0;
    this.#below = 0;
    this.#settleCursor();
  }

  /** Moves the cursor to the bucket holding the percentile's rank (bucket 0 when empty). */
  #settleCursor(): void {
    const n = this.#n;
    if (n === 0) {
      this.#cursor = 0;
      this.#below = 0;
      return;
    }
    const total = this.#total;
    const rank = rankOf(this.#percentile, n);
    let cursor = this.#cursor;
    let below = this.#below;
    while (below >= rank) {
      cursor--;
      below -= total[cursor]!;
    }
    while (below + total[cursor]! < rank) {
      below += total[cursor]!;
      cursor++;
    }
    this.#cursor = cursor;
    this.#below = below;
  }
}

function mod(a: number, m: number): number {
  const r = a % m;
  return r < 0 ? r + m : r;
}
