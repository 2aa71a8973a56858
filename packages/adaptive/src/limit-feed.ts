import { callbackThrew, describeValue, warnOnce } from '@breakwater/core/internal';
import type { LimitAlgorithm } from './limit/algorithm.js';
import { windowedOf, type WindowedLimit } from './limit/windowed.js';

/**
 * Feeds samples to an adaptive limiter's algorithm and reads the limit it returns, as a user
 * callback: an algorithm that throws, or returns anything but a finite number >= 1, leaves the
 * limit where it was (reported once); a fraction is rounded down. So the limiter's limit is
 * always an integer >= 1, whatever algorithm it is given (a limit of 0 would admit no call, and
 * so no sample could ever raise it).
 */
export class LimitFeed {
  readonly #source: string;
  readonly #algorithm: LimitAlgorithm;
  /** The built-in window, if the algorithm is one: fed numbers, no `LimitSample` per call. */
  readonly #windowed: WindowedLimit | undefined;
  #limit: number;

  constructor(source: string, algorithm: LimitAlgorithm) {
    this.#source = source;
    this.#algorithm = algorithm;
    this.#windowed = windowedOf(algorithm);
    const initial = this.#accept(algorithm.limit);
    if (initial === undefined) {
      throw new RangeError(`${source}: algorithm.limit must be a finite number >= 1, got ${describeValue(algorithm.limit)}`);
    }
    this.#limit = initial;
  }

  /** The limit in force. */
  get limit(): number {
    return this.#limit;
  }

  /** Feeds one sample; returns the limit in force after it. */
  sample(at: number, rtt: number, inFlight: number, didDrop: boolean): number {
    const algorithm = this.#algorithm;
    const windowed = this.#windowed;
    let next: unknown;
    try {
      next = windowed === undefined ? algorithm.onSample({ at, rtt, inFlight, didDrop }) : windowed.add(at, rtt, inFlight, didDrop);
    } catch (error) {
      callbackThrew(this.#source, 'algorithm.onSample', algorithm, error, 'the limit stays as it was');
      return this.#limit;
    }
    return next === this.#limit ? next : this.#adopt(next); // the limit held (most samples): nothing to check
  }

  /** The algorithm answered `next`, not the limit in force: the new limit if it is one, else the old (reported once). */
  #adopt(next: unknown): number {
    const limit = this.#accept(next);
    if (limit === undefined) {
      warnOnce(
        this.#algorithm,
        `${this.#source}: algorithm '${String(this.#algorithm.name)}' returned ${describeValue(next)}, not a finite number >= 1; the limit stays at ${this.#limit} (reported once)`,
        'BreakwaterCallbackWarning',
      );
      return this.#limit;
    }
    this.#limit = limit;
    return limit;
  }

  #accept(value: unknown): number | undefined {
    return typeof value === 'number' && value >= 1 && Number.isFinite(value) ? Math.floor(value) : undefined;
  }
}
