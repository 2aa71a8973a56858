// Netflix's WindowedLimit: calls are gathered into windows and the algorithm sees one sample per
// window — its average rtt, its largest in-flight count, whether any call dropped — so that one
// lucky or unlucky call does not move the limit.

import { ConfigReader, type Duration } from '@breakwater/core';
import { describeValue } from '@breakwater/core/internal';
import type { LimitAlgorithm, LimitSample } from './algorithm.js';

/**
 * Options of {@link windowed}. Defaults are Netflix's `WindowedLimit`.
 *
 * @example
 * ```ts
 * const options: WindowedOptions = { minWindowTime: '500ms', maxWindowTime: '2s', windowSize: 20 };
 * ```
 */
export interface WindowedOptions {
  /** Shortest a window lasts; >= 0. Default `'1s'`. */
  readonly minWindowTime?: Duration | undefined;
  /** Longest a window waits for `2 · its lowest rtt` to pass; >= minWindowTime. Default `'1s'`. */
  readonly maxWindowTime?: Duration | undefined;
  /** Fewest calls a window holds before it closes; integer >= 1. Default 10. */
  readonly windowSize?: number | undefined;
  /** A successful call faster than this is not a sample (a cache hit, a short-circuit), ms; >= 0. Default 0.1 (100 µs). */
  readonly minRttThreshold?: Duration | undefined;
}

const WINDOWED_KEYS = ['minWindowTime', 'maxWindowTime', 'windowSize', 'minRttThreshold'] as const;

/**
 * Wraps an algorithm so that it sees one sample per window of calls. A successful call whose rtt
 * is under `minRttThreshold` (or not a finite number) is not counted; a drop always is, its rtt
 * never (a time-out's or a 429's duration is not the backend's latency). A window opens with its
 * first call and closes on the call that finds it holding at least `windowSize` calls and open for
 * at least `clamp(2 · its lowest rtt, minWindowTime, maxWindowTime)` (by `sample.at`); it then
 * forwards `{ at, rtt: the average rtt of its successful calls (0 if none), inFlight: the largest,
 * didDrop: any }`. Between windows the limit holds.
 *
 * @throws RangeError / TypeError naming `windowed`, the option, the value and the valid range.
 * @example
 * ```ts
 * const algorithm = windowed(vegas(), { windowSize: 10, minWindowTime: '1s' });
 * limiter = new AdaptiveLimiter('pg', { algorithm, window: false }); // already windowed
 * ```
 */
export function windowed(algorithm: LimitAlgorithm, options?: WindowedOptions): LimitAlgorithm {
  const read = ConfigReader.unnamed<WindowedOptions>('windowed', options, WINDOWED_KEYS);
  const minWindowTime = read.duration('minWindowTime', 1000, { gte: 0 });
  const maxWindowTime = read.duration('maxWindowTime', Math.max(1000, minWindowTime), { gte: 0 });
  if (maxWindowTime < minWindowTime) read.fail('maxWindowTime', `>= minWindowTime (${minWindowTime})`, options?.maxWindowTime);
  const windowSize = read.number('windowSize', 10, { integer: true, gte: 1 });
  const minRttThreshold = read.duration('minRttThreshold', 0.1, { gte: 0 });
  if (typeof algorithm !== 'object' || algorithm === null || typeof algorithm.onSample !== 'function' || typeof algorithm.name !== 'string') {
    throw new TypeError(`windowed: algorithm must be a LimitAlgorithm (name, limit, onSample), got ${describeValue(algorithm)}`);
  }

  return new WindowedLimit(algorithm, minWindowTime, maxWindowTime, windowSize, minRttThreshold);
}

/**
 * The algorithm {@link windowed} builds. A class, not a closure per limiter, so that the limiter's
 * call to {@link add} (every call) is one method on one prototype however many limiters a process
 * has, and the engine inlines it; the limiter finds it with {@link windowedOf}. Internal: the
 * package exports `windowed()`, which returns a `LimitAlgorithm`.
 */
export class WindowedLimit implements LimitAlgorithm {
  readonly name: string;
  readonly #algorithm: LimitAlgorithm;
  readonly #minWindowTime: number;
  readonly #maxWindowTime: number;
  readonly #windowSize: number;
  readonly #minRttThreshold: number;
  #openedAt = 0;
  #lastAt = 0;
  /** Calls in the window, drops included. */
  #count = 0;
  #rttMean = 0;
  #rttCount = 0;
  #minRtt = Number.POSITIVE_INFINITY;
  #maxInFlight = 0;
  #didDrop = false;

  constructor(algorithm: LimitAlgorithm, minWindowTime: number, maxWindowTime: number, windowSize: number, minRttThreshold: number) {
    this.name = algorithm.name;
    this.#algorithm = algorithm;
    this.#minWindowTime = minWindowTime;
    this.#maxWindowTime = maxWindowTime;
    this.#windowSize = windowSize;
    this.#minRttThreshold = minRttThreshold;
  }

  get limit(): number {
    return this.#algorithm.limit;
  }

  onSample(sample: LimitSample): number {
    return this.add(sample.at, sample.rtt, sample.inFlight, sample.didDrop === true);
  }

  /**
   * One call's sample as numbers (the limiter's path, no object per call) or read from a
   * `LimitSample` ({@link onSample}): the same checks either way. Returns the limit after it.
   */
  add(sampleAt: unknown, rtt: unknown, inFlight: unknown, drop: boolean): number {
    const timed = typeof rtt === 'number' && Number.isFinite(rtt) && rtt >= this.#minRttThreshold;
    if (!drop && !timed) return this.#algorithm.limit;
    // A time that is not one is read as the last time seen: it can neither open a window in the past nor close one early.
    const at = typeof sampleAt === 'number' && Number.isFinite(sampleAt) ? sampleAt : this.#lastAt;
    this.#lastAt = at;
    if (this.#count === 0) this.#openedAt = at;
    this.#count++;
    if (typeof inFlight === 'number' && Number.isFinite(inFlight) && inFlight > this.#maxInFlight) this.#maxInFlight = inFlight;
    if (drop) this.#didDrop = true;
    else {
      // A running mean, not a sum: huge rtts cannot overflow it to Infinity.
      this.#rttCount++;
      this.#rttMean += ((rtt as number) - this.#rttMean) / this.#rttCount;
      if ((rtt as number) < this.#minRtt) this.#minRtt = rtt as number;
    }
    const span = Math.min(this.#maxWindowTime, Math.max(this.#minWindowTime, 2 * this.#minRtt));
    if (this.#count < this.#windowSize || at - this.#openedAt < span) return this.#algorithm.limit;
    return this.#close(at);
  }

  /** The window closes at `at`: its summary goes to the algorithm; the next sample opens a new one. */
  #close(at: number): number {
    const summary: LimitSample = { at, rtt: this.#rttCount > 0 ? this.#rttMean : 0, inFlight: this.#maxInFlight, didDrop: this.#didDrop };
    this.#count = 0;
    this.#rttMean = 0;
    this.#rttCount = 0;
    this.#minRtt = Number.POSITIVE_INFINITY;
    this.#maxInFlight = 0;
    this.#didDrop = false;
    return this.#algorithm.onSample(summary);
  }
}

/** The {@link WindowedLimit} behind `algorithm`, if `windowed()` built it (its numbers path), else `undefined` (fed `LimitSample` objects). */
export function windowedOf(algorithm: LimitAlgorithm): WindowedLimit | undefined {
  return algorithm instanceof WindowedLimit ? algorithm : undefined;
}
