import { CallNotPermittedError, MaxRetriesExceededError, sleep, type PolicyFn } from '@breakwater/core';
import { invoke, NEVER_ABORTED, raceAbort, withoutStack } from '@breakwater/core/internal';
import type { IntervalState } from './interval-function.js';
import type { LoopedCall } from './p-retry.js';
import type { CallRecorder } from './recorder.js';
import type { RetryRules } from './rules.js';

/** Why a retried call stopped retrying, once known. */
type StopReason =
  /** The latest error is not to be retried. */
  | 'notRetryable'
  /** The last attempt failed and would have been retried. */
  | 'exhausted'
  /** The budget refused the retry: ends like 'exhausted', at this attempt. */
  | 'budgetRefused'
  /** The caller's signal aborted. */
  | 'aborted'
  /**
   * Deciding threw although every user callback is contained (a user clock read by the budget
   * that throws): the call ends with that error.
   */
  | 'crashed';

/** The {@link IntervalState} of one call: the Retry's random source and the wait it took last. */
class CallIntervalState implements IntervalState {
  previousWaitMs = 0;
  constructor(readonly random: () => number) {}
}

/**
 * One call from its first failed attempt on. It holds the outcome of the latest attempt, runs
 * the next ones ({@link runAttempt}), decides after each failure with the Resilience4j rules and
 * waits on the injected clock ({@link shouldRetry}, p-retry's `shouldRetry`), and however it
 * stops, ends the call ({@link end}): counts it once, publishes its last event and gives the
 * caller the outcome as it was thrown or resolved.
 */
export class RetriedCall<T> implements LoopedCall<T> {
  readonly #rules: RetryRules;
  readonly #recorder: CallRecorder;
  readonly #fn: PolicyFn<T>;
  readonly #signal: AbortSignal;
  readonly #intervalState: CallIntervalState;
  /** Attempts made so far (the latest one's number). */
  #attempts = 1;
  /** Whether the latest attempt threw or rejected (else it resolved with a value to retry)… */
  #failedWithError: boolean;
  /** …and its error, or that value. */
  #outcome: unknown;
  /** Whether an attempt of this call failed with an error that was not a `CallNotPermittedError`… */
  #hasEarlierError = false;
  /** …and the latest such error: the `cause` given to a breaker's refusal that ends the call. */
  #earlierError: unknown;
  #stopReason: StopReason | undefined;
  /** The error of a 'crashed' stop. */
  #crashError: unknown;

  constructor(rules: RetryRules, recorder: CallRecorder, fn: PolicyFn<T>, signal: AbortSignal, failedWithError: boolean, outcome: unknown) {
    this.#rules = rules;
    this.#recorder = recorder;
    this.#fn = fn;
    this.#signal = signal;
    this.#failedWithError = failedWithError;
    this.#outcome = outcome;
    if (failedWithError) this.#rememberError(outcome);
    this.#intervalState = new CallIntervalState(rules.config.random);
    if (signal.aborted) this.#stopReason = 'aborted';
  }

  /**
   * Runs attempt `attempt`: resolves with its value when that is the call's result, rejects with
   * `failed` when it is to be judged (the outcome is kept here). Not an async function and no
   * throw: a failed attempt rejects the promise p-retry is already awaiting (a throw costs V8
   * some 0.4 µs; a promise rejected before it has a handler costs Node's unhandled-rejection
   * bookkeeping as much).
   */
  runAttempt(attempt: number, failed: Error): Promise<T> {
    const signal = this.#signal;
    if (signal.aborted) {
      this.#stopReason = 'aborted';
      return Promise.reject(failed);
    }
    this.#attempts = attempt;
    return new Promise<T>((resolve, reject) => {
      // The caller's abort ends the attempt at once, even if `fn` does not stop.
      raceAbort(invoke(this.#fn, { signal, attempt }), signal).then(
        (value) => {
          if (this.#isResult(value)) resolve(value);
          else reject(failed);
        },
        (error: unknown) => {
          this.#failedWithError = true;
          this.#outcome = error;
          this.#rememberError(error);
          if (signal.aborted) this.#stopReason = 'aborted';
          reject(failed);
        },
      );
    });
  }

  /** The latest attempt resolved with `value`: true when that is the call's result, false when it is to be retried. */
  #isResult(value: T): boolean {
    const rules = this.#rules;
    if (rules.config.retryOnResult !== undefined && rules.retriesResult(value)) {
      this.#failedWithError = false;
      this.#outcome = value;
      return false;
    }
    this.#recorder.succeeded(this.#attempts);
    return true;
  }

  /** Keeps the latest error that was not a breaker's refusal (what a refusal that ends the call was refused after). */
  #rememberError(error: unknown): void {
    if (error instanceof CallNotPermittedError) return;
    this.#hasEarlierError = true;
    this.#earlierError = error;
  }

  /**
   * After a failed attempt, in Resilience4j's order: the rules, the budget, `consumeResult…`,
   * the wait and the `retry` event, then the wait itself. `true` once the wait is over (a promise
   * of it when there is a wait; a plain `true` when there is none), `false` when the call stops
   * here (its stop reason is then set). Never throws nor rejects.
   */
  shouldRetry(): boolean | Promise<boolean> {
    if (this.#stopReason !== undefined) return false;
    const rules = this.#rules;
    const budget = rules.config.budget;
    const attempt = this.#attempts;
    let waitMs: number;
    try {
      const stop = this.#stopByRules();
      if (stop !== undefined) {
        this.#stopReason = stop;
        return false;
      }
      if (budget !== undefined && !budget.tryRetry()) {
        this.#stopReason = 'budgetRefused';
        return false;
      }
      const failedWithError = this.#failedWithError;
      const outcome = this.#outcome;
      if (!failedWithError) rules.consumeResult(attempt, outcome);
      waitMs = rules.waitAfter(attempt, failedWithError, outcome, this.#intervalState);
      const events = this.#recorder.events;
      if (events.wants('retry')) {
        events.emit('retry', failedWithError ? { attempt, error: outcome, waitMs } : { attempt, result: outcome, waitMs });
      }
    } catch (error) {
      this.#stopOnThrow(error);
      return false;
    }
    if (waitMs > 0) return this.#waitThenGoOn(waitMs);
    this.#intervalState.previousWaitMs = waitMs;
    return this.#mayGoOn();
  }

  /** Waits `waitMs` on the clock (the caller's abort ends the wait), then as {@link shouldRetry}. */
  async #waitThenGoOn(waitMs: number): Promise<boolean> {
    const signal = this.#signal;
    try {
      await sleep(this.#rules.config.clock, waitMs, signal === NEVER_ABORTED ? undefined : signal);
      this.#intervalState.previousWaitMs = waitMs;
    } catch (error) {
      this.#stopOnThrow(error);
      return false;
    }
    return this.#mayGoOn();
  }

  /** The next attempt may start, unless the caller has aborted meanwhile. */
  #mayGoOn(): boolean {
    if (this.#signal.aborted) {
      this.#stopReason = 'aborted';
      return false;
    }
    return true;
  }

  /** Deciding or waiting threw: the caller's abort (or, defensively, an error of a user's clock). */
  #stopOnThrow(error: unknown): void {
    if (this.#signal.aborted) {
      this.#stopReason = 'aborted';
    } else {
      this.#stopReason = 'crashed';
      this.#crashError = error;
    }
  }

  /**
   * The Resilience4j rules after the failed attempt `#attempts`: an error not to be retried
   * stops the call ('notRetryable'), anything at the last attempt too ('exhausted');
   * `undefined` means retry. (A value got here only because `retryOnResult` asked to retry it.)
   * Never throws: a throwing predicate is contained by the rules (the error is not retried).
   */
  #stopByRules(): 'notRetryable' | 'exhausted' | undefined {
    if (this.#failedWithError && !this.#rules.isRetryable(this.#outcome)) return 'notRetryable';
    if (this.#attempts >= this.#rules.config.maxAttempts) return 'exhausted';
    return undefined;
  }

  /** Ends the call without a result of an attempt: counts it once, publishes its last event, and returns or throws its outcome. */
  end(): T {
    // p-retry stopped on its own (no retries left): the last attempt failed; judge it as the last one.
    const reason = this.#stopReason ?? this.#stopByRules() ?? 'exhausted';
    const recorder = this.#recorder;
    const attempts = this.#attempts;
    switch (reason) {
      case 'aborted': {
        const signalReason: unknown = this.#signal.reason;
        recorder.failed(attempts, signalReason);
        throw signalReason;
      }
      case 'crashed':
        recorder.failed(attempts, this.#crashError);
        throw this.#crashError;
      case 'notRetryable': {
        const error = this.#withCause(this.#outcome);
        recorder.ignored(attempts, error);
        throw error;
      }
      case 'exhausted':
      case 'budgetRefused':
        if (this.#failedWithError) {
          const error = this.#withCause(this.#outcome);
          recorder.failed(attempts, error);
          throw error;
        }
        if (this.#rules.config.failAfterMaxAttempts) {
          const error = new MaxRetriesExceededError(recorder.name, attempts, this.#outcome);
          recorder.failed(attempts, error);
          throw error;
        }
        recorder.failedWithResult(attempts, this.#outcome);
        return this.#outcome as T;
    }
  }

  /**
   * The error the caller gets: `error` as it was thrown, except a breaker's refusal
   * (`CallNotPermittedError`) that ends a call after an attempt failed with another error — the
   * gateway's error that opened the breaker. The caller then gets a copy of the refusal (same
   * class, fields, message and stack) whose `cause` is that error, so it stays reachable; the
   * refusal itself is never changed (it may be shared). A refusal that has a `cause` of its own
   * is rethrown as it is.
   */
  #withCause(error: unknown): unknown {
    if (!this.#hasEarlierError || !(error instanceof CallNotPermittedError) || 'cause' in error) return error;
    return copyWithCause(error, this.#earlierError);
  }
}

/**
 * A real `Error` (so `util.types.isNativeError` holds) with `error`'s prototype, own properties
 * and stack, and `cause` (own, not enumerable, as `new Error(message, { cause })` sets it).
 * Built without capturing a stack of its own.
 */
function copyWithCause<E extends Error>(error: E, cause: unknown): E {
  const copy = withoutStack(() => new Error(error.message, { cause }));
  Object.setPrototypeOf(copy, Object.getPrototypeOf(error) as object);
  for (const key of Reflect.ownKeys(error)) {
    if (key === 'cause' || key === 'stack') continue;
    Object.defineProperty(copy, key, Object.getOwnPropertyDescriptor(error, key)!);
  }
  Object.defineProperty(copy, 'stack', { value: error.stack, writable: true, enumerable: false, configurable: true });
  return copy as E;
}
