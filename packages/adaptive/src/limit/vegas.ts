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
import { clampEstimate, readLimits, readSample, toLimit } from './limits.js';
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

  let estimate = limits.initialLimit;
  let limit = limits.initialLimit;
  let rttNoLoad = 0; // 0: none yet
  let probeCount = 0;
  let probeJitter = jitter();
  // Where the latest run of queue-driven cuts began (cleared when the limit grows or a probe runs).
  let cutFrom: { readonly estimate: number; readonly rtt: number } | undefined;

  function jitter(): number {
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

  function probe(rtt: number): number {
    probeJitter = jitter();
    probeCount = 0;
    rttNoLoad = rtt;
    cutFrom = undefined;
    return limit;
  }

  function grow(target: number): number {
    cutFrom = undefined;
    return step(target);
  }

  function step(target: number): number {
    const bounded = clampEstimate(target, limits, estimate);
    estimate = clampEstimate((1 - smoothing) * estimate + smoothing * bounded, limits, estimate);
    limit = toLimit(estimate, limits, limit);
    return limit;
  }

  return {
    name: 'vegas',
    get limit() {
      return limit;
    },
    onSample(sample: LimitSample): number {
      const { rtt, inFlight, didDrop } = readSample(sample);
      const lg = log10Int(estimate);
      if (didDrop) return step(estimate - lg);
      if (rtt === undefined) return limit;

      probeCount++;
      if (probeJitter * probeMultiplier * estimate <= probeCount) return probe(rtt);
      if (rttNoLoad === 0 || rtt < rttNoLoad) {
        rttNoLoad = rtt;
        return limit;
      }

      if (inFlight * 2 < estimate) return limit; // app-limited: no evidence for growth
      const queue = Math.ceil(estimate * (1 - rttNoLoad / rtt));
      const alpha = 3 * lg;
      const beta = 6 * lg;
      if (queue <= lg) return grow(estimate + beta);
      if (queue < alpha) return grow(estimate + lg);
      if (queue > beta) {
        // Halving the limit drains a real queue: the rtt falls. If it has not fallen by a tenth,
        // there was no queue — the no-load rtt is stale (a deploy raised the floor): probe now.
        if (cutFrom === undefined) cutFrom = { estimate, rtt };
        else if (estimate <= cutFrom.estimate / 2 && rtt >= STALE_RTT_RATIO * cutFrom.rtt) return probe(rtt);
        return step(estimate - lg);
      }
      return limit;
    },
  };
}
