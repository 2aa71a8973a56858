import type { CallContext } from '@breakwater/core';

/**
 * One attempt's context: its number, and a signal of its own that aborts when the attempt loses
 * or the caller aborts. The signal is made the first time it is read (an `AbortController` costs
 * microseconds to build in Node 20, more than the rest of a call): an attempt whose function never
 * reads `ctx.signal` costs none, and one read after the attempt was aborted gets a signal aborted
 * already, with the same reason (as the time limiter's context does).
 */
export class HedgeAttempt implements CallContext {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  constructor(readonly attempt: number) {}

  get signal(): AbortSignal {
    let controller = this.#controller;
    if (controller === undefined) {
      controller = this.#controller = new AbortController();
      if (this.#aborted) controller.abort(this.#reason);
    }
    return controller.signal;
  }

  /** Aborts the attempt's signal with `reason` (once: a second abort is ignored). */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

/**
 * The reason a losing attempt's signal aborts with: an `AbortError` (what `fetch` and Node's
 * APIs reject with when their signal aborts) that says why.
 */
export function lostReason(attempt: number, winner: number): DOMException {
  return new DOMException(`hedged attempt ${attempt} lost: the call took attempt ${winner}'s outcome`, 'AbortError');
}
