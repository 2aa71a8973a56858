import { ConfigReader, type Clock, type Duration } from '@breakwater/core';
import { SlidingCounts } from './sliding-counts.js';

/**
 * Options of a {@link RetryBudget}.
 *
 * @example
 * ```ts
 * const budget = new RetryBudget({ ratio: 0.1, minRetriesPerSecond: 5, ttl: '10s' } satisfies RetryBudgetConfig);
 * ```
 */
export interface RetryBudgetConfig {
  /** Retries allowed per call in the window, on top of the floor. Default 0.2; >= 0. */
  readonly ratio?: number | undefined;
  /** The floor: retries always allowed per second of the window, whatever the traffic. Default 10; >= 0. */
  readonly minRetriesPerSecond?: number | undefined;
  /** How long a call or a retry counts (the window). Default 10 000 ms; >= 10 ms. */
  readonly ttl?: Duration | undefined;
  /** The clock of the window. Default `systemClock`. */
  readonly clock?: Clock | undefined;
}

/**
 * A snapshot of a budget.
 *
 * @example
 * ```ts
 * const { retriesRefused, availableRetries } = budget.metrics;
 * ```
 */
export interface RetryBudgetMetrics {
  /** Retries the budget allowed since it was created. */
  readonly retriesAllowed: number;
  /** Retries it refused since it was created. */
  readonly retriesRefused: number;
  /** Calls counted in the current window. */
  readonly callsInWindow: number;
  /** Retries counted in the current window. */
  readonly retriesInWindow: number;
  /** How many more retries it would allow now. */
  readonly availableRetries: number;
}

/** Slices of the window: a call counts for between 0.9 × ttl and ttl (as Finagle's WindowedAdder). */
const SLICES = 10;
/** Floating-point slack, so that `0.1 × 10 calls` allows exactly one retry. */
const EPSILON = 1e-9;

/**
 * A retry budget in Finagle's manner, shared by any number of `Retry` instances: every call
 * deposits, every retry withdraws, and a retry is allowed only while
 *
 * `retries in the window + 1 <= ratio × calls in the window + minRetriesPerSecond × ttl / 1000`
 *
 * so retries stay a bounded fraction of the traffic (no retry storm when a backend fails for
 * everyone) while a quiet service can still retry. Calls and retries count for `ttl`, in ten
 * time slices, so memory is fixed and nothing is allocated per call.
 *
 * @example
 * ```ts
 * const budget = new RetryBudget({ ratio: 0.2, minRetriesPerSecond: 10, ttl: '10s' });
 * const pg = new Retry('pg', { maxAttempts: 4, budget });
 * const cache = new Retry('cache', { maxAttempts: 2, budget });
 * ```
 */
export class RetryBudget {
  /** The options as resolved at construction. */
  readonly config: { readonly ratio: number; readonly minRetriesPerSecond: number; readonly ttl: number; readonly clock: Clock };
  readonly #counts: SlidingCounts;
  readonly #clock: Clock;
  readonly #ratio: number;
  readonly #reserve: number;
  #allowed = 0;
  #refused = 0;

  constructor(config?: RetryBudgetConfig) {
    const read = ConfigReader.unnamed<RetryBudgetConfig>('RetryBudget', config, ['ratio', 'minRetriesPerSecond', 'ttl', 'clock']);
    const ratio = read.number('ratio', 0.2, { gte: 0, lte: 1000 });
    const minRetriesPerSecond = read.number('minRetriesPerSecond', 10, { gte: 0 });
    if (minRetriesPerSecond === Infinity) read.fail('minRetriesPerSecond', 'finite', minRetriesPerSecond);
    const ttl = read.duration('ttl', 10_000, { gte: 10 });
    if (ttl === Infinity) read.fail('ttl', 'finite', ttl);
    this.#clock = read.clock();
    this.config = Object.freeze({ ratio, minRetriesPerSecond, ttl, clock: this.#clock });
    this.#ratio = ratio;
    this.#reserve = (minRetriesPerSecond * ttl) / 1000;
    this.#counts = new SlidingCounts(SLICES, ttl / SLICES);
  }

  /**
   * Counts one call (a `Retry` does it once per `execute`, before the first attempt).
   *
   * @example
   * ```ts
   * budget.recordCall(); // in a hand-written retry loop, once per logical call
   * ```
   */
  recordCall(): void {
    this.#counts.addCall(this.#clock.now());
  }

  /**
   * Takes one retry from the budget if it allows one; `false` (counted in `retriesRefused`)
   * means the caller should give up now.
   *
   * @example
   * ```ts
   * if (!budget.tryRetry()) throw lastError;
   * ```
   */
  tryRetry(): boolean {
    const now = this.#clock.now();
    const counts = this.#counts;
    if (counts.retries(now) + 1 <= this.#ratio * counts.calls(now) + this.#reserve + EPSILON) {
      counts.addRetry(now);
      this.#allowed++;
      return true;
    }
    this.#refused++;
    return false;
  }

  /**
   * A fresh snapshot; the window is moved to now first.
   *
   * @example
   * ```ts
   * const { retriesRefused, availableRetries } = budget.metrics;
   * ```
   */
  get metrics(): RetryBudgetMetrics {
    const now = this.#clock.now();
    const calls = this.#counts.calls(now);
    const retries = this.#counts.retries(now);
    return {
      retriesAllowed: this.#allowed,
      retriesRefused: this.#refused,
      callsInWindow: calls,
      retriesInWindow: retries,
      availableRetries: Math.max(0, Math.floor(this.#ratio * calls + this.#reserve - retries + EPSILON)),
    };
  }
}

/**
 * Counts a call in `budget`, if there is one (what a Retry and a Hedge do as a call enters): the
 * rejection to return when the budget's clock threw, else `undefined`. Not exported from the package.
 */
export function countCall(budget: RetryBudget | undefined): Promise<never> | undefined {
  if (budget === undefined) return undefined;
  try {
    budget.recordCall();
    return undefined;
  } catch (error) {
    return Promise.reject(error);
  }
}
