// Gradient2, after Netflix's Gradient2Limit: compares the latest rtt (short) with an exponential
// average of many (long). gradient = clamp(rttTolerance · long / short, 0.5, 1); the limit moves by
// `smoothing` toward `limit · gradient (+ queueSize)`.
//
// Three changes to Netflix's rule, answering its own issue tracker (see ALGORITHMS.md):
// - a drop is read as the steepest gradient, 0.5 (Netflix #176: Gradient2 ignores drops; PR #134);
// - `queueSize` is added only when the gradient is 1, i.e. when the rtt shows no overload (PR #134
//   discussion: with the headroom always added, a steady moderate overload lets the limit creep up);
// - the long-term rtt does not learn the latency the limit itself causes: while at least half the
//   limit is in flight and the limit is above its minimum, a sample slower than the average is fed
//   to it as the average (it may fall, not rise). Otherwise the baseline drifts up to the overloaded
//   latency, the gradient returns to 1 and the limit creeps up with it (the creep of PR #134 again,
//   through the baseline). What the limit cannot have caused is learned at once: at the minimum
//   limit, a sample still too slow becomes the baseline (a floor that rose, as after a deploy).

import { ConfigReader } from '@breakwater/core';
import type { LimitAlgorithm, LimitSample } from './algorithm.js';
import { ExpAvg } from './exp-avg.js';
import { clampEstimate, readLimits, readSample, type ResolvedLimits, toLimit } from './limits.js';

/**
 * Options of {@link gradient2}. Defaults are Netflix's `Gradient2Limit`.
 *
 * @example
 * ```ts
 * const options: Gradient2Options = { maxLimit: 100, rttTolerance: 2, queueSize: 8 };
 * ```
 */
export interface Gradient2Options {
  /** The limit before the first sample; integer in [minLimit, maxLimit]. Default 20. */
  readonly initialLimit?: number | undefined;
  /** The lowest the limit goes; integer >= 1. Default 20 (lowered to `initialLimit` or `maxLimit` when one of them is given below it). */
  readonly minLimit?: number | undefined;
  /** The highest the limit goes; integer >= minLimit. Default 200 (raised to `initialLimit` when it is given above it). */
  readonly maxLimit?: number | undefined;
  /** How far each sample moves the estimate toward its target; in (0, 1]. Default 0.2. */
  readonly smoothing?: number | undefined;
  /** Headroom added to the target while the rtt shows no overload; integer >= 0. Default 4. */
  readonly queueSize?: number | undefined;
  /** Samples the long-term rtt averages over (an EMA with factor 2 / (longWindow + 1), after 10 warm-up samples); integer >= 1. Default 600. */
  readonly longWindow?: number | undefined;
  /** How much slower than the long-term rtt a sample may be before the limit shrinks; >= 1 (1.5: 50 % slower). Default 1.5. */
  readonly rttTolerance?: number | undefined;
}

const GRADIENT2_KEYS = ['initialLimit', 'minLimit', 'maxLimit', 'smoothing', 'queueSize', 'longWindow', 'rttTolerance'] as const;

/** Netflix's warm-up of the long-term average: a plain mean of the first 10 samples. */
const WARMUP = 10;

/**
 * Gradient2: `gradient = clamp(rttTolerance · longRtt / rtt, 0.5, 1)` (a drop: 0.5), then
 * `estimate ← (1 − smoothing) · estimate + smoothing · (estimate · gradient + (gradient = 1 ? queueSize : 0))`;
 * the limit is the estimate rounded down, in `[minLimit, maxLimit]`. `longRtt` is an exponential
 * average over `longWindow` samples, cut by 5 % whenever it is over twice the latest rtt (an
 * overload has ended); it rises only on samples the limit did not cause (fewer than half the
 * limit in flight, or the limit at its minimum), and a sample still too slow at the minimum limit
 * replaces it (a floor that rose). While fewer than half the limit are in flight the limit holds
 * (a drop still lowers it).
 *
 * @throws RangeError / TypeError naming `gradient2`, the option, the value and the valid range.
 * @example
 * ```ts
 * const algorithm = gradient2({ initialLimit: 50 });
 * algorithm.onSample({ at: 0, rtt: 10, inFlight: 50, didDrop: false }); // 50: 0.8·50 + 0.2·(50 + 4) = 50.8
 * algorithm.onSample({ at: 1, rtt: 0, inFlight: 50, didDrop: true });   // 45: 0.8·50.8 + 0.2·25.4 = 45.72
 * ```
 */
export function gradient2(options?: Gradient2Options): LimitAlgorithm {
  const read = ConfigReader.unnamed<Gradient2Options>('gradient2', options, GRADIENT2_KEYS);
  const limits = readLimits(read, { initialLimit: 20, minLimit: 20, maxLimit: 200 });
  const smoothing = read.number('smoothing', 0.2, { gt: 0, lte: 1 });
  const queueSize = read.number('queueSize', 4, { integer: true, gte: 0 });
  const longWindow = read.number('longWindow', 600, { integer: true, gte: 1 });
  const rttTolerance = read.number('rttTolerance', 1.5, { gte: 1 });
  if (rttTolerance === Infinity) read.fail('rttTolerance', 'a finite number >= 1', rttTolerance);

  return new Gradient2Limit(limits, smoothing, queueSize, rttTolerance, new ExpAvg(longWindow, WARMUP));
}

/** The algorithm {@link gradient2} builds: a class, so that its `limit` is one getter on one prototype however many limiters a process has (as vegas's). */
class Gradient2Limit implements LimitAlgorithm {
  readonly name = 'gradient2';
  readonly #limits: ResolvedLimits;
  readonly #smoothing: number;
  readonly #queueSize: number;
  readonly #rttTolerance: number;
  readonly #longRtt: ExpAvg;
  #estimate: number;
  #limit: number;

  constructor(limits: ResolvedLimits, smoothing: number, queueSize: number, rttTolerance: number, longRtt: ExpAvg) {
    this.#limits = limits;
    this.#smoothing = smoothing;
    this.#queueSize = queueSize;
    this.#rttTolerance = rttTolerance;
    this.#longRtt = longRtt;
    this.#estimate = limits.initialLimit;
    this.#limit = limits.initialLimit;
  }

  get limit(): number {
    return this.#limit;
  }

  onSample(sample: LimitSample): number {
    const { rtt, inFlight, didDrop } = readSample(sample);
    if (didDrop) return this.#moveToward(0.5); // a drop's rtt is not the backend's latency: the average never sees it
    if (rtt === undefined) return this.#limit;

    const estimate = this.#estimate;
    const minLimit = this.#limits.minLimit;
    const longRtt = this.#longRtt;
    const appLimited = inFlight < estimate / 2;
    // The latency is the backend's own when we are not pushing it, or cannot push it any less.
    const own = appLimited || estimate <= minLimit || !longRtt.started;
    const long = longRtt.add(own ? rtt : Math.min(rtt, longRtt.value));
    if (long / rtt > 2) longRtt.scale(0.95);
    if (appLimited) return this.#limit; // the rtt says nothing of the limit
    const gradient = Math.max(0.5, Math.min(1, (this.#rttTolerance * long) / rtt));
    if (gradient < 1 && estimate <= minLimit) {
      // Too slow at the lowest limit: the latency is not the limit's doing (a deploy raised the
      // floor). Start the baseline again from it rather than wait minutes for the average.
      longRtt.set(rtt);
      return this.#limit;
    }
    return this.#moveToward(gradient);
  }

  #moveToward(gradient: number): number {
    const estimate = this.#estimate;
    const target = estimate * gradient + (gradient >= 1 ? this.#queueSize : 0);
    this.#estimate = clampEstimate(estimate * (1 - this.#smoothing) + target * this.#smoothing, this.#limits, estimate);
    this.#limit = toLimit(this.#estimate, this.#limits, this.#limit);
    return this.#limit;
  }
}
