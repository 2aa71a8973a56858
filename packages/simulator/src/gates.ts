// The engine's side of the two admission layers: a rate limiter (the real RateLimiter's
// synchronous reservePermission) and a semaphore bulkhead (the real Bulkhead's slots, with the
// FIFO of waiters kept here, as the library's fair hand-over orders them).
import type { Bulkhead } from '@breakwater/bulkhead';
import type { Frame } from './frame.js';

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
  #queue: Frame[] = [];
  #head = 0;
  /** Frames in the queue still waiting (an aborted or expired one stays in the array until it reaches the head). */
  #waiting = 0;

  constructor(bulkhead: Bulkhead) {
    this.#bulkhead = bulkhead;
    this.maxWait = bulkhead.config.maxWaitDuration;
  }

  /** A call arrives: 1 it runs now (it holds a slot), 0 it waits (the engine arms its maxWaitDuration), -1 refused (BulkheadFullError). */
  enter(frame: Frame): number {
    const bulkhead = this.#bulkhead;
    if (this.#waiting === 0 && bulkhead.metrics.availableConcurrentCalls > 0) return bulkhead.tryAcquirePermission() ? 1 : -1;
    if (this.maxWait === 0) {
      bulkhead.tryAcquirePermission(); // refused, as the library's execute is (publishes callRejected)
      return -1;
    }
    frame.queued = true;
    this.#queue.push(frame);
    this.#waiting++;
    return 0;
  }

  /** A waiter leaves the queue: its wait ran out, or a time limiter above aborted it. */
  leave(frame: Frame): void {
    if (!frame.queued) return;
    frame.queued = false;
    if (--this.#waiting === 0) this.#clear();
  }

  /** A call that held a slot settled: the slot comes back and goes to the oldest waiter, returned (it holds the slot now), if any. */
  release(): Frame | null {
    const bulkhead = this.#bulkhead;
    bulkhead.onComplete();
    if (this.#waiting === 0) return null;
    const queue = this.#queue;
    let frame = queue[this.#head]!;
    while (!frame.queued) frame = queue[++this.#head]!;
    if (!bulkhead.tryAcquirePermission()) return null;
    this.#head++;
    frame.queued = false;
    if (--this.#waiting === 0) this.#clear();
    else if (this.#head > 1024 && this.#head * 2 > queue.length) {
      this.#queue = queue.slice(this.#head);
      this.#head = 0;
    }
    return frame;
  }

  #clear(): void {
    this.#queue.length = 0;
    this.#head = 0;
  }
}
