import type { TimeLimiter } from '@breakwater/time-limiter';
import type { Frame } from '../frame.js';
import { CODE } from '../outcome-codes.js';
import type { LayerDriver, LayerHost } from './driver.js';

/** A time limiter, as its resolved config says (`timeoutDuration`, `cancelRunningFuture`): a wake-up at the time-out. */
export class TimeLimiterDriver implements LayerDriver {
  readonly #host: LayerHost;
  readonly #timeoutMs: number;
  readonly #cancels: boolean;

  constructor(timeLimiter: TimeLimiter, host: LayerHost) {
    this.#host = host;
    this.#timeoutMs = timeLimiter.config.timeoutDuration;
    this.#cancels = timeLimiter.config.cancelRunningFuture;
  }

  enter(frame: Frame): void {
    const host = this.#host;
    host.wakeAt(frame, host.now() + this.#timeoutMs);
    host.spawn(frame);
  }

  childEnded(frame: Frame, code: number): void {
    if (frame.settled) return; // it already timed out: the late outcome is dropped
    this.#host.cancelWake(frame);
    this.#host.complete(frame, code);
  }

  /** It gives up: it cancels what runs below it (as `cancelRunningFuture` does), then fails its caller. */
  wake(frame: Frame): void {
    const host = this.#host;
    host.timeouts++;
    host.tally(frame).timeouts++;
    frame.settled = true;
    if (this.#cancels) host.cancelBelow(frame, CODE.timeout);
    host.complete(frame, CODE.timeout);
  }

  cancel(): void {}
}
