/**
 * The events of a hedge, by type (each also carries `type`, `name`, `at` and `time`). Every call
 * ends with exactly one of `success` or `error`; each hedged attempt is announced by `hedge` as it
 * starts, or by `hedgeRefused` when the budget refused it (contract: docs/hedging.md).
 *
 * @example
 * ```ts
 * hedge.on('hedge', (e) => log(`${e.name}: attempt ${e.attempt} started (${e.reason}, after ${e.delayMs} ms)`));
 * hedge.on('success', (e) => log(`${e.name}: attempt ${e.winner} of ${e.attempts} won`));
 * ```
 */
export type HedgeEvents = {
  /**
   * Hedged attempt `attempt` (2, 3, …) starts: `reason` 'delay' when the previous attempt gave no
   * answer within `delayMs`, 'failure' when an attempt failed (`delayMs` 0: at once).
   */
  hedge: { readonly attempt: number; readonly delayMs: number; readonly reason: 'delay' | 'failure' };
  /** The budget refused hedged attempt `attempt`: the call starts no more attempts. */
  hedgeRefused: { readonly attempt: number };
  /** The call resolved with attempt `winner`'s result, after `attempts` attempts had started. */
  success: { readonly attempts: number; readonly winner: number };
  /**
   * The call failed after `attempts` attempts had started: `error` is the winning attempt's
   * unhandled error, the primary's failure when every attempt failed (its error, or the result
   * `shouldHandle` declared a failure, which the call resolves with), or the caller's abort reason.
   */
  error: { readonly attempts: number; readonly error: unknown };
};

/**
 * A snapshot of a hedge's counters since it was created; each call is counted once, when the
 * caller gets its outcome.
 *
 * @example
 * ```ts
 * const m = hedge.metrics;
 * const hedgedShare = m.numberOfHedgedAttempts / (m.numberOfSuccessfulCalls + m.numberOfFailedCalls);
 * ```
 */
export interface HedgeMetrics {
  /** Calls resolved with a result no attempt's `shouldHandle` declared a failure. */
  readonly numberOfSuccessfulCalls: number;
  /** Every other call: an unhandled error won, every attempt failed, or the caller aborted. */
  readonly numberOfFailedCalls: number;
  /** Attempts started beyond the primaries. */
  readonly numberOfHedgedAttempts: number;
  /** Hedged attempts the budget refused. */
  readonly numberOfHedgesRefusedByBudget: number;
  /**
   * Calls by the attempt whose outcome the caller got (index 0: the primary; length
   * `maxHedgedAttempts + 1`). A call every attempt of which failed counts for the primary; an
   * aborted call counts nowhere.
   */
  readonly winsByAttempt: readonly number[];
}

/**
 * Every event type a hedge publishes: `on` refuses any other (with a "did you mean").
 *
 * @example
 * ```ts
 * for (const type of HEDGE_EVENT_TYPES) hedge.on(type, (e) => log(e.type, e.name));
 * ```
 */
export const HEDGE_EVENT_TYPES: readonly (keyof HedgeEvents)[] = ['hedge', 'hedgeRefused', 'success', 'error'];
