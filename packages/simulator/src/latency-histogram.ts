// Latencies of a run, in bounded memory: a log-linear histogram (128 bins per power of two, so a
// quantile is read within 1/128 — 0.8 % — below its true value), with the exact lowest and highest.

const SUB = 128;
/** Bins: [0, 1) ms in steps of 1/128 ms, then 128 per power of two up to 2^40 ms (35 years). */
const BINS = SUB * 41;

// A latency's exponent and first 7 mantissa bits, read from its IEEE 754 bits: a multiplication-free
// floor(log2) (the engine records a latency per request that succeeds). HI is the word holding the
// sign, the exponent and the top 20 mantissa bits, whatever the platform's byte order.
const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
F64[0] = 1;
const HI = U32[1] === 0x3ff00000 ? 1 : 0;

function binOf(ms: number): number {
  if (ms < 1) return Math.floor(ms * SUB);
  F64[0] = ms;
  const hi = U32[HI]!;
  const bin = SUB + ((hi >>> 20) - 1023) * SUB + ((hi >>> 13) & 0x7f);
  return bin < BINS ? bin : BINS - 1;
}

/** The lowest latency bin `i` holds. */
function lowerEdge(i: number): number {
  if (i < SUB) return i / SUB;
  const e = Math.floor((i - SUB) / SUB);
  return 2 ** e * (1 + ((i - SUB) % SUB) / SUB);
}

/** The latencies of the requests of one phase (or a bucket of time) that succeeded. */
export class LatencyHistogram {
  count = 0;
  min = Infinity;
  max = -Infinity;
  #bins: Uint32Array | null = null;

  record(ms: number): void {
    this.#bins ??= new Uint32Array(BINS);
    this.#bins[binOf(ms)]!++;
    this.count++;
    if (ms < this.min) this.min = ms;
    if (ms > this.max) this.max = ms;
  }

  /** Adds `other`'s latencies to these. */
  add(other: LatencyHistogram): void {
    if (other.#bins === null) return;
    this.#bins ??= new Uint32Array(BINS);
    for (let i = 0; i < BINS; i++) this.#bins[i]! += other.#bins[i]!;
    this.count += other.count;
    this.min = Math.min(this.min, other.min);
    this.max = Math.max(this.max, other.max);
  }

  /**
   * The latency at quantile `q` (0.5, 0.99), by nearest rank: the lower edge of the bin that holds
   * the ⌈q·count⌉-th latency, within [min, max]. Null with no latency.
   */
  quantile(q: number): number | null {
    const bins = this.#bins;
    if (bins === null || this.count === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < BINS; i++) {
      seen += bins[i]!;
      if (seen >= rank) return Math.min(this.max, Math.max(this.min, lowerEdge(i)));
    }
    return this.max;
  }

  reset(): void {
    if (this.count === 0) return;
    this.#bins?.fill(0);
    this.count = 0;
    this.min = Infinity;
    this.max = -Infinity;
  }
}
