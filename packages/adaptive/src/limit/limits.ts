// What every algorithm shares: its three limits read and cross-checked once, the one rule that
// turns an estimate into the limit in force, and how a hostile sample is read. Kept here so the
// three algorithms cannot disagree on what "an integer in [minLimit, maxLimit], never NaN" means.

import type { ConfigReader } from '@breakwater/core';
import type { LimitSample } from './algorithm.js';

/** The options every named algorithm takes (each restates them with its defaults): where the limit starts and the bounds it stays within. */
export interface LimitBounds {
  /** The limit before the first sample; integer in [minLimit, maxLimit]. */
  readonly initialLimit?: number | undefined;
  /** The lowest the limit goes; integer >= 1 (a limit of 0 would admit no call, so no sample could ever raise it). */
  readonly minLimit?: number | undefined;
  /** The highest the limit goes; integer >= minLimit. */
  readonly maxLimit?: number | undefined;
}

/** The three limits once checked. */
export interface ResolvedLimits {
  readonly initialLimit: number;
  readonly minLimit: number;
  readonly maxLimit: number;
}

const COUNT = { integer: true, gte: 1 } as const;

/**
 * Reads `initialLimit`, `minLimit` and `maxLimit`. An option not given takes the algorithm's
 * default moved to fit the ones given (`{ initialLimit: 10 }` lowers AIMD's minLimit of 20 to 10,
 * as Netflix lets an initial limit below the minimum stand); options given that contradict each
 * other are a `RangeError` naming the range.
 */
export function readLimits<C extends LimitBounds>(read: ConfigReader<C>, defaults: ResolvedLimits): ResolvedLimits {
  const initial = read.has('initialLimit') ? read.number('initialLimit', defaults.initialLimit, COUNT) : undefined;
  const min = read.has('minLimit') ? read.number('minLimit', defaults.minLimit, COUNT) : undefined;
  const max = read.has('maxLimit') ? read.number('maxLimit', defaults.maxLimit, COUNT) : undefined;
  const minLimit = min ?? Math.min(defaults.minLimit, initial ?? Infinity, max ?? Infinity);
  const maxLimit = max ?? Math.max(defaults.maxLimit, initial ?? 0, minLimit);
  if (maxLimit < minLimit) read.fail('maxLimit', `an integer >= minLimit (${minLimit})`, max);
  const initialLimit = initial ?? Math.min(maxLimit, Math.max(minLimit, defaults.initialLimit));
  if (initialLimit < minLimit || initialLimit > maxLimit) {
    read.fail('initialLimit', `an integer in [minLimit, maxLimit] = [${minLimit}, ${maxLimit}]`, initial);
  }
  return { initialLimit, minLimit, maxLimit };
}

/** The limit in force for an estimate: rounded down, within the bounds; a NaN estimate keeps `fallback`. */
export function toLimit(estimate: number, limits: ResolvedLimits, fallback: number): number {
  if (Number.isNaN(estimate)) return fallback;
  return Math.min(limits.maxLimit, Math.max(limits.minLimit, Math.floor(estimate)));
}

/** An estimate kept within the bounds (unrounded: the algorithms keep fractions between samples). */
export function clampEstimate(estimate: number, limits: ResolvedLimits, fallback: number): number {
  if (Number.isNaN(estimate)) return fallback;
  return Math.min(limits.maxLimit, Math.max(limits.minLimit, estimate));
}

/** A sample as the algorithms read it: a latency only when it is one, a count only when it is one. */
export interface ReadSample {
  /** The round-trip time when it is a finite number > 0, else `undefined` (the sample carries no latency). */
  readonly rtt: number | undefined;
  /** Calls in flight when it is a finite number >= 0, else 0 (no evidence the limit was used). */
  readonly inFlight: number;
  /** Only `true` is a drop. */
  readonly didDrop: boolean;
}

/** Reads a sample defensively: NaN, `Infinity`, negative or non-number fields never reach an estimate. */
export function readSample(sample: LimitSample): ReadSample {
  const { rtt, inFlight, didDrop } = sample;
  return {
    rtt: typeof rtt === 'number' && Number.isFinite(rtt) && rtt > 0 ? rtt : undefined,
    inFlight: typeof inFlight === 'number' && Number.isFinite(inFlight) && inFlight >= 0 ? inFlight : 0,
    didDrop: didDrop === true,
  };
}
