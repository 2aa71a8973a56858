import { BreakwaterError } from '@breakwater/core';

/**
 * What {@link resilientFetch} throws for an attempt that failed (contract: docs/fetch.md): a
 * response whose status is 429, 502, 503 or 504 (`status` set, its body cancelled), or a network
 * error (`status` undefined, the fetch's own error as `cause`). A retry inside the pipeline sees it
 * as the attempt's error, a breaker records it as a failure, and the caller gets the last one.
 *
 * `retryAfterMs` is the server's `Retry-After` (seconds, or an HTTP date taken against the
 * response's own `Date` header) in ms, when the response had a valid one and `respectRetryAfter`
 * is on; `retryAfterInterval` of `@breakwater/retry` makes it the next wait.
 *
 * @example
 * ```ts
 * try {
 *   await fetchWithRetry('https://api.example.com/orders');
 * } catch (e) {
 *   if (e instanceof FetchFailedError && e.status === 429) console.log(`throttled; the server asked for ${e.retryAfterMs} ms`);
 * }
 * ```
 */
export class FetchFailedError extends BreakwaterError {
  static {
    this.prototype.name = 'FetchFailedError';
  }
  /** The response's status (429, 502, 503 or 504); `undefined` for a network error. */
  readonly status: number | undefined;
  /** The request's method, upper case. */
  readonly method: string;
  /** The request's URL. */
  readonly url: string;
  /** The wait the server asked for in `Retry-After`, in ms (>= 0), when there was a valid one and it is honoured. */
  readonly retryAfterMs: number | undefined;

  constructor(
    method: string,
    url: string,
    status: number | undefined,
    retryAfterMs: number | undefined,
    options?: { readonly cause?: unknown; readonly statusText?: string },
  ) {
    const what = status === undefined ? `a network error${describeCause(options?.cause)}` : `${status}${options?.statusText ? ` ${options.statusText}` : ''}`;
    const wait = retryAfterMs === undefined ? '' : ` (Retry-After: ${retryAfterMs} ms)`;
    super(`resilientFetch: ${method} ${url} failed with ${what}${wait}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.method = method;
    this.url = url;
    this.retryAfterMs = retryAfterMs;
  }
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return '';
  const inner = (cause as { cause?: unknown }).cause;
  const detail = inner instanceof Error && inner.message !== '' ? `: ${inner.message}` : '';
  return ` (${cause.message}${detail})`;
}

/**
 * The error a retry inside the pipeline sees, instead of the failure itself, when a request that
 * may not be retried (not idempotent, see `retryNonIdempotent` and `retryOn`) failed: the call's
 * signal is aborted with it, so no retry, hedge or fallback of the pipeline sends the request again
 * (contract: docs/fetch.md). `cause` is the failure, which is what the caller of `resilientFetch`
 * gets; this error is only seen by the pipeline's events (a retry's `error` event).
 *
 * @example
 * ```ts
 * retry.on('error', (e) => {
 *   if (e.error instanceof NotRetriedError) log(`not retried: ${String(e.error.cause)}`);
 * });
 * ```
 */
export class NotRetriedError extends BreakwaterError {
  static {
    this.prototype.name = 'NotRetriedError';
  }
  constructor(method: string, url: string, cause: unknown) {
    super(`resilientFetch: ${method} ${url} may not be retried (not idempotent: no Idempotency-Key; see retryNonIdempotent, retryOn)`, { cause });
  }
}
