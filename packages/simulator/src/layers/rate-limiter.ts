import type { RateLimiter } from '@breakwater/rate-limiter';
import type { Frame } from '../frame.js';
import { LimiterGate } from '../gates.js';
import { CODE } from '../outcome-codes.js';
import type { LayerDriver, LayerHost } from './driver.js';

/** The real rate limiter through a {@link LimiterGate}: a call that waits for its reserved permit wakes when it is there. */
export class RateLimiterDriver implements LayerDriver {
  readonly #gate: LimiterGate;
  readonly #host: LayerHost;

  constructor(limiter: RateLimiter, host: LayerHost) {
    this.#gate = new LimiterGate(limiter);
    this.#host = host;
  }

  enter(frame: Frame): void {
    const host = this.#host;
    const wait = this.#gate.enter(frame);
    if (wait < 0) return host.complete(frame, CODE.limited);
    if (wait > 0) return host.wakeAt(frame, host.now() + wait);
    host.spawn(frame);
  }

  childEnded(frame: Frame, code: number): void {
    this.#host.complete(frame, code);
  }

  /** The reserved permit is there: the call goes on. */
  wake(frame: Frame): void {
    this.#host.spawn(LimiterGate.granted(frame));
  }

  /** A waiter hands its permit back. */
  cancel(frame: Frame, reason: unknown): void {
    if (frame.waiter !== null) LimiterGate.abort(frame, reason);
  }
}
