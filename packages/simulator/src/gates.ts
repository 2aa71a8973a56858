// The engine's side of the two admission layers: a rate limiter (the real RateLimiter) and a
// semaphore bulkhead (the real Bulkhead's slots, with the FIFO of waiters kept here, as the
// library's fair hand-over orders them).
import type { Bulkhead } from '@breakwater/bulkhead';
import type { RateLimiter } from '@breakwater/rate-limiter';
import type { Frame } from './frame.js';
import { FrameQueue } from './frame-queue.js';

const ignore = (): void => undefined;

/**
 * One rate limiter. A call that gets its permit now or is refused goes through the limiter's
 * synchronous `reservePermission(1)` (0 or -1). A call that must wait goes through
 * `acquirePermission(1, { signal })`, as the library's `execute` does: the permit is reserved at
 * once, the limiter's own waiter is a timer on the run's VirtualClock (it fires as the engine
 * moves the clock), and the engine wakes the call with a GRANT event at the same time. A time
 * limiter above that aborts the call aborts that signal, so the limiter hands the permit back
 * exactly as it does for an aborted `execute` (when no later reservation stands on it).
 * `reservePermission` alone could not: its reservations are never handed back.
 */
export class LimiterGate {
  readonly #limiter: RateLimiter;

  constructor(limiter: RateLimiter) {
    this.#limiter = limiter;
  }

  /** A call arrives: 0 it goes on now, -1 refused (RequestNotPermittedError), else the ms it waits for its reserved permit. */
  enter(frame: Frame): number {
    const limiter = this.#limiter;
    const wait = limiter.metrics.waitMs; // what the reservation computes now, for one permit
    if (wait === 0 || wait > limiter.config.timeoutDuration) return limiter.reservePermission(1);
    const waiter = new AbortController();
    frame.waiter = waiter;
    limiter.acquirePermission(1, { signal: waiter.signal }).then(ignore, ignore);
    return wait;
  }

  /** A waiting call's permit is there (the limiter's own waiter was granted at this instant too): returns the frame, to go on. */
  static granted(frame: Frame): Frame {
    frame.waiter = null;
    return frame;
  }

  /** A waiting call is aborted (a time limiter above cancels it): the limiter hands its permit back if it can. */
  static abort(frame: Frame, reason: unknown): void {
    frame.waiter!.abort(reason);
    frame.waiter = null;
  }
}

/**
 * The waiters of one semaphore bulkhead. Slots are the real Bulkhead's (`tryAcquirePermission`,
 * `onComplete`); the library keeps its waiters in a promise queue, which a synchronous engine
 * cannot use, so they wait here, oldest first, and a freed slot goes straight to the oldest
 * (the library's `fairCallHandlingEnabled: true`, its default). No newcomer takes a slot while
 * anyone waits.
 */
export class BulkheadGate {
  readonly maxWait: number;
  readonly #bulkhead: Bulkhead;
  readonly #queue = new FrameQueue();

  constructor(bulkhead: Bulkhead) {
    this.#bulkhead = bulkhead;
    this.maxWait = bulkhead.config.maxWaitDuration;
  }

  /** A call arrives: 1 it runs now (it holds a slot), 0 it waits (the engine arms its maxWaitDuration), -1 refused (BulkheadFullError). */
  enter(frame: Frame): number {
    const bulkhead = this.#bulkhead;
    if (this.#queue.size === 0 && bulkhead.metrics.availableConcurrentCalls > 0) return bulkhead.tryAcquirePermission() ? 1 : -1;
    if (this.maxWait === 0) {
      bulkhead.tryAcquirePermission(); // refused, as the library's execute is (publishes callRejected)
      return -1;
    }
    this.#queue.add(frame);
    return 0;
  }

  /** A waiter leaves the queue: its wait ran out, or a time limiter above aborted it. */
  leave(frame: Frame): void {
    this.#queue.remove(frame);
  }

  /** A call that held a slot settled: the slot comes back and goes to the oldest waiter, returned (it holds the slot now), if any. */
  release(): Frame | null {
    const bulkhead = this.#bulkhead;
    bulkhead.onComplete();
    if (this.#queue.size === 0 || !bulkhead.tryAcquirePermission()) return null;
    return this.#queue.takeOldest();
  }
}
