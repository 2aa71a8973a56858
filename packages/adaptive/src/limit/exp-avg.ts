// Netflix's ExpAvgMeasurement: the plain average of the first `warmup` values, then an exponential
// moving average with factor 2 / (window + 1). Gradient2's long-term ("no-load") rtt.

/** An exponential moving average with a warm-up; fed only finite numbers. */
export class ExpAvg {
  #value = 0;
  #count = 0;
  readonly #factor: number;
  readonly #warmup: number;

  constructor(window: number, warmup: number) {
    this.#factor = 2 / (window + 1);
    this.#warmup = warmup;
  }

  /** Whether a value was added. */
  get started(): boolean {
    return this.#count > 0;
  }

  /** The average so far (0 before the first value). */
  get value(): number {
    return this.#value;
  }

  /** Adds a value; returns the new average. */
  add(sample: number): number {
    if (this.#count < this.#warmup) {
      // The running mean, written so that huge values cannot overflow a sum to Infinity.
      this.#count++;
      this.#value += (sample - this.#value) / this.#count;
    } else {
      this.#value += (sample - this.#value) * this.#factor;
    }
    return this.#value;
  }

  /** Replaces the average (the warm-up counts as done). */
  set(value: number): void {
    this.#value = value;
    this.#count = this.#warmup;
  }

  /** Multiplies the average by `factor` (Gradient2's decay after an overload ends). */
  scale(factor: number): void {
    this.#value *= factor;
  }
}
