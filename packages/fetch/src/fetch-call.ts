import { CallNotPermittedError, onAbort, type CallContext, type ExecuteOptions, type PolicyFn } from '@breakwater/core';
import { NotRetriedError } from './fetch-failed-error.js';
import type { ResolvedFetchOptions } from './options.js';
import { send, sendThrough } from './send.js';

/**
 * What {@link resilientFetch} runs a request through: a `decorate()` pipeline or any Policy. A
 * pipeline with a fallback fits when the fallback returns a `Response`.
 *
 * @example
 * ```ts
 * const pipeline: FetchPipeline = decorate().withRetry(retry).withTimeLimiter(timeLimiter);
 * ```
 */
export interface FetchPipeline {
  /** Runs `fn` (one attempt: `resilientFetch` sends the request) under the pipeline's policies. */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions): Promise<T | Response>;
}

/**
 * One call of a resilient fetch (contract: docs/fetch.md): the request run through the pipeline,
 * each attempt sent with the attempt's `ctx.signal` (the request's own signal is the call's, so
 * every layer's signal includes it). A request that may be retried is sent as a clone each time
 * (its body can be read again); one that may not is sent once, as it is, and its failure aborts the
 * call's signal with a {@link NotRetriedError}, so that no layer of the pipeline (a retry, a
 * hedge) sends it again: the caller then gets the failure itself.
 */
export class FetchCall {
  readonly #options: ResolvedFetchOptions;
  readonly #request: Request;
  readonly #retryable: boolean;
  /** For a request that may not be retried: whether it has been sent, the controller of the call's signal, the failure that stopped it. */
  #sent = false;
  #controller: AbortController | undefined;
  #stop: NotRetriedError | undefined;

  constructor(options: ResolvedFetchOptions, request: Request, retryable: boolean) {
    this.#options = options;
    this.#request = request;
    this.#retryable = retryable;
  }

  run(pipeline: FetchPipeline): Promise<Response> {
    const request = this.#request;
    if (this.#retryable) return pipeline.execute(this.#attempt, { signal: request.signal });
    // The call's signal: aborted by the request's own signal (one listener through core's hub,
    // removed when the call ends), or by this call when the request may not be sent again.
    const controller = new AbortController();
    this.#controller = controller;
    const outer = request.signal;
    if (outer.aborted) controller.abort(outer.reason);
    const unfollow = onAbort(outer, () => controller.abort(outer.reason));
    return pipeline.execute(this.#attempt, { signal: controller.signal }).then(
      (response) => {
        unfollow();
        return response;
      },
      (error: unknown) => {
        unfollow();
        const stop = this.#stop;
        throw stop !== undefined && error === stop ? stop.cause : error;
      },
    );
  }

  readonly #attempt = (ctx: CallContext): Promise<Response> => {
    const request = this.#request;
    if (this.#retryable) return this.#sendOnce(request.clone(), ctx.signal);
    if (this.#sent) return Promise.reject(new NotRetriedError(request.method, request.url, undefined));
    this.#sent = true;
    return this.#sendOnce(request, ctx.signal).catch((error: unknown) => {
      // Refused by its origin's breaker: never sent, so it may be tried again (retryCallNotPermitted).
      // Else sent, and failed, timed out or was aborted: it may have reached the server, so
      // nothing of the pipeline may send it again.
      if (error instanceof CallNotPermittedError) this.#sent = false;
      else {
        this.#stop = new NotRetriedError(request.method, request.url, error);
        this.#controller!.abort(this.#stop);
      }
      throw error;
    });
  };

  #sendOnce(request: Request, signal: AbortSignal): Promise<Response> {
    const breakers = this.#options.perOrigin;
    if (breakers === undefined) return send(this.#options, request, signal);
    try {
      return sendThrough(breakers.get(new URL(request.url).origin), this.#options, request, signal);
    } catch (error) {
      return Promise.reject(error);
    }
  }
}
