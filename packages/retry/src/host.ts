import { describeValue, EventPublisher, MaxRetriesExceededError } from '@breakwater/core';
import type { Options as PRetryOptions, RetryContext } from 'p-retry';
import type { ResolvedRetryConfig } from './config.js';
import type { RetryEvents, RetryMetrics } from './events.js';
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
    this.events = new EventPublisher<RetryEvents>(name, config.clock, `Retry '${name}'`);
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

  /** The wait after failed attempt `attempt`, checked: a finite number of ms >= 0. */
  waitAfter(attempt: number, failedWithError: boolean, outcome: unknown, state: IntervalState): number {
    const { intervalBiFunction, intervalFunction, waitDuration } = this.config;
    let ms: unknown;
    let source: string;
    if (intervalBiFunction !== undefined) {
      ms = intervalBiFunction(attempt, failedWithError ? { error: outcome } : { result: outcome }, state);
      source = 'intervalBiFunction';
    } else if (intervalFunction !== undefined) {
      ms = intervalFunction(attempt, state);
      source = 'intervalFunction';
    } else return waitDuration;
    if (typeof ms !== 'number' || !(ms >= 0) || ms === Infinity) {
      throw new RangeError(`Retry '${this.name}': ${source} returned ${describeValue(ms)} for attempt ${attempt}; it must return a finite number of ms >= 0`);
    }
    return ms;
  }
}

function noop(): void {}

function always(): boolean {
  return true;
}

function shouldRetry(context: RetryContext): boolean | Promise<boolean> {
  return (context.error as AttemptFailed).run.next();
}
