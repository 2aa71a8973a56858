import { parseDuration, type Duration, type Outcome } from '@breakwater/core';
import { describeValue } from '@breakwater/core/internal';

/**
 * What a retry hands to an interval function besides the attempt number: its random source
 * (the Retry's `random` option) and the wait it took before this one in the same call (0
 * before the first wait). The built-in randomised functions use `random`; decorrelated jitter
 * uses `previousWaitMs`.
 *
 * @example
 * ```ts
 * const f: IntervalFunction = (attempt, state) => Math.min(5000, (state?.previousWaitMs ?? 0) + 100 * attempt);
 * ```
 */
export interface IntervalState {
  readonly random: () => number;
  readonly previousWaitMs: number;
}

/**
 * The wait in ms after the failed attempt `attempt` (1-based) and before the next one.
 * Built by the `IntervalFunction.of…` factories or written by hand.
 *
 * @example
 * ```ts
 * const linear: IntervalFunction = (attempt) => 100 * attempt;
 * new Retry('pg', { intervalFunction: linear });
 * ```
 */
export type IntervalFunction = (attempt: number, state?: IntervalState) => number;

/**
 * What the failed attempt gave: the error it threw, or the value `retryOnResult` asked to retry.
 * Core's {@link Outcome} under the name this package has always exported.
 *
 * @example
 * ```ts
 * const wait = (attempt: number, outcome: RetryOutcome) => ('error' in outcome ? 1000 : 100) * attempt;
 * ```
 */
export type RetryOutcome = Outcome;

/**
 * Like {@link IntervalFunction}, with the outcome of the failed attempt, e.g. to honour a
 * server's `Retry-After`.
 *
 * @example
 * ```ts
 * const honourRetryAfter: IntervalBiFunction = (attempt, outcome) =>
 *   'result' in outcome && outcome.result instanceof Response && outcome.result.headers.has('retry-after')
 *     ? Number(outcome.result.headers.get('retry-after')) * 1000
 *     : 200 * attempt;
 * new Retry('pg', { intervalBiFunction: honourRetryAfter, retryOnResult: (r: Response) => r.status === 503 });
 * ```
 */
export type IntervalBiFunction = (attempt: number, outcome: Outcome, state?: IntervalState) => number;

const DEFAULT_INITIAL_INTERVAL = 500;
const DEFAULT_MULTIPLIER = 1.5;
const DEFAULT_RANDOMIZATION_FACTOR = 0.5;

function ms(factory: string, arg: string, value: unknown, min: number): number {
  const parsed = parseDuration(value);
  if (parsed === undefined) {
    throw new TypeError(`IntervalFunction.${factory}: ${arg} must be a duration (ms, or a string like '250ms', '10s'), got ${describeValue(value)}`);
  }
  if (!(parsed >= min) || !Number.isFinite(parsed)) {
    throw new RangeError(`IntervalFunction.${factory}: ${arg} must be a finite number of ms >= ${min}, got ${describeValue(value)}`);
  }
  return parsed;
}

function multiplierOf(factory: string, value: unknown): number {
  if (typeof value !== 'number') throw new TypeError(`IntervalFunction.${factory}: multiplier must be a number, got ${describeValue(value)}`);
  if (!(value >= 1) || !Number.isFinite(value))
    throw new RangeError(`IntervalFunction.${factory}: multiplier must be a finite number >= 1, got ${describeValue(value)}`);
  return value;
}

function factorOf(factory: string, value: unknown): number {
  if (typeof value !== 'number') throw new TypeError(`IntervalFunction.${factory}: randomizationFactor must be a number, got ${describeValue(value)}`);
  if (!(value >= 0 && value <= 1)) throw new RangeError(`IntervalFunction.${factory}: randomizationFactor must be in [0, 1], got ${describeValue(value)}`);
  return value;
}

function checkAttempt(attempt: number): void {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new RangeError(`IntervalFunction: attempt must be an integer >= 1, got ${describeValue(attempt)}`);
  }
}

/**
 * Resilience4j's exponential sequence: `initial`, then each step `trunc(previous × multiplier)`
 * (Java's `(long) (x * multiplier)`), `attempt - 1` steps in. Stops early at a fixed point
 * (`trunc(x × m) === x`, e.g. 1 × 1.5) or at Infinity, so a large attempt costs little.
 */
export function exponentialStep(initial: number, multiplier: number, attempt: number): number {
  let value = initial;
  for (let step = 1; step < attempt; step++) {
    const next = Math.trunc(value * multiplier);
    if (next === value || next === Infinity) return next;
    value = next;
  }
  return value;
}

/**
 * Resilience4j 2.3+'s randomisation (`IntervalFunctionCompanion.randomize`), exactly:
 * `max(1, min + random × (max − min + 1))` with `min = current × (1 − factor)` and
 * `max = current × (1 + factor)` — uniform in `[min, max + 1)`, so once truncated the top value
 * `max` itself is reached (`ofRandomized(100, 0.5)` spans [50, 150]) — and never below 1. The
 * arithmetic is Java's (doubles), rounding included: a draw within about 1e-14 of 1 can round
 * up to `max + 1` there as here.
 */
export function randomize(current: number, factor: number, random: () => number): number {
  const delta = factor * current;
  const min = current - delta;
  const max = current + delta;
  return Math.max(1, min + random() * (max - min + 1));
}

/** A randomised value truncated as Resilience4j casts it to `long`. */
function randomized(current: number, factor: number, random: () => number): number {
  if (current === Infinity) return Infinity;
  return Math.trunc(randomize(current, factor, random));
}

/** Refuses a cap below the first interval (every wait would be the cap: surely not what was meant). */
function capOf(factory: string, max: Duration | undefined, initial: number): number {
  if (max === undefined) return Infinity;
  const cap = ms(factory, 'maxInterval', max, 1);
  if (cap < initial) {
    throw new RangeError(`IntervalFunction.${factory}: maxInterval must be >= initialInterval (${initial} ms), got ${describeValue(max)}`);
  }
  return cap;
}

/**
 * Factories of the usual interval functions, with Resilience4j 2.3+'s formulas (truncation at
 * each exponential step; randomised values uniform in `[min, max + 1)`, truncated, never below
 * 1 ms) and AWS's decorrelated jitter. Every argument is checked at once: a `RangeError` (or
 * `TypeError`) names the factory, the argument and the value; a `maxInterval` below the
 * initial interval is refused.
 *
 * @example
 * ```ts
 * const retry = new Retry('pg', { maxAttempts: 5, intervalFunction: IntervalFunction.ofExponentialRandomBackoff(100, 2, 0.5, 5000) });
 * ```
 */
export const IntervalFunction = {
  /**
   * The same wait after every attempt (Resilience4j's default is 500 ms).
   *
   * @example
   * ```ts
   * IntervalFunction.of(500)(3); // 500
   * ```
   */
  of(interval: Duration = DEFAULT_INITIAL_INTERVAL): IntervalFunction {
    const value = ms('of', 'interval', interval, 1);
    return (attempt) => {
      checkAttempt(attempt);
      return value;
    };
  },

  /**
   * `initial × multiplier^(attempt − 1)`, truncated at each step, at most `max` (which must be
   * at least `initial`).
   *
   * @example
   * ```ts
   * const f = IntervalFunction.ofExponentialBackoff(100, 2, 1000);
   * [1, 2, 3, 4, 5].map((n) => f(n)); // [100, 200, 400, 800, 1000]
   * ```
   */
  ofExponentialBackoff(initial: Duration = DEFAULT_INITIAL_INTERVAL, multiplier: number = DEFAULT_MULTIPLIER, max?: Duration): IntervalFunction {
    const start = ms('ofExponentialBackoff', 'initialInterval', initial, 1);
    const m = multiplierOf('ofExponentialBackoff', multiplier);
    const cap = capOf('ofExponentialBackoff', max, start);
    return (attempt) => {
      checkAttempt(attempt);
      return Math.min(exponentialStep(start, m, attempt), cap);
    };
  },

  /**
   * `interval` randomised by `± factor` as Resilience4j does: uniform in
   * `[interval·(1−f), interval·(1+f) + 1)`, truncated, at least 1 ms.
   *
   * @example
   * ```ts
   * IntervalFunction.ofRandomized(1000, 0.5)(1); // an integer in [500, 1500]
   * ```
   */
  ofRandomized(interval: Duration = DEFAULT_INITIAL_INTERVAL, randomizationFactor: number = DEFAULT_RANDOMIZATION_FACTOR): IntervalFunction {
    const value = ms('ofRandomized', 'interval', interval, 1);
    const factor = factorOf('ofRandomized', randomizationFactor);
    return (attempt, state) => {
      checkAttempt(attempt);
      return randomized(value, factor, state?.random ?? Math.random);
    };
  },

  /**
   * The exponential sequence of {@link ofExponentialBackoff}, each value randomised as
   * {@link ofRandomized} does (truncated, at least 1 ms), then at most `max` (which must be at
   * least `initial`).
   *
   * @example
   * ```ts
   * IntervalFunction.ofExponentialRandomBackoff(100, 2, 0.5, 5000)(3); // an integer in [200, 600]
   * ```
   */
  ofExponentialRandomBackoff(
    initial: Duration = DEFAULT_INITIAL_INTERVAL,
    multiplier: number = DEFAULT_MULTIPLIER,
    randomizationFactor: number = DEFAULT_RANDOMIZATION_FACTOR,
    max?: Duration,
  ): IntervalFunction {
    const start = ms('ofExponentialRandomBackoff', 'initialInterval', initial, 1);
    const m = multiplierOf('ofExponentialRandomBackoff', multiplier);
    const factor = factorOf('ofExponentialRandomBackoff', randomizationFactor);
    const cap = capOf('ofExponentialRandomBackoff', max, start);
    return (attempt, state) => {
      checkAttempt(attempt);
      return Math.min(randomized(exponentialStep(start, m, attempt), factor, state?.random ?? Math.random), cap);
    };
  },

  /**
   * AWS's "decorrelated jitter": `min(max, random_between(base, previous × 3))`, truncated,
   * where `previous` is the call's previous wait (`base` before the first one, or when called
   * without a state). Spreads retries of many clients better than plain exponential jitter.
   *
   * @example
   * ```ts
   * new Retry('pg', { maxAttempts: 6, intervalFunction: IntervalFunction.ofDecorrelatedJitter(100, 10_000) });
   * ```
   */
  ofDecorrelatedJitter(base: Duration, max: Duration): IntervalFunction {
    const low = ms('ofDecorrelatedJitter', 'base', base, 1);
    const cap = ms('ofDecorrelatedJitter', 'max', max, 1);
    if (cap < low) throw new RangeError(`IntervalFunction.ofDecorrelatedJitter: max must be >= base (${low} ms), got ${describeValue(max)}`);
    return (attempt, state) => {
      checkAttempt(attempt);
      const previous = attempt > 1 && state !== undefined && state.previousWaitMs >= low ? state.previousWaitMs : low;
      const random = state?.random ?? Math.random;
      return Math.min(cap, Math.trunc(low + random() * (previous * 3 - low)));
    };
  },
} as const;
