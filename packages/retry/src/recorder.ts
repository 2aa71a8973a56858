import { EventPublisher, MaxRetriesExceededError, type Clock } from '@breakwater/core';
import { RETRY_EVENT_TYPES, type RetryEvents, type RetryMetrics } from './events.js';

/**
 * How the calls of one Retry end, counted and published: every call ends through exactly one of
 * {@link succeeded}, {@link failed}, {@link failedWithResult} or {@link ignored}, which counts it
 * once (by whether a second attempt ran) and publishes its last event. The `retry` event, which
 * comes before each wait, is published by the call through {@link events}.
 */
export class CallRecorder {
  readonly events: EventPublisher<RetryEvents>;
  #successWithout = 0;
  #successWith = 0;
  #failedWithout = 0;
  #failedWith = 0;

  constructor(
    readonly name: string,
    source: string,
    clock: Clock,
  ) {
    this.events = new EventPublisher<RetryEvents>(name, clock, source, RETRY_EVENT_TYPES);
  }

  get metrics(): RetryMetrics {
    return {
      numberOfSuccessfulCallsWithoutRetryAttempt: this.#successWithout,
      numberOfSuccessfulCallsWithRetryAttempt: this.#successWith,
      numberOfFailedCallsWithoutRetryAttempt: this.#failedWithout,
      numberOfFailedCallsWithRetryAttempt: this.#failedWith,
    };
  }

  /** The call resolved after `attempts` attempts. */
  succeeded(attempts: number): void {
    if (attempts > 1) this.#successWith++;
    else this.#successWithout++;
    if (this.events.wants('success')) this.events.emit('success', { attempts });
  }

  /** The call rejects with `error`: exhausted, refused by the budget, aborted, or crashed. */
  failed(attempts: number, error: unknown): void {
    this.#countFailure(attempts);
    if (this.events.wants('error')) this.events.emit('error', { attempts, error });
  }

  /** A value still to be retried after the last attempt, returned to the caller (failAfterMaxAttempts false). */
  failedWithResult(attempts: number, value: unknown): void {
    this.#countFailure(attempts);
    if (this.events.wants('error')) this.events.emit('error', { attempts, error: new MaxRetriesExceededError(this.name, attempts, value) });
  }

  /** The call rejects with `error`, which is not to be retried. */
  ignored(attempts: number, error: unknown): void {
    this.#countFailure(attempts);
    if (this.events.wants('ignoredError')) this.events.emit('ignoredError', { error });
  }

  #countFailure(attempts: number): void {
    if (attempts > 1) this.#failedWith++;
    else this.#failedWithout++;
  }
}
