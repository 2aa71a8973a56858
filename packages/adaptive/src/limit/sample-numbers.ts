import type { LimitAlgorithm } from './algorithm.js';

/**
 * A sample given as four numbers instead of a `LimitSample` object: what the algorithms built
 * here can take from the limiter without an object allocated per call. Returns the limit in force
 * after it, as `onSample` does; it must do exactly what `onSample({ at, rtt, inFlight, didDrop })`
 * would.
 */
export type SampleNumbers = (at: number, rtt: number, inFlight: number, didDrop: boolean) => number;

// Internal, never exported from the package: a user's LimitAlgorithm has no entry and is fed
// `LimitSample` objects through its `onSample`, as the contract says.
const byAlgorithm = new WeakMap<LimitAlgorithm, SampleNumbers>();

/** Registers `numbers` as the object-free way to feed `algorithm` (built here). */
export function takesNumbers(algorithm: LimitAlgorithm, numbers: SampleNumbers): LimitAlgorithm {
  byAlgorithm.set(algorithm, numbers);
  return algorithm;
}

/** The object-free way to feed `algorithm`, if it has one. */
export function sampleNumbersOf(algorithm: LimitAlgorithm): SampleNumbers | undefined {
  return byAlgorithm.get(algorithm);
}
