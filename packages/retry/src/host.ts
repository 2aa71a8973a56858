import { callbackThrew, describeValue, EventPublisher, MaxRetriesExceededError, warnOnce } from '@breakwater/core';
import type { Options as PRetryOptions, RetryContext } from 'p-retry';
import type { ResolvedRetryConfig } from './config.js';
import { RETRY_EVENT_TYPES, type RetryEvents, type RetryMetrics } from './events.js';
import type { IntervalState } from './interval-function.js';

/**
 * The error p-retry sees for every failed attempt of one call: always an `Error` and never a
 * `TypeError`, so none of p-retry's own rules (no retry of TypeErrors, non-errors wrapped in a
 * TypeError) applies; the real outcome stays on the {@link Run}. Never reaches a caller.
 */
export class AttemptFailed extends Error {
  override name = 'AttemptFailed';
  constructor(readonly run: Run) {
    super('a Breakwater retry attempt failed (internal; never surfaces)');
  }

  /**
   * The carrier of one run, made without running the `Error` constructor (which costs about
   * 0.4 µs even with no stack): an object of this class — so `instanceof Error` holds, all
   * p-retry asks of it — that holds its run. It never leaves the Retry.
   */
  static of(run: Run): AttemptFailed {
    const carrier = Object.create(AttemptFailed.prototype) as { run: Run };
    carrier.run = run;
    return carrier as AttemptFailed;
  }
}

/** The part of a retried call that p-retry's `shouldRetry` talks to. */
export interface Run {
  /** Decides after the current failed attempt, waits if it retries; never rejects. */
  next(): boolean | Promise<boolean>;
}

/**
 * Everything the calls of one Retry share: the resolved config, counters, events and the
 * p-retry options (built once).
 */
export class RetryHost {
  readonly events: EventPublisher<RetryEvents>;
  /** `Retry 'pg'`: how messages and warnings name this retry. */
  readonly source: string;
  /** Options for the attempts after the first (our first attempt is not p-retry's), or none with maxAttempts 1. */
  readonly pRetryOptions: PRetryOptions | undefined;
  #successWithout = 0;
  #successWith = 0;
  #failedWithout = 0;
  #failedWith = 0;

  constructor(
    readonly name: string,
    readonly config: ResolvedRetryConfig,
  ) {
    this.source = `Retry '${name}'`;
    this.events = new EventPublisher<RetryEvents>(name, config.clock, this.source, RETRY_EVENT_TYPES);
    this.pRetryOptions =
      config.maxAttempts < 2
        ? undefined
        : {
            // p-retry makes attempts 2..maxAttempts: its own first one plus maxAttempts − 2 retries.
            retries: config.maxAttempts - 2,
            // Our waits run on the injected clock inside shouldRetry; p-retry's own delay is 0,
            // which p-retry 7.1.1 skips without calling setTimeout.
            minTimeout: 0,
            maxTimeout: 0,
            factor: 1,
            randomize: false,
            maxRetryTime: Infinity,
            // Every option p-retry defaults is given (and the object is not frozen): p-retry
            // copies its options and fills in the missing ones on every call, and adding a
            // property to that copy costs it microseconds.
            onFailedAttempt: noop,
            shouldConsumeRetry: always,
            shouldRetry: shouldRetry,
          };
  }

  get metrics(): RetryMetrics {
    return {
      numberOfSuccessfulCallsWithoutRetryAttempt: this.#successWithout,
      numberOfSuccessfulCallsWithRetryAttempt: this.#successWith,
      numberOfFailedCallsWithoutRetryAttempt: this.#failedWithout,
      numberOfFailedCallsWithRetryAttempt: this.#failedWith,
    };
  }

  succeeded(attempts: number): void {
    if (attempts > 1) this.#successWith++;
    else this.#successWithout++;
    if (this.events.wants('success')) this.events.emit('success', { attempts });
  }

  failed(attempts: number, error: unknown): void {
    this.#countFailure(attempts);
    if (this.events.wants('error')) this.events.emit('error', { attempts, error });
  }

  /** A value still to be retried after the last attempt, returned to the caller (failAfterMaxAttempts false). */
  failedWithResult(attempts: number, value: unknown): void {
    this.#countFailure(attempts);
    if (this.events.wants('error')) this.events.emit('error', { attempts, error: new MaxRetriesExceededError(this.name, attempts, value) });
  }

  ignored(attempts: number, error: unknown): void {
    this.#countFailure(attempts);
    if (this.events.wants('ignoredError')) this.events.emit('ignoredError', { error });
  }

  #countFailure(attempts: number): void {
    if (attempts > 1) this.#failedWith++;
    else this.#failedWithout++;
  }

  /**
   * Whether `error` is to be retried. A throwing predicate (`retryOnException`, or an error
   * class's own `instanceof` check) is contained: reported once, and the error is not retried —
   * the caller gets it as it was thrown.
   */
  isRetryable(error: unknown): boolean {
    const config = this.config;
    try {
      return config.isRetryable(error);
    } catch (thrown) {
      const option = config.retryOnException !== undefined ? 'retryOnException' : 'retryExceptions / ignoreExceptions';
      callbackThrew(this.source, option, config.retryOnException ?? config.isRetryable, thrown, 'the error is not retried: the call ends with it, as it was thrown');
      return false;
    }
  }

  /**
   * Whether `retryOnResult` (which must be set) asks to retry `value`. A throwing predicate is
   * contained: reported once, and the value is not retried — it is the call's result.
   */
  retriesResult(value: unknown): boolean {
    const retryOnResult = this.config.retryOnResult!;
    try {
      return retryOnResult(value) as boolean;
    } catch (error) {
      callbackThrew(this.source, 'retryOnResult', retryOnResult, error, 'the value is not retried: the call resolves with it');
      return false;
    }
  }

  /** `consumeResultBeforeRetryAttempt(attempt, value)`, if set; a throw is reported once and the retry goes on. */
  consume(attempt: number, value: unknown): void {
    const consume = this.config.consumeResultBeforeRetryAttempt;
    if (consume === undefined) return;
    try {
      consume(attempt, value);
    } catch (error) {
      callbackThrew(this.source, 'consumeResultBeforeRetryAttempt', consume, error, 'the retry goes on as if it had returned');
    }
  }

  /**
   * The wait after failed attempt `attempt`: a finite number of ms >= 0. An interval function
   * that throws or returns anything else (NaN, Infinity, a negative number, a non-number) is
   * reported once, and the call waits what it waited before this attempt (`waitDuration` before
   * the first wait) instead.
   */
  waitAfter(attempt: number, failedWithError: boolean, outcome: unknown, state: IntervalState): number {
    const { intervalBiFunction, intervalFunction, waitDuration } = this.config;
    let ms: unknown;
    let fn: object;
    let option: string;
    try {
      if (intervalBiFunction !== undefined) {
        fn = intervalBiFunction;
        option = 'intervalBiFunction';
        ms = intervalBiFunction(attempt, failedWithError ? { error: outcome } : { result: outcome }, state);
      } else if (intervalFunction !== undefined) {
        fn = intervalFunction;
        option = 'intervalFunction';
        ms = intervalFunction(attempt, state);
      } else return waitDuration;
    } catch (error) {
      callbackThrew(this.source, option!, fn!, error, FALLBACK_WAIT);
      return fallbackWait(attempt, state, waitDuration);
    }
    if (typeof ms !== 'number' || !(ms >= 0) || ms === Infinity) {
      warnOnce(
        fn,
        `${this.source}: ${option} returned ${describeValue(ms)} for attempt ${attempt}; it must return a finite number of ms >= 0: ${FALLBACK_WAIT} (reported once)`,
        'BreakwaterCallbackWarning',
      );
      return fallbackWait(attempt, state, waitDuration);
    }
    return ms;
  }
}

const FALLBACK_WAIT = 'the retry waits as long as it did before this attempt instead (waitDuration before the first wait)';

/** The wait taken before attempt `attempt` in this call, or `waitDuration` before the first wait. */
function fallbackWait(attempt: number, state: IntervalState, waitDuration: number): number {
  return attempt > 1 ? state.previousWaitMs : waitDuration;
}

function noop(): void {}

function always(): boolean {
  return true;
}

function shouldRetry(context: RetryContext): boolean | Promise<boolean> {
  return (context.error as AttemptFailed).run.next();
}
