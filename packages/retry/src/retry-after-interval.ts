import { parseDuration, type Duration, type Outcome } from '@breakwater/core';
import { describeValue } from '@breakwater/core/internal';
import type { IntervalBiFunction, IntervalFunction, IntervalState } from './interval-function.js';

/**
 * An interval function that honours a server's `Retry-After` (contract: docs/retry.md): when the
 * failed attempt's error carries `retryAfterMs` (a finite number >= 0, as `FetchFailedError` of
 * `@breakwater/fetch` does), the next wait is that, at most `maxWait`; otherwise it is
 * `otherwise`'s wait (a fixed duration or an interval function; default 500 ms, Retry's own
 * default). Give it as the Retry's `intervalBiFunction`. Bad arguments throw at once (a
 * `RangeError` or `TypeError` naming the argument and the value).
 *
 * @example
 * ```ts
 * const retry = new Retry('api', {
 *   maxAttempts: 4,
 *   intervalBiFunction: retryAfterInterval('30s', IntervalFunction.ofExponentialBackoff(200, 2, 5000)),
 * });
 * ```
 */
export function retryAfterInterval(maxWait: Duration, otherwise: IntervalFunction | Duration = 500): IntervalBiFunction {
  const cap = parseDuration(maxWait);
  if (cap === undefined) throw new TypeError(`retryAfterInterval: maxWait must be a duration (ms, or a string like '30s'), got ${describeValue(maxWait)}`);
  if (!(cap >= 0) || !Number.isFinite(cap))
    throw new RangeError(`retryAfterInterval: maxWait must be a finite number of ms >= 0, got ${describeValue(maxWait)}`);
  const fallback = fallbackOf(otherwise);
  return (attempt: number, outcome: Outcome, state?: IntervalState) => {
    const asked = 'error' in outcome ? retryAfterOf(outcome.error) : undefined;
    return asked === undefined ? fallback(attempt, state) : Math.min(asked, cap);
  };
}

function fallbackOf(otherwise: IntervalFunction | Duration): IntervalFunction {
  if (typeof otherwise === 'function') return otherwise;
  const ms = parseDuration(otherwise);
  if (ms === undefined) {
    throw new TypeError(
      `retryAfterInterval: otherwise must be an interval function or a duration (ms, or a string like '500ms'), got ${describeValue(otherwise)}`,
    );
  }
  if (!(ms >= 0) || !Number.isFinite(ms))
    throw new RangeError(`retryAfterInterval: otherwise must be a finite number of ms >= 0, got ${describeValue(otherwise)}`);
  return () => ms;
}

/** The `retryAfterMs` an error carries, when it is a finite number >= 0. */
function retryAfterOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const ms: unknown = (error as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof ms === 'number' && ms >= 0 && Number.isFinite(ms) ? ms : undefined;
}
