import type { AnyEventOf, CallContext, EventOf, ExecuteOptions, Listener, Observable, Policy, PolicyFn } from '@breakwater/core';
import { enterCall, invoke, NEVER_ABORTED, raceAbort, ROOT_CONTEXT } from '@breakwater/core/internal';
import { resolveRetryConfig, type ResolvedRetryConfig, type RetryConfig } from './config.js';
import type { RetryEvents, RetryMetrics } from './events.js';
import { loopOptions, runAttemptsAfterFirst } from './p-retry.js';
import { CallRecorder } from './recorder.js';
import { RetriedCall } from './retried-call.js';
import { countCall } from './retry-budget.js';
import { RetryRules } from './rules.js';

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
  readonly #rules: RetryRules;
  readonly #recorder: CallRecorder;
  /** The options of p-retry's loop, built once (see `p-retry.ts`). */
  readonly #loopOptions: ReturnType<typeof loopOptions>;

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
    this.config = resolveRetryConfig(name, config);
    this.#rules = new RetryRules(name, this.config);
    this.#recorder = new CallRecorder(name, this.#rules.source, this.config.clock);
    this.#loopOptions = loopOptions(this.config.maxAttempts);
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
    return this.#recorder.metrics;
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
    return this.#recorder.events.subscribe(type, listener);
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
    // Not an async function: attempt 1's promise is followed with one `then` (what an `await`
    // costs, without the async function's own frame and promise).
    // 1. Enter the call: a context, or the rejection to return (core's prologue). No options
    //    (the common case) is the shared root context, which never aborts.
    const ctx = options === undefined ? ROOT_CONTEXT : enterCall(options);
    if (ctx instanceof Promise) return ctx;
    // 2. Count the call in the budget (a user's clock that throws rejects the call).
    const uncounted = countCall(this.config.budget);
    if (uncounted !== undefined) return uncounted;
    // 3. Attempt 1, here and not in p-retry (which normalises its options on every call): it
    //    settles exactly once whatever `fn` returns or throws (core's invoke), and at once with
    //    the signal's reason when the caller aborts (core's raceAbort).
    const signal = ctx.signal;
    const first = raceAbort(invoke(fn, ctx.attempt === 1 ? ctx : { signal, attempt: 1 }), signal);
    // 4. Its outcome: the result, or the retries (#afterFirstValue, #retry).
    if (!this.#handlersInUse) {
      this.#handlersInUse = true;
      this.#handlersFn = fn;
      this.#handlersSignal = signal;
      return first.then(this.#onFirstValue as (value: T) => T | Promise<T>, this.#onFirstError as (error: unknown) => T | Promise<T>);
    }
    return first.then(
      (value) => this.#afterFirstValue(fn, signal, value),
      (error: unknown) => this.#retry(fn, signal, true, error),
    );
  }

  // Attempt 1's two outcome handlers, built once per Retry and lent to one call at a time, so
  // that a call that succeeds at once allocates no closure: the call that finds them free takes
  // them (its `fn` and signal kept below) and frees them the moment its attempt 1 settles; a
  // call that finds them in use makes a pair of its own.
  #handlersInUse = false;
  #handlersFn: PolicyFn<unknown> | undefined;
  #handlersSignal: AbortSignal = NEVER_ABORTED;
  readonly #onFirstValue = (value: unknown): unknown => {
    const fn = this.#handlersFn!;
    const signal = this.#handlersSignal;
    this.#freeHandlers();
    return this.#afterFirstValue(fn, signal, value);
  };
  readonly #onFirstError = (error: unknown): unknown => {
    const fn = this.#handlersFn!;
    const signal = this.#handlersSignal;
    this.#freeHandlers();
    return this.#retry(fn, signal, true, error);
  };

  #freeHandlers(): void {
    this.#handlersInUse = false;
    this.#handlersFn = undefined;
    this.#handlersSignal = NEVER_ABORTED;
  }

  /** Attempt 1 resolved with `value`: the result, unless `retryOnResult` wants it retried. */
  #afterFirstValue<T>(fn: PolicyFn<T>, signal: AbortSignal, value: T): T | Promise<T> {
    if (this.config.retryOnResult !== undefined && this.#rules.retriesResult(value)) return this.#retry(fn, signal, false, value);
    this.#recorder.succeeded(1);
    return value;
  }

  /**
   * Attempt 1 failed with `outcome` (an error when `failedWithError`, else a value to retry).
   * As p-retry does after each failed attempt, the call decides and waits (`shouldRetry`); if it
   * goes on, p-retry's loop runs attempts 2..maxAttempts and asks the call again after each
   * failure. An attempt that gives a result ends the call with it; a loop that stops without
   * one ends it with the last error or value (`end`). Runs in a handler of attempt 1's `then`,
   * so an `end` that throws rejects the call's promise.
   */
  #retry<T>(fn: PolicyFn<T>, signal: AbortSignal, failedWithError: boolean, outcome: unknown): T | Promise<T> {
    const call = new RetriedCall<T>(this.#rules, this.#recorder, fn, signal, failedWithError, outcome);
    const goOn = call.shouldRetry(); // a plain boolean when there is no wait
    if (goOn === false) return call.end();
    const options = this.#loopOptions;
    if (goOn === true) return runAttemptsAfterFirst(call, options);
    return goOn.then((waited) => (waited ? runAttemptsAfterFirst(call, options) : call.end()));
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
}
