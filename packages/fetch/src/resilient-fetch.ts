import { callbackThrew } from '@breakwater/core/internal';
import { FetchCall, type FetchPipeline } from './fetch-call.js';
import { isIdempotent } from './idempotency.js';
import { resolveFetchOptions, type FetchFunction, type ResilientFetchOptions, type ResolvedFetchOptions } from './options.js';

/**
 * A `fetch` whose every call runs through `pipeline` (contract: docs/fetch.md):
 *
 * - each attempt is sent with the attempt's `ctx.signal`, which includes the request's own signal;
 * - a 429, 502, 503 or 504 response and a network error fail the attempt with a
 *   {@link FetchFailedError} (status, url, `retryAfterMs`), the response's body cancelled; any
 *   other response is returned as it is — a 4xx is never retried, and a per-origin breaker ignores it;
 * - only idempotent requests (GET, HEAD, OPTIONS, PUT, DELETE, TRACE, or with an
 *   `Idempotency-Key` header) are sent again by the pipeline, unless `retryNonIdempotent` or
 *   `retryOn` says otherwise;
 * - the server's `Retry-After` (seconds or an HTTP date) is on the error as `retryAfterMs`: a Retry
 *   whose `intervalBiFunction` is `retryAfterInterval(max)` of `@breakwater/retry` waits that long,
 *   at most `max`;
 * - `perOrigin: registry` runs each attempt through the breaker the registry gives for its origin.
 *
 * Bad arguments throw here, at once.
 *
 * @example
 * ```ts
 * const retry = new Retry('api', { maxAttempts: 4, intervalBiFunction: retryAfterInterval('30s', IntervalFunction.ofExponentialBackoff(200, 2)) });
 * const fetchWithRetry = resilientFetch(decorate().withRetry(retry).withTimeLimiter(new TimeLimiter('api', { timeoutDuration: '5s' })), {
 *   perOrigin: new CircuitBreakerRegistry({ defaultConfig: { failureRateThreshold: 50 } }),
 * });
 * const res = await fetchWithRetry('https://api.example.com/orders/42', { signal: AbortSignal.timeout(20_000) });
 * ```
 */
export function resilientFetch(pipeline: FetchPipeline, options?: ResilientFetchOptions): FetchFunction {
  const resolved = resolveFetchOptions(pipeline, options);
  return (input, init) => {
    let request: Request;
    try {
      request = new Request(input, init);
    } catch (error) {
      return Promise.reject(error);
    }
    return new FetchCall(resolved, request, mayRetry(resolved, request)).run(pipeline);
  };
}

/** Whether the pipeline may send `request` again: `retryNonIdempotent`, else `retryOn` (contained), else idempotency. */
function mayRetry(options: ResolvedFetchOptions, request: Request): boolean {
  if (options.retryNonIdempotent) return true;
  const retryOn = options.retryOn;
  if (retryOn === undefined) return isIdempotent(request);
  try {
    return retryOn(request) === true;
  } catch (error) {
    callbackThrew('resilientFetch', 'retryOn', retryOn, error, 'the request is sent once, not retried');
    return false;
  }
}
