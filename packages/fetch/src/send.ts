import { TimeoutError } from '@breakwater/core';
import { FetchFailedError } from './fetch-failed-error.js';
import type { OriginBreaker, ResolvedFetchOptions } from './options.js';
import { retryAfterMs } from './retry-after.js';

/** The statuses that fail an attempt (contract: docs/fetch.md): the server is overloaded or a gateway could not reach it. */
const FAILURE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/**
 * Whether a per-origin breaker ignores a response of this status: a client error other than 429
 * (the server answered; the request was wrong) is neither a success nor a failure to it.
 */
function ignoredByBreaker(status: number): boolean {
  return status >= 400 && status < 500;
}

/** Cancels the body of a response that will not be returned, so its connection is freed (a rejection of cancel is of no interest). */
export function cancelBody(response: Response): void {
  try {
    response.body?.cancel().catch(() => {});
  } catch {
    // A body some other code holds: it is that code's to read.
  }
}

/**
 * Sends one attempt with `signal` (contract: docs/fetch.md): resolves with the response, or
 * rejects with a {@link FetchFailedError} (a failure status, its body cancelled; a network error)
 * or, when `signal` has aborted, with its reason — what every layer takes for the caller's abort
 * (a breaker does not record it). A response that arrives after the abort is cancelled too.
 */
export async function send(options: ResolvedFetchOptions, request: Request, signal: AbortSignal): Promise<Response> {
  let response: Response;
  try {
    response = await options.fetch(request, { signal });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw new FetchFailedError(request.method, request.url, undefined, undefined, { cause: error });
  }
  if (signal.aborted) {
    cancelBody(response);
    throw signal.reason;
  }
  if (FAILURE_STATUSES.has(response.status)) {
    const headers = response.headers;
    const wait = options.respectRetryAfter ? retryAfterMs(headers.get('retry-after'), headers.get('date'), Date.now) : undefined;
    cancelBody(response);
    throw new FetchFailedError(request.method, request.url, response.status, wait, { statusText: response.statusText });
  }
  return response;
}

/**
 * {@link send} through `breaker`'s permission API: refused at once (`CallNotPermittedError`) when
 * it does not permit the call; else the outcome recorded with its duration on the breaker's clock
 * — a failure as `onError` (the breaker's record / ignore options apply), and so a time limiter's
 * time-out (its `TimeoutError` as the signal's reason: as if the time limiter were inside the
 * breaker, where Resilience4j puts it); a client error (4xx but 429) and any other abort (the
 * caller's, a hedge's loser) not recorded (the permission given back); any other response as
 * `onResult` (its `recordResult` applies).
 */
export async function sendThrough(breaker: OriginBreaker, options: ResolvedFetchOptions, request: Request, signal: AbortSignal): Promise<Response> {
  breaker.acquirePermission();
  const clock = breaker.config.clock;
  const start = clock.now();
  let response: Response;
  try {
    response = await send(options, request, signal);
  } catch (error) {
    if (signal.aborted && error === signal.reason && !(error instanceof TimeoutError)) breaker.releasePermission();
    else breaker.onError(clock.now() - start, error);
    throw error;
  }
  if (ignoredByBreaker(response.status)) breaker.releasePermission();
  else breaker.onResult(clock.now() - start, response);
  return response;
}
