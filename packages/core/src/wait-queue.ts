import { onAbort } from './abort.js';
import type { Clock, TimerHandle } from './clock.js';
import { holdProcess, releaseProcess } from './keep-alive.js';
import { LinkedQueue, type Linked } from './linked-queue.js';
import { NEVER_ABORTED, type Outcome } from './policy.js';

/**
 * A caller taken out of a {@link WaitQueue} by {@link WaitQueue.shift}: what it queued with, and
 * how to settle the promise it awaits (the queue has already dropped its timer and its abort
 * listener).
 *
 * @example
 * ```ts
 * const waiter: Waiter<void, undefined> | null = queue.shift();
 * waiter?.resolve();
 * ```
 */
export interface Waiter<T, Item> {
  /** What the caller queued with (`WaitQueue.wait`'s `item`). */
  readonly item: Item;
  resolve(value: T | PromiseLike<T>): void;
  reject(error: unknown): void;
}

/**
 * How a {@link WaitQueue}'s owner hears of a waiter that leaves on its own.
 *
 * @example
 * ```ts
 * const options: WaitQueueOptions<void, undefined> = {
 *   clock,
 *   onTimeout: (_item, waitedMs) => ({ error: new BulkheadFullError('db', `freed no slot within ${waitedMs} ms`) }),
 * };
 * ```
 */
export interface WaitQueueOptions<T, Item> {
  /** The clock of the waits' timers. */
  readonly clock: Clock;
  /**
   * A waiter's `maxWaitMs` ran out; it has left the queue. Returns what it gets: `{ error }` to
   * reject with (a bulkhead's `BulkheadFullError`), or `{ result }` when the end of the wait is
   * the grant itself (a rate limiter's waiter, whose reserved permits are there then). Without
   * it, a waiter that runs out of time rejects with an `Error` that says how long it waited.
   */
  readonly onTimeout?: ((item: Item, waitedMs: number) => Outcome<T>) | undefined;
  /** A waiter's signal aborted; it has left the queue, and rejects with the signal's reason right after this. */
  readonly onAbort?: ((item: Item) => void) | undefined;
}

/** A waiter while it is queued: its links, its promise's settlers, its timer and its listener. */
class QueuedWaiter<T, Item> implements Linked<QueuedWaiter<T, Item>>, Waiter<T, Item> {
  prev: QueuedWaiter<T, Item> | null = null;
  next: QueuedWaiter<T, Item> | null = null;
  linked = false;
  /** The timer of its max wait, if it has one and it has not fired. */
  timer: TimerHandle | undefined = undefined;
  /** Whether its timer holds the process alive (`holdProcess`), until it leaves. */
  holdsProcess = false;
  /** Stops listening to the caller's signal (a no-op without one). */
  stopListening: () => void = noop;

  constructor(
    readonly item: Item,
    readonly resolve: (value: T | PromiseLike<T>) => void,
    readonly reject: (error: unknown) => void,
  ) {}
}

const noop = (): void => {};

/**
 * The callers waiting for something a component hands out (a bulkhead's slot, a pool's worker,
 * a rate limiter's reserved permits), oldest first. Each waiter leaves it exactly once: taken out
 * by the owner ({@link shift}: the owner settles it), when its caller's signal aborts (it rejects
 * with the signal's reason), or when its max wait on the clock runs out (it gets what
 * `onTimeout` returns). A waiter's signal is followed through `onAbort` — one `abort` listener
 * per signal for all of Breakwater, none once the waiter has left — and a max wait is a wait its
 * caller awaits, so it keeps the process alive ({@link holdProcess}) until the waiter leaves.
 * Queueing and removal are O(1) (a {@link LinkedQueue}).
 *
 * @example
 * ```ts
 * const slots = new WaitQueue({ clock, onTimeout: () => ({ error: new BulkheadFullError('db', 'is full') }) });
 * const granted = slots.wait(ctx.signal, 50); // rejects after 50 ms, or on abort
 * slots.shift()?.resolve();                   // a slot is free: the oldest waiter gets it
 * await granted;
 * ```
 */
export class WaitQueue<T = void, Item = void> {
  readonly #clock: Clock;
  readonly #queue = new LinkedQueue<QueuedWaiter<T, Item>>();
  readonly #onTimeout: ((item: Item, waitedMs: number) => Outcome<T>) | undefined;
  readonly #onAbort: ((item: Item) => void) | undefined;

  constructor(options: WaitQueueOptions<T, Item>) {
    this.#clock = options.clock;
    this.#onTimeout = options.onTimeout;
    this.#onAbort = options.onAbort;
  }

  /** How many callers are waiting. */
  get size(): number {
    return this.#queue.size;
  }

  /**
   * Queues a caller, last, and returns the promise it awaits. `signal` must not have aborted yet
   * (check `signal.aborted` first). With a finite `maxWaitMs` the waiter leaves after that long on
   * the clock (see `onTimeout`); `Infinity` sets no timer.
   *
   * @example
   * ```ts
   * await queue.wait(ctx.signal, maxWaitMs, item);
   * ```
   */
  wait(signal: AbortSignal, maxWaitMs: number, item: Item): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiter = new QueuedWaiter<T, Item>(item, resolve, reject);
      this.#queue.push(waiter);
      if (maxWaitMs !== Infinity) {
        waiter.timer = this.#clock.setTimeout(() => this.#timedOut(waiter, maxWaitMs), maxWaitMs);
        waiter.holdsProcess = holdProcess(waiter.timer);
      }
      if (signal === NEVER_ABORTED) return; // nothing to listen to (and no closure to allocate)
      waiter.stopListening = onAbort(signal, () => {
        this.#leave(waiter);
        this.#onAbort?.(item);
        reject(signal.reason);
      });
    });
  }

  /**
   * Takes the oldest waiter out (its timer and abort listener are dropped) for the owner to
   * settle; `null` when none is waiting.
   *
   * @example
   * ```ts
   * const waiter = queue.shift();
   * if (waiter !== null) waiter.resolve();
   * ```
   */
  shift(): Waiter<T, Item> | null {
    const waiter = this.#queue.first;
    if (waiter !== null) this.#leave(waiter);
    return waiter;
  }

  /**
   * Takes the newest waiter out, as {@link shift} takes the oldest (a LIFO owner's choice);
   * `null` when none is waiting.
   *
   * @example
   * ```ts
   * const newest = queue.pop();
   * if (newest !== null) newest.resolve();
   * ```
   */
  pop(): Waiter<T, Item> | null {
    const waiter = this.#queue.last;
    if (waiter !== null) this.#leave(waiter);
    return waiter;
  }

  /** The item of the oldest waiter, left in the queue (`undefined` when none waits): what an owner choosing among queues compares. */
  get oldestItem(): Item | undefined {
    return this.#queue.first?.item;
  }

  /** The item of the newest waiter, left in the queue (`undefined` when none waits). */
  get newestItem(): Item | undefined {
    return this.#queue.last?.item;
  }

  #timedOut(waiter: QueuedWaiter<T, Item>, waitedMs: number): void {
    waiter.timer = undefined;
    this.#leave(waiter);
    const outcome = this.#onTimeout?.(waiter.item, waitedMs) ?? { error: new Error(`WaitQueue: the wait ran out after ${waitedMs} ms`) };
    if ('error' in outcome) waiter.reject(outcome.error);
    else waiter.resolve(outcome.result);
  }

  /** Takes `waiter` out of the queue and drops its timer, its hold on the process and its abort listener. */
  #leave(waiter: QueuedWaiter<T, Item>): void {
    this.#queue.remove(waiter);
    if (waiter.timer !== undefined) {
      this.#clock.clearTimeout(waiter.timer);
      waiter.timer = undefined;
    }
    if (waiter.holdsProcess) {
      waiter.holdsProcess = false;
      releaseProcess();
    }
    waiter.stopListening();
    waiter.stopListening = noop;
  }
}
