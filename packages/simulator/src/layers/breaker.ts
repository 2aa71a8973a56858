import type { CircuitBreaker } from '@breakwater/circuit-breaker';
import type { Frame } from '../frame.js';
import { CODE } from '../outcome-codes.js';
import type { LayerDriver, LayerHost } from './driver.js';

/** The real circuit breaker, driven through its permission API (`tryAcquirePermission`, `onSuccess`, `onError`). */
export class BreakerDriver implements LayerDriver {
  readonly #breaker: CircuitBreaker;
  readonly #host: LayerHost;
  /** The breaker's state changes so far: which state permitted a call (only a HALF_OPEN's own trial permits go back to it). */
  #states = 0;

  constructor(breaker: CircuitBreaker, host: LayerHost) {
    this.#breaker = breaker;
    this.#host = host;
    breaker.on('stateTransition', () => void this.#states++);
  }

  enter(frame: Frame): void {
    const host = this.#host;
    host.tally(frame).breakerCalls++;
    if (!this.#breaker.tryAcquirePermission()) return host.complete(frame, CODE.rejected);
    frame.startedAt = host.now();
    frame.attempt = this.#states;
    host.spawn(frame);
  }

  childEnded(frame: Frame, code: number): void {
    const host = this.#host;
    const breaker = this.#breaker;
    // A call cancelled from above (a time limiter outside the breaker, a hedge's loser) says nothing
    // about the backend: as the breaker's execute does, nothing is recorded and its permit is given
    // back — to the state that gave it (a later HALF_OPEN has fresh permits of its own).
    if (frame.aborted) {
      if (frame.attempt === this.#states) breaker.releasePermission();
      return host.complete(frame, code);
    }
    const elapsed = host.now() - frame.startedAt;
    if (code === CODE.ok) breaker.onSuccess(elapsed);
    else breaker.onError(elapsed, host.errors[code]);
    if (code !== CODE.timeout && elapsed > breaker.config.slowCallDurationThreshold) {
      const state = breaker.state;
      if (state !== 'DISABLED' && state !== 'FORCED_OPEN') host.tally(frame).slow++;
    }
    host.complete(frame, code);
  }

  wake(): void {}

  cancel(): void {}
}
