import { CallNotPermittedError, MaxRetriesExceededError, NEVER_ABORTED, sleep, withoutStack, type PolicyFn } from '@breakwater/core';
import { AttemptFailed, type RetryHost, type Run } from './host.js';
import { runAttempt } from './attempt.js';
import type { IntervalState } from './interval-function.js';

/** How a retried call ends, once known. */
type Verdict =
  /** The error is not to be retried. */
  | 'ignored'
  /** The last attempt failed and is still to be retried. */
  | 'exhausted'
  /** The budget refused the retry: ends like 'exhausted', at this attempt. */
  | 'refused'
  /** The caller's signal aborted. */
  | 'aborted'
  /**
   * Deciding threw although every user callback is contained (a user clock read by the budget
   * that throws): the call ends with that error.
   */
  | 'crashed';

class WaitState implements IntervalState {
  previousWaitMs = 0;
  constructor(readonly random: () => number) {}
}

/**
 * One call from its first failed attempt on: the outcome of the latest attempt, the decision
 * after it (the Resilience4j rules) and the wait on the injected clock. p-retry runs the loop of
 * the attempts after the first ({@link input} is its input function) and asks {@link next} —
 * through its `shouldRetry` — whether to go on; every end of the call goes through
 * {@link settle}, which does the accounting and gives the caller the outcome as it was thrown
 * or resolved.
 */
export class RetryRun<T> implements Run {
  /** What p-retry sees as the error of every failed attempt of this call. */
  readonly carrier: AttemptFailed;
  readonly #host: RetryHost;
  readonly #fn: PolicyFn<T>;
  readonly #signal: AbortSignal;
  readonly #waits: WaitState;
  #attempts = 1;
  #failedWithError: boolean;
  /** The error thrown, or the value to retry, by the latest attempt. */
  #outcome: unknown;
  /** Whether an attempt of this call failed with an error that was not a `CallNotPermittedError`… */
  #hasBehind = false;
  /** …and the latest such error: the `cause` of a refusal that ends the call. */
  #behind: unknown;
  #verdict: Verdict | undefined;
  #crash: unknown;

  constructor(host: RetryHost, fn: PolicyFn<T>, signal: AbortSignal, failedWithError: boolean, outcome: unknown) {
    this.#host = host;
    this.#fn = fn;
    this.#signal = signal;
    this.#failedWithError = failedWithError;
    this.#outcome = outcome;
    if (failedWithError) this.#remember(outcome);
    this.#waits = new WaitState(host.config.random);
    this.carrier = AttemptFailed.of(this);
    if (signal.aborted) this.#verdict = 'aborted';
  }

  /** p-retry's input: runs attempt `n + 1` (p-retry's first attempt is our second). */
  readonly input = (n: number): Promise<T> => {
    // Not an async function and no throw: a failed attempt rejects the promise p-retry is
    // already awaiting through its `reject` (a throw costs V8 some 0.4 µs; a promise rejected
    // before it has a handler costs Node's unhandled-rejection bookkeeping as much).
    const attempt = n + 1;
    const signal = this.#signal;
    if (signal.aborted) {
      this.#verdict = 'aborted';
      return Promise.reject(this.carrier);
    }
    this.#attempts = attempt;
    return new Promise<T>((resolve, reject) => {
      runAttempt(this.#fn, { signal, attempt }).then(
        (value) => {
          if (this.#attemptResolved(value)) resolve(value);
          else reject(this.carrier);
        },
        (error: unknown) => {
          this.#attemptFailed(error);
          reject(this.carrier);
        },
      );
    });
  };

  /** An attempt resolved with `value`: true when that is the call's result, false when it is to be retried. */
  #attemptResolved(value: T): boolean {
    const host = this.#host;
    if (host.config.retryOnResult !== undefined && host.retriesResult(value)) {
      this.#failedWithError = false;
      this.#outcome = value;
      return false;
    }
    host.succeeded(this.#attempts);
    return true;
  }

  #attemptFailed(error: unknown): void {
    this.#failedWithError = true;
    this.#outcome = error;
    this.#remember(error);
    if (this.#signal.aborted) this.#verdict = 'aborted';
  }

  /** Keeps the latest error that was not a breaker's refusal (what a refusal that ends the call was refused after). */
  #remember(error: unknown): void {
    if (error instanceof CallNotPermittedError) return;
    this.#hasBehind = true;
    this.#behind = error;
  }

  /**
   * After a failed attempt: `true` once the wait before the next attempt is over (a promise of it
   * when there is a wait; a plain `true` when there is none), `false` when the call ends here
   * (the verdict is then set). Never throws nor rejects.
   */
  next(): boolean | Promise<boolean> {
    if (this.#verdict !== undefined) return false;
    const host = this.#host;
    const config = host.config;
    const attempt = this.#attempts;
    const signal = this.#signal;
    let waitMs: number;
    try {
      const verdict = this.#judge();
      if (verdict !== undefined) {
        this.#verdict = verdict;
        return false;
      }
      if (config.budget !== undefined && !config.budget.tryRetry()) {
        this.#verdict = 'refused';
        return false;
      }
      const failedWithError = this.#failedWithError;
      const outcome = this.#outcome;
      if (!failedWithError) host.consume(attempt, outcome);
      waitMs = host.waitAfter(attempt, failedWithError, outcome, this.#waits);
      if (host.events.wants('retry')) {
        host.events.emit('retry', failedWithError ? { attempt, error: outcome, waitMs } : { attempt, result: outcome, waitMs });
      }
    } catch (error) {
      this.#stoppedBy(error);
      return false;
    }
    if (waitMs > 0) return this.#waitThenGo(waitMs);
    this.#waits.previousWaitMs = waitMs;
    return this.#go();
  }

  /** Waits `waitMs` on the clock (the caller's abort ends the wait), then as {@link next}. */
  async #waitThenGo(waitMs: number): Promise<boolean> {
    const signal = this.#signal;
    try {
      await sleep(this.#host.config.clock, waitMs, signal === NEVER_ABORTED ? undefined : signal);
      this.#waits.previousWaitMs = waitMs;
    } catch (error) {
      this.#stoppedBy(error);
      return false;
    }
    return this.#go();
  }

  /** The next attempt may start, unless the caller has aborted meanwhile. */
  #go(): boolean {
    if (this.#signal.aborted) {
      this.#verdict = 'aborted';
      return false;
    }
    return true;
  }

  /** Deciding or waiting threw: the caller's abort (or, defensively, an error of a user's clock). */
  #stoppedBy(error: unknown): void {
    if (this.#signal.aborted) this.#verdict = 'aborted';
    else this.#crashed(error);
  }

  /** Ends the call: counts it once, publishes its last event, and returns or throws its outcome. */
  settle(): T {
    let verdict = this.#verdict;
    // p-retry stopped on its own: the last attempt failed; judge it as the last one.
    if (verdict === undefined) verdict = this.#judge() ?? 'exhausted';
    const host = this.#host;
    const attempts = this.#attempts;
    switch (verdict) {
      case 'aborted': {
        const reason: unknown = this.#signal.reason;
        host.failed(attempts, reason);
        throw reason;
      }
      case 'crashed':
        host.failed(attempts, this.#crash);
        throw this.#crash;
      case 'ignored': {
        const error = this.#withCause(this.#outcome);
        host.ignored(attempts, error);
        throw error;
      }
      case 'exhausted':
      case 'refused':
        if (this.#failedWithError) {
          const error = this.#withCause(this.#outcome);
          host.failed(attempts, error);
          throw error;
        }
        if (host.config.failAfterMaxAttempts) {
          const error = new MaxRetriesExceededError(host.name, attempts, this.#outcome);
          host.failed(attempts, error);
          throw error;
        }
        host.failedWithResult(attempts, this.#outcome);
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
    if (!this.#hasBehind || !(error instanceof CallNotPermittedError) || 'cause' in error) return error;
    return copyWithCause(error, this.#behind);
  }

  /**
   * The Resilience4j rules after the failed attempt `#attempts`: an error not to be retried is
   * 'ignored', anything at the last attempt is 'exhausted'; `undefined` means retry. (A value
   * got here only because `retryOnResult` asked to retry it.) Never throws: a throwing
   * predicate is contained by the host (the error is not retried).
   */
  #judge(): Verdict | undefined {
    if (this.#failedWithError && !this.#host.isRetryable(this.#outcome)) return 'ignored';
    if (this.#attempts >= this.#host.config.maxAttempts) return 'exhausted';
    return undefined;
  }

  #crashed(error: unknown): void {
    this.#verdict = 'crashed';
    this.#crash = error;
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
