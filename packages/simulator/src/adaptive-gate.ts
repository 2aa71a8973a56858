// The engine's side of an adaptive limiter: its slots are the real AdaptiveLimiter's
// (`tryAcquire()`, a token settled when the call below ends); its waiters, which the library keeps
// in a promise queue, wait here — oldest first (`queue: 'fifo'`) or newest first (`'lifo'`), at
// most `maxQueue` of them, each at most `maxWaitDuration` — and take a slot as soon as one frees.
import type { AdaptiveLimiter } from '@breakwater/adaptive';
import type { Frame } from './frame.js';

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
  #queue: Frame[] = [];
  #head = 0;
  /** Frames in the queue still waiting (one that left stays in the array until it reaches an end). */
  #waiting = 0;

  constructor(limiter: AdaptiveLimiter) {
    this.#limiter = limiter;
    this.maxWait = limiter.config.maxWaitDuration;
    this.#lifo = limiter.config.queue === 'lifo';
    this.#maxQueue = limiter.config.maxQueue;
  }

  /** A call arrives: 1 it holds a slot now (`frame.token`), 0 it waits, -1 refused (RequestNotPermittedError). */
  enter(frame: Frame): number {
    const limiter = this.#limiter;
    if (this.#waiting === 0 && limiter.inFlight < limiter.limit) {
      frame.token = limiter.tryAcquire();
      return frame.token === null ? -1 : 1;
    }
    if (this.maxWait === 0 || this.#waiting >= this.#maxQueue) {
      limiter.tryAcquire(); // refused (every slot taken, or a waiter ahead): the limiter counts it
      return -1;
    }
    frame.queued = true;
    this.#queue.push(frame);
    this.#waiting++;
    return 0;
  }

  /** A waiter's `maxWaitDuration` ran out: it leaves, refused (counted by the limiter as its own wait running out is). */
  expire(frame: Frame): void {
    this.leave(frame);
    this.#limiter.tryAcquire();
  }

  /** A waiter leaves the queue (its wait ran out, or a time limiter above aborted it). */
  leave(frame: Frame): void {
    if (!frame.queued) return;
    frame.queued = false;
    if (--this.#waiting === 0) this.#clear();
  }

  /** A slot may have freed (a token settled; the limit may have grown): the next waiter, holding a slot now, or null. Call it until null. */
  next(): Frame | null {
    const limiter = this.#limiter;
    if (this.#waiting === 0 || limiter.inFlight >= limiter.limit) return null;
    const frame = this.#lifo ? this.#newest() : this.#oldest();
    frame.queued = false;
    frame.token = limiter.tryAcquire();
    if (--this.#waiting === 0) this.#clear();
    return frame;
  }

  #oldest(): Frame {
    const queue = this.#queue;
    let frame = queue[this.#head++]!;
    while (!frame.queued) frame = queue[this.#head++]!;
    if (this.#head > 1024 && this.#head * 2 > queue.length) {
      this.#queue = queue.slice(this.#head);
      this.#head = 0;
    }
    return frame;
  }

  #newest(): Frame {
    const queue = this.#queue;
    let frame = queue.pop()!;
    while (!frame.queued) frame = queue.pop()!;
    return frame;
  }

  #clear(): void {
    this.#queue.length = 0;
    this.#head = 0;
  }
}
