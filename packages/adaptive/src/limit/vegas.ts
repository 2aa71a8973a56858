// Vegas, after Netflix's VegasLimit (itself after TCP Vegas): the queue at the backend is estimated
// from how much slower the calls are than with no load, `queue = ⌈limit · (1 − rttNoLoad / rtt)⌉`,
// and the limit moves to keep that queue between α = 3·lg and β = 6·lg (lg = log10 of the limit,
// at least 1). `rttNoLoad` is the lowest rtt seen, re-probed from time to time.
//
// Where ours differs from Netflix's (see ALGORITHMS.md): a drop's rtt never becomes the no-load
// rtt (a fast 429 is not a fast backend), a drop always lowers the limit, a sample without a
// usable rtt is read by its drop flag alone instead of throwing, and a queue that does not drain
// when the limit is halved is taken for a floor that rose: the no-load rtt is re-probed at once
// (Netflix #37).

import { ConfigReader } from '@breakwater/core';
import { callbackThrew } from '@breakwater/core/internal';
import type { LimitAlgorithm, LimitSample } from './algorithm.js';
import { clampEstimate, readLimits, readSample, type ResolvedLimits, toLimit } from './limits.js';
import { log10Int } from './log10.js';

/**
 * Options of {@link vegas}. Defaults are Netflix's `VegasLimit`.
 *
 * @example
 * ```ts
 * const options: VegasOptions = { initialLimit: 20, maxLimit: 500, smoothing: 0.5 };
 * ```
 */
export interface VegasOptions {
  /** The limit before the first sample; integer in [minLimit, maxLimit]. Default 20. */
  readonly initialLimit?: number | undefined;
  /** The lowest the limit goes; integer >= 1. Default 1 (lowered to `maxLimit` when it is given below it). */
  readonly minLimit?: number | undefined;
  /** The highest the limit goes; integer >= minLimit. Default 1000 (raised to `initialLimit` when it is given above it). */
  readonly maxLimit?: number | undefined;
  /** How far each step moves the estimate toward its target; in (0, 1] (1: all the way). Default 1. */
  readonly smoothing?: number | undefined;
  /** The no-load rtt is re-probed every `U(0.5, 1) · probeMultiplier · limit` samples; integer >= 1. Default 30. */
  readonly probeMultiplier?: number | undefined;
  /** Source of the probe's jitter, a number in [0, 1). Default `Math.random`. */
  readonly random?: (() => number) | undefined;
}

/** A run of cuts that halved the limit without the rtt falling below this share of where it began means a stale floor. */
const STALE_RTT_RATIO = 0.9;

const VEGAS_KEYS = ['initialLimit', 'minLimit', 'maxLimit', 'smoothing', 'probeMultiplier', 'random'] as const;

/**
 * Vegas: estimates the queue at the backend as `⌈limit · (1 − rttNoLoad / rtt)⌉` and moves the
 * limit to keep it small. With lg = `max(1, ⌊log10 limit⌋)`, α = 3·lg, β = 6·lg:
 * a drop → `limit − lg`; fewer than half the limit in flight → unchanged; queue ≤ lg →
 * `limit + β`; queue < α → `limit + lg`; queue > β → `limit − lg`; else unchanged — each step
 * taken by `smoothing`, the result an integer in `[minLimit, maxLimit]`. `rttNoLoad` is the lowest
 * rtt seen, forgotten and re-learned from the current sample every `U(0.5, 1) · probeMultiplier ·
 * limit` samples (the probe), and at once when a run of cuts has halved the limit without the rtt
 * falling by a tenth (the queue it measured was a floor that rose, not a queue).
 *
 * @throws RangeError / TypeError naming `vegas`, the option, the value and the valid range.
 * @example
 * ```ts
 * const algorithm = vegas({ initialLimit: 10, maxLimit: 20 });
 * algorithm.onSample({ at: 0, rtt: 10, inFlight: 10, didDrop: false }); // 10: the first rtt is the no-load rtt
 * algorithm.onSample({ at: 1, rtt: 10, inFlight: 11, didDrop: false }); // 16: no queue, + β (6)
 * algorithm.onSample({ at: 2, rtt: 50, inFlight: 16, didDrop: false }); // 15: queue ⌈16·0.8⌉ = 13 > β, − lg (1)
 * ```
 */
export function vegas(options?: VegasOptions): LimitAlgorithm {
  const read = ConfigReader.unnamed<VegasOptions>('vegas', options, VEGAS_KEYS);
  const limits = readLimits(read, { initialLimit: 20, minLimit: 1, maxLimit: 1000 });
  const smoothing = read.number('smoothing', 1, { gt: 0, lte: 1 });
  const probeMultiplier = read.number('probeMultiplier', 30, { integer: true, gte: 1 });
  const random = read.fn<() => number>('random') ?? Math.random;

  return new VegasLimit(limits, smoothing, probeMultiplier, random);
}

/**
 * The algorithm {@link vegas} builds. A class, not closures per limiter, so that its `limit` —
 * read on every call of a windowed limiter — is one getter on one prototype however many limiters
 * a process has (a getter per object literal made the read polymorphic: ~20 ns a call with two).
 */
class VegasLimit implements LimitAlgorithm {
  readonly name = 'vegas';
  readonly #limits: ResolvedLimits;
  readonly #smoothing: number;
  readonly #probeMultiplier: number;
  readonly #random: () => number;
  #estimate: number;
  #limit: number;
  /** The lowest rtt seen since the last probe (0: none yet). */
  #rttNoLoad = 0;
  #probeCount = 0;
  #probeJitter: number;
  /** Where the latest run of queue-driven cuts began (cleared when the limit grows or a probe runs). */
  #cutFrom: { readonly estimate: number; readonly rtt: number } | undefined;

  constructor(limits: ResolvedLimits, smoothing: number, probeMultiplier: number, random: () => number) {
    this.#limits = limits;
    this.#smoothing = smoothing;
    this.#probeMultiplier = probeMultiplier;
    this.#random = random;
    this.#estimate = limits.initialLimit;
    this.#limit = limits.initialLimit;
    this.#probeJitter = this.#jitter();
  }

  get limit(): number {
    return this.#limit;
  }

  onSample(sample: LimitSample): number {
    const { rtt, inFlight, didDrop } = readSample(sample);
    const estimate = this.#estimate;
    const lg = log10Int(estimate);
    if (didDrop) return this.#step(estimate - lg);
    if (rtt === undefined) return this.#limit;

    this.#probeCount++;
    if (this.#probeJitter * this.#probeMultiplier * estimate <= this.#probeCount) return this.#probe(rtt);
    if (this.#rttNoLoad === 0 || rtt < this.#rttNoLoad) {
      this.#rttNoLoad = rtt;
      return this.#limit;
    }

    if (inFlight * 2 < estimate) return this.#limit; // app-limited: no evidence for growth
    const queue = Math.ceil(estimate * (1 - this.#rttNoLoad / rtt));
    const alpha = 3 * lg;
    const beta = 6 * lg;
    if (queue <= lg) return this.#grow(estimate + beta);
    if (queue < alpha) return this.#grow(estimate + lg);
    if (queue > beta) {
      // Halving the limit drains a real queue: the rtt falls. If it has not fallen by a tenth,
      // there was no queue — the no-load rtt is stale (a deploy raised the floor): probe now.
      const cutFrom = this.#cutFrom;
      if (cutFrom === undefined) this.#cutFrom = { estimate, rtt };
      else if (estimate <= cutFrom.estimate / 2 && rtt >= STALE_RTT_RATIO * cutFrom.rtt) return this.#probe(rtt);
      return this.#step(estimate - lg);
    }
    return this.#limit;
  }

  #jitter(): number {
    const random = this.#random;
    let r: unknown;
    try {
      r = random();
    } catch (error) {
      callbackThrew('vegas', 'random', random, error, 'the probe waits its longest (as if it returned 1)');
      r = 1;
    }
    // A hostile value is brought into [0, 1]; NaN waits the longest.
    const u = typeof r === 'number' && !Number.isNaN(r) ? Math.min(1, Math.max(0, r)) : 1;
    return 0.5 + 0.5 * u;
  }

  #probe(rtt: number): number {
    this.#probeJitter = this.#jitter();
    this.#probeCount = 0;
    this.#rttNoLoad = rtt;
    this.#cutFrom = undefined;
    return this.#limit;
  }

  #grow(target: number): number {
    this.#cutFrom = undefined;
    return this.#step(target);
  }

  #step(target: number): number {
    const limits = this.#limits;
    const smoothing = this.#smoothing;
    const bounded = clampEstimate(target, limits, this.#estimate);
    this.#estimate = clampEstimate((1 - smoothing) * this.#estimate + smoothing * bounded, limits, this.#estimate);
    this.#limit = toLimit(this.#estimate, limits, this.#limit);
    return this.#limit;
  }
}
