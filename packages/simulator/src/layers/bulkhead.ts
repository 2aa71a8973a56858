import type { Bulkhead } from '@breakwater/bulkhead';
import type { Frame } from '../frame.js';
import { BulkheadGate } from '../gates.js';
import { CODE } from '../outcome-codes.js';
import type { LayerDriver, LayerHost } from './driver.js';

/** The real semaphore bulkhead's slots through a {@link BulkheadGate}: a waiter wakes when its `maxWaitDuration` runs out. */
export class BulkheadDriver implements LayerDriver {
  readonly #gate: BulkheadGate;
  readonly #host: LayerHost;

  constructor(bulkhead: Bulkhead, host: LayerHost) {
    this.#gate = new BulkheadGate(bulkhead);
    this.#host = host;
  }

  enter(frame: Frame): void {
    const host = this.#host;
    const admitted = this.#gate.enter(frame);
    if (admitted < 0) return host.complete(frame, CODE.full);
    if (admitted === 0) return host.wakeAt(frame, host.now() + this.#gate.maxWait);
    host.spawn(frame);
  }

  /** The slot comes back when the call below settles (even one a time limiter above gave up on), to the oldest waiter. */
  childEnded(frame: Frame, code: number): void {
    const host = this.#host;
    const next = this.#gate.release();
    if (next !== null) {
      host.cancelWake(next);
      host.spawn(next);
    }
    host.complete(frame, code);
  }

  /** A waiter's maxWaitDuration ran out. */
  wake(frame: Frame): void {
    this.#gate.leave(frame);
    this.#host.complete(frame, CODE.full);
  }

  /** A waiter leaves the queue at once. */
  cancel(frame: Frame): void {
    this.#gate.leave(frame);
  }
}
