// The engine's side of an adaptive limiter: its slots are the real AdaptiveLimiter's
// (`tryAcquire()`, a token settled when the call below ends); its waiters, which the library keeps
// in a promise queue, wait here — oldest first (`queue: 'fifo'`) or newest first (`'lifo'`), at
// most `maxQueue` of them, each at most `maxWaitDuration` — and take a slot as soon as one frees.
import type { AdaptiveLimiter } from '@breakwater/adaptive';
import type { Frame } from './frame.js';
import { FrameQueue } from './frame-queue.js';

/**
 * The waiters of one adaptive limiter. A call takes a slot when one is free and nobody waits
 * (`tryAcquire()`, never ahead of a waiter, as the library's `acquire`); else it waits, or is
 * refused at once when it cannot (`maxWaitDuration` 0, or `maxQueue` waiting) through
 * `tryAcquire()`, so the limiter counts and publishes the refusal as its own `execute` does.
 */
export class AdaptiveGate {
  readonly maxWait: number;
  readonly #limiter: AdaptiveLimiter;
  readonly #lifo: boolean;
  readonly #maxQueue: number;
  readonly #queue = new FrameQueue();

  constructor(limiter: AdaptiveLimiter) {
    this.#limiter = limiter;
    this.maxWait = limiter.config.maxWaitDuration;
    this.#lifo = limiter.config.queue === 'lifo';
    this.#maxQueue = limiter.config.maxQueue;
  }

  /** A call arrives: 1 it holds a slot now (`frame.token`), 0 it waits, -1 refused (RequestNotPermittedError). */
  enter(frame: Frame): number {
    const limiter = this.#limiter;
    if (this.#queue.size === 0 && limiter.inFlight < limiter.limit) {
      frame.token = limiter.tryAcquire();
      return frame.token === null ? -1 : 1;
    }
    if (this.maxWait === 0 || this.#queue.size >= this.#maxQueue) {
      limiter.tryAcquire(); // refused (every slot taken, or a waiter ahead): the limiter counts it
      return -1;
    }
    this.#queue.add(frame);
    return 0;
  }

  /** A waiter's `maxWaitDuration` ran out: it leaves, refused (counted by the limiter as its own wait running out is). */
  expire(frame: Frame): void {
    this.leave(frame);
    this.#limiter.tryAcquire();
  }

  /** A waiter leaves the queue (its wait ran out, or a time limiter above aborted it). */
  leave(frame: Frame): void {
    this.#queue.remove(frame);
  }

  /** A slot may have freed (a token settled; the limit may have grown): the next waiter, holding a slot now, or null. Call it until null. */
  next(): Frame | null {
    const limiter = this.#limiter;
    if (this.#queue.size === 0 || limiter.inFlight >= limiter.limit) return null;
    const frame = this.#lifo ? this.#queue.takeNewest() : this.#queue.takeOldest();
    frame.token = limiter.tryAcquire();
    return frame;
  }
}
