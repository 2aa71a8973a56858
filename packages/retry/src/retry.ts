import {
  enterCall,
  NEVER_ABORTED,
  ROOT_CONTEXT,
  type AnyEventOf,
  type CallContext,
  type EventOf,
  type ExecuteOptions,
  type Listener,
  type Observable,
  type Policy,
  type PolicyFn,
} from '@breakwater/core';
import { pRetry } from './p-retry.js';
import { runAttempt } from './attempt.js';
import { resolveConfig, type ResolvedRetryConfig, type RetryConfig } from './config.js';
import type { RetryEvents, RetryMetrics } from './events.js';
import { RetryHost } from './host.js';
import { RetryRun } from './retry-run.js';

/**
 * Retries a call with Resilience4j's semantics: `maxAttempts` counts the first call, a wait
 * from `waitDuration` or an interval function after each failed attempt (on the injected
 * clock), errors chosen by class or predicate (`ignoreExceptions` wins), values retried by
 * `retryOnResult`, and an optional {@link RetryBudget} shared with other retries. p-retry runs
 * the loop of attempts once a first attempt has failed; its own rules (no retry of TypeErrors,
 * non-errors wrapped, real timers) do not apply. An exhausted call rethrows its last error as
 * it was thrown. A caller's abort ends the call at once with the signal's reason, waiting or
 * not, and no attempt starts after it.
 *
 * @example
 * ```ts
 * const retry = new Retry('pg', { maxAttempts: 4, intervalFunction: IntervalFunction.ofExponentialBackoff(200, 2) });
 * retry.on('retry', (e) => log(`attempt ${e.attempt} failed; next in ${e.waitMs} ms`));
 * const receipt = await retry.execute((ctx) => pg.requestPayment(req, { signal: ctx.signal, attempt: ctx.attempt }));
 * ```
 */
export class Retry implements Policy, Observable<RetryEvents> {
  readonly kind = 'retry' as const;
  /** The options as resolved at construction (defaults applied, durations in ms). */
  readonly config: ResolvedRetryConfig;
  readonly #host: RetryHost;

  /**
   * Same as `new Retry(name, config)`.
   *
   * @example
   * ```ts
   * const retry = Retry.of('pg', { maxAttempts: 5 });
   * ```
   */
  static of(name: string, config?: RetryConfig): Retry {
    return new Retry(name, config);
  }

  constructor(
    readonly name: string,
    config?: RetryConfig,
  ) {
    this.config = resolveConfig(name, config);
    this.#host = new RetryHost(name, this.config);
  }

  /**
   * A fresh snapshot of the counters; each call is counted once, when it ends.
   *
   * @example
   * ```ts
   * const { numberOfFailedCallsWithRetryAttempt } = retry.metrics;
   * ```
   */
  get metrics(): RetryMetrics {
    return this.#host.metrics;
  }

  /**
   * Subscribes to `retry`, `success`, `error`, `ignoredError`, or `'*'` for all; returns the
   * unsubscribe.
   *
   * @example
   * ```ts
   * const off = retry.on('retry', (e) => log(`retrying ${e.name} in ${e.waitMs} ms`));
   * off();
   * ```
   */
  on<K extends keyof RetryEvents & string>(type: K, listener: (event: EventOf<RetryEvents, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<RetryEvents>) => void): () => void;
  on(type: string, listener: Listener): () => void {
    return this.#host.events.subscribe(type, listener);
  }

  /**
   * Runs `fn`, and again after a wait while the outcome is to be retried. `fn` gets a context
   * with the caller's signal and `attempt`, the 1-based number of this attempt. Never throws
   * synchronously; a sync throw is retried like a rejection.
   *
   * @example
   * ```ts
   * await retry.execute((ctx) => fetch(url, { signal: ctx.signal }), { signal: request.signal });
   * ```
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T> {
    // Not an async function: the first attempt's promise is followed with one `then` (what an
    // `await` costs, without the async function's own frame and promise).
    // No options (the common case): the shared root context, which never aborts.
    const parent = options === undefined ? ROOT_CONTEXT : enterCall(options);
    if (parent instanceof Promise) return parent;
    const budget = this.#host.config.budget;
    if (budget !== undefined) {
      try {
        budget.recordCall();
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const signal = parent.signal;
    // The success path: one attempt, no p-retry (it normalises its options on every call). The
    // attempt settles exactly once whatever `fn` returns or throws (core's invoke).
    const result = runAttempt(fn, parent.attempt === 1 ? parent : { signal, attempt: 1 });
    if (this.#slotFree) {
      // No other call holds this retry's own pair of handlers: this one takes them (no closure).
      this.#slotFree = false;
      this.#slotFn = fn;
      this.#slotSignal = signal;
      return result.then(this.#slotFulfilled as (value: T) => T | Promise<T>, this.#slotFailed as (error: unknown) => Promise<T>);
    }
    return result.then(
      (value) => this.#firstValue(fn, signal, value),
      (error: unknown) => this.#retry(fn, signal, true, error),
    );
  }

  // One pair of handlers per retry, for the call that holds them (the slot): a call taking them
  // needs no closure of its own. The slot is free again the moment its first attempt settles.
  #slotFree = true;
  #slotFn: PolicyFn<unknown> | undefined;
  #slotSignal: AbortSignal = NEVER_ABORTED;
  readonly #slotFulfilled = (value: unknown): unknown => {
    const fn = this.#slotFn!;
    const signal = this.#slotSignal;
    this.#releaseSlot();
    return this.#firstValue(fn, signal, value);
  };
  readonly #slotFailed = (error: unknown): Promise<unknown> => {
    const fn = this.#slotFn!;
    const signal = this.#slotSignal;
    this.#releaseSlot();
    return this.#retry(fn, signal, true, error);
  };

  #releaseSlot(): void {
    this.#slotFree = true;
    this.#slotFn = undefined;
    this.#slotSignal = NEVER_ABORTED;
  }

  /** The first attempt resolved with `value`: the result, unless `retryOnResult` wants it retried. */
  #firstValue<T>(fn: PolicyFn<T>, signal: AbortSignal, value: T): T | Promise<T> {
    const host = this.#host;
    const retryOnResult = host.config.retryOnResult;
    if (retryOnResult !== undefined && host.retriesResult(value)) return this.#retry(fn, signal, false, value);
    host.succeeded(1);
    return value;
  }

  /**
   * Wraps `fn` so that every call goes through {@link execute}.
   *
   * @example
   * ```ts
   * const getUser = retry.decorate((id: string) => db.users.find(id));
   * await getUser('42');
   * ```
   */
  decorate<A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>): (...args: A) => Promise<R> {
    return (...args) => this.execute(() => fn(...args));
  }

  /** The first attempt failed (or gave a value to retry): decide, wait, and let p-retry run the rest. */
  async #retry<T>(fn: PolicyFn<T>, signal: AbortSignal, failedWithError: boolean, outcome: unknown): Promise<T> {
    const host = this.#host;
    const run = new RetryRun<T>(host, fn, signal, failedWithError, outcome);
    const go = run.next();
    if (go === true || (go !== false && (await go))) {
      try {
        return await pRetry(run.input, host.pRetryOptions);
      } catch (error) {
        if (error !== run.carrier) throw error;
      }
    }
    return run.settle();
  }
}
