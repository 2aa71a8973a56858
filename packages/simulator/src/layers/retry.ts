import type { Retry } from '@breakwater/retry';
import type { Frame } from '../frame.js';
import { CODE } from '../outcome-codes.js';
import { retryWait } from '../retry-wait.js';
import type { LayerDriver, LayerHost } from './driver.js';

/** A retry, as its resolved config says (attempts, waits, what is retried), without a promise per call. */
export class RetryDriver implements LayerDriver {
  readonly #retry: Retry;
  readonly #host: LayerHost;
  /** Whether the retry retries each outcome code's error. */
  readonly #retryable: boolean[];

  constructor(retry: Retry, host: LayerHost) {
    this.#retry = retry;
    this.#host = host;
    this.#retryable = host.errors.map((e) => e !== undefined && retry.config.isRetryable(e));
  }

  enter(frame: Frame): void {
    frame.attempt = 1;
    this.#host.spawn(frame);
  }

  childEnded(frame: Frame, code: number): void {
    const host = this.#host;
    const retry = this.#retry;
    if (code === CODE.ok || frame.aborted || frame.attempt >= retry.config.maxAttempts || !this.#retryable[code]) {
      return host.complete(frame, code);
    }
    const wait = retryWait(retry, frame.attempt, frame.previousWaitMs, host.errors[code], host.intervalState);
    frame.previousWaitMs = wait;
    if (wait > 0) host.wakeAt(frame, host.now() + wait);
    else this.wake(frame);
  }

  /** The wait is over: the next attempt. */
  wake(frame: Frame): void {
    frame.attempt++;
    this.#host.tally(frame).retries++;
    this.#host.spawn(frame);
  }

  cancel(): void {}
}
