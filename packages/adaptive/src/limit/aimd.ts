// AIMD (additive increase, multiplicative decrease), after Netflix's AIMDLimit: a drop, or a call
// slower than `timeout`, multiplies the limit by `backoffRatio`; a success while at least half the
// limit is in use adds 1. Nothing else moves it.

import { ConfigReader, type Duration } from '@breakwater/core';
import type { LimitAlgorithm, LimitSample } from './algorithm.js';
import { readLimits, readSample, type ResolvedLimits, toLimit } from './limits.js';

/**
 * Options of {@link aimd}. Defaults are Netflix's `AIMDLimit`.
 *
 * @example
 * ```ts
 * const options: AimdOptions = { initialLimit: 20, maxLimit: 100, backoffRatio: 0.8, timeout: '2s' };
 * ```
 */
export interface AimdOptions {
  /** The limit before the first sample; integer in [minLimit, maxLimit]. Default 20. */
  readonly initialLimit?: number | undefined;
  /** The lowest the limit goes; integer >= 1. Default 20 (lowered to `initialLimit` or `maxLimit` when one of them is given below it). */
  readonly minLimit?: number | undefined;
  /** The highest the limit goes; integer >= minLimit. Default 200 (raised to `initialLimit` when it is given above it). */
  readonly maxLimit?: number | undefined;
  /** What a drop multiplies the limit by; in [0.5, 1). Default 0.9. */
  readonly backoffRatio?: number | undefined;
  /** A call slower than this counts as a drop; > 0 (`Infinity`: never). Default `'5s'`. */
  readonly timeout?: Duration | undefined;
}

const AIMD_KEYS = ['initialLimit', 'minLimit', 'maxLimit', 'backoffRatio', 'timeout'] as const;

/**
 * AIMD: +1 on a success while `inFlight · 2 >= limit`, `× backoffRatio` (rounded down) on a drop
 * or on a round-trip time over `timeout`; always an integer in `[minLimit, maxLimit]`. Simple and
 * blind to latency: it finds the limit only by being told of drops (time-outs, 429s).
 *
 * @throws RangeError / TypeError naming `aimd`, the option, the value and the valid range.
 * @example
 * ```ts
 * const algorithm = aimd({ initialLimit: 20 });
 * algorithm.onSample({ at: 0, rtt: 1, inFlight: 10, didDrop: false }); // 21
 * algorithm.onSample({ at: 1, rtt: 0, inFlight: 0, didDrop: true });   // 20 (floor(21 × 0.9) = 18, raised to minLimit)
 * ```
 */
export function aimd(options?: AimdOptions): LimitAlgorithm {
  const read = ConfigReader.unnamed<AimdOptions>('aimd', options, AIMD_KEYS);
  const limits = readLimits(read, { initialLimit: 20, minLimit: 20, maxLimit: 200 });
  const backoffRatio = read.number('backoffRatio', 0.9, { gte: 0.5, lte: 1 });
  if (backoffRatio === 1) read.fail('backoffRatio', 'in [0.5, 1)', backoffRatio);
  const timeout = read.duration('timeout', 5000, { gt: 0 });
  return new AimdLimit(limits, backoffRatio, timeout);
}

/** The algorithm {@link aimd} builds: a class, so that its `limit` is one getter on one prototype however many limiters a process has (as vegas's). */
class AimdLimit implements LimitAlgorithm {
  readonly name = 'aimd';
  readonly #limits: ResolvedLimits;
  readonly #backoffRatio: number;
  readonly #timeout: number;
  #limit: number;

  constructor(limits: ResolvedLimits, backoffRatio: number, timeout: number) {
    this.#limits = limits;
    this.#backoffRatio = backoffRatio;
    this.#timeout = timeout;
    this.#limit = limits.initialLimit;
  }

  get limit(): number {
    return this.#limit;
  }

  onSample(sample: LimitSample): number {
    const { rtt, inFlight, didDrop } = readSample(sample);
    const limit = this.#limit;
    if (didDrop || (rtt !== undefined && rtt > this.#timeout)) this.#limit = toLimit(limit * this.#backoffRatio, this.#limits, limit);
    else if (inFlight * 2 >= limit) this.#limit = toLimit(limit + 1, this.#limits, limit);
    return this.#limit;
  }
}
