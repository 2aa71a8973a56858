import type { AdaptiveLimiter } from '@breakwater/adaptive';
import { TimeoutError } from '@breakwater/core';
import { AdaptiveGate } from '../adaptive-gate.js';
import type { Frame } from '../frame.js';
import { CODE } from '../outcome-codes.js';
import type { LayerDriver, LayerHost } from './driver.js';

/**
 * The real adaptive limiter through its token API and an {@link AdaptiveGate}: a call takes a slot
 * (`tryAcquire()`) or waits for one; when the call below ends its token is settled as the
 * limiter's `execute` settles it — a success with its round-trip time, a drop (a time-out, or an
 * error the limiter's `isDrop` accepts: in a scenario, the backend's 503), else ignored; a call a
 * time limiter above cancelled is ignored — and the freed slot (or a grown limit) goes to waiters.
 */
export class AdaptiveLimiterDriver implements LayerDriver {
  readonly #gate: AdaptiveGate;
  readonly #host: LayerHost;
  /** Whether each outcome code's error is a drop for this limiter. */
  readonly #drop: boolean[];

  constructor(limiter: AdaptiveLimiter, host: LayerHost) {
    this.#gate = new AdaptiveGate(limiter);
    this.#host = host;
    const isDrop = limiter.config.isDrop;
    this.#drop = host.errors.map((e) => e instanceof TimeoutError || (e !== undefined && isDrop?.(e) === true));
  }

  enter(frame: Frame): void {
    const host = this.#host;
    const admitted = this.#gate.enter(frame);
    if (admitted < 0) return host.complete(frame, CODE.limited);
    if (admitted === 0) {
      if (this.#gate.maxWait !== Infinity) host.wakeAt(frame, host.now() + this.#gate.maxWait);
      return;
    }
    host.spawn(frame);
  }

  childEnded(frame: Frame, code: number): void {
    const host = this.#host;
    const token = frame.token!;
    frame.token = null;
    if (frame.aborted) token.onIgnore();
    else if (code === CODE.ok) token.onSuccess();
    else if (this.#drop[code]) token.onDropped();
    else token.onIgnore();
    for (let next = this.#gate.next(); next !== null; next = this.#gate.next()) {
      host.cancelWake(next);
      host.spawn(next);
    }
    host.complete(frame, code);
  }

  /** A waiter's maxWaitDuration ran out. */
  wake(frame: Frame): void {
    this.#gate.expire(frame);
    this.#host.complete(frame, CODE.limited);
  }

  /** A waiter leaves the queue at once. */
  cancel(frame: Frame): void {
    this.#gate.leave(frame);
  }
}
