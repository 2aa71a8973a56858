import type { AdaptiveThrottle } from '@breakwater/adaptive';
import { BulkheadFullError, CallNotPermittedError, RequestNotPermittedError } from '@breakwater/core';
import type { Frame } from '../frame.js';
import { CODE } from '../outcome-codes.js';
import type { LayerDriver, LayerHost } from './driver.js';

/**
 * The real adaptive throttle (Google SRE's client-side throttling) through its token API: a call
 * is let through or rejected locally (`tryAcquire()`, drawing from the run's seeded random; a local
 * rejection counts as a request at once); when the call below ends its token is settled as the
 * throttle's `execute` settles it, the request counted then in the bucket of its start — accepted on
 * a result or an error its `isDrop` does not accept, rejected (by the backend) on one it does,
 * ignored when a time limiter above cancelled it or a Breakwater layer inside refused it (a
 * breaker, a bulkhead, a rate or adaptive limiter: the backend never saw the call).
 */
export class ThrottleDriver implements LayerDriver {
  readonly #throttle: AdaptiveThrottle;
  readonly #host: LayerHost;
  /** Whether each outcome code's error is the backend refusing the request. */
  readonly #drop: boolean[];
  /** Whether each outcome code's error is a refusal by a layer inside (the throttle does not count the request). */
  readonly #local: boolean[];

  constructor(throttle: AdaptiveThrottle, host: LayerHost) {
    this.#throttle = throttle;
    this.#host = host;
    const isDrop = throttle.config.isDrop;
    this.#drop = host.errors.map((e) => e !== undefined && isDrop(e) === true);
    this.#local = host.errors.map((e) => e instanceof CallNotPermittedError || e instanceof BulkheadFullError || e instanceof RequestNotPermittedError);
  }

  enter(frame: Frame): void {
    const token = this.#throttle.tryAcquire();
    if (token === null) return this.#host.complete(frame, CODE.limited);
    frame.throttleToken = token;
    this.#host.spawn(frame);
  }

  childEnded(frame: Frame, code: number): void {
    const token = frame.throttleToken!;
    frame.throttleToken = null;
    if (frame.aborted || this.#local[code]) token.onIgnore();
    else if (code !== CODE.ok && this.#drop[code]) token.onRejected();
    else token.onAccepted();
    this.#host.complete(frame, code);
  }

  wake(): void {}

  cancel(): void {}
}
