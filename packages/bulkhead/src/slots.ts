import type { Clock } from '@breakwater/core';
import { WaitQueue } from '@breakwater/core/internal';

/** What {@link Slots} needs from its bulkhead. */
export interface SlotsOptions {
  readonly maxConcurrentCalls: number;
  readonly fairCallHandlingEnabled: boolean;
  readonly clock: Clock;
  /** A waiter's maxWaitDuration ran out: the error it rejects with (the bulkhead publishes `callRejected`). */
  readonly refused: (waitedMs: number) => unknown;
}

/**
 * The slots of a semaphore `Bulkhead`: how many are taken, the callers waiting for one
 * (core's `WaitQueue`: oldest first, an aborted waiter leaves at once), and who gets a slot
 * that frees up.
 *
 * Fair (the default): a freed slot goes straight to the oldest waiter, and no newcomer takes a
 * slot while anyone waits. Unfair: a freed slot goes back to the pool and the waiters are woken
 * on the next microtask, so a call that arrives before then (typically the code that just
 * finished a call and starts another) takes it, and the waiter stays first in line.
 */
export class Slots {
  readonly #fair: boolean;
  readonly #waiters: WaitQueue;
  #max: number;
  /** Slots taken (by running calls, or by permissions not yet given back). */
  #inUse = 0;
  /** Unfair mode: a wake-up of the waiters is already scheduled for the next microtask. */
  #wakeScheduled = false;

  constructor(options: SlotsOptions) {
    this.#max = options.maxConcurrentCalls;
    this.#fair = options.fairCallHandlingEnabled;
    const refused = options.refused;
    this.#waiters = new WaitQueue({ clock: options.clock, onTimeout: (_, waitedMs) => ({ error: refused(waitedMs) }) });
  }

  /** `maxConcurrentCalls` in force. */
  get max(): number {
    return this.#max;
  }

  /** A larger limit hands the new slots to waiters at once; a smaller one takes effect as slots come back. */
  set max(max: number) {
    const grew = max > this.#max;
    this.#max = max;
    if (grew) this.#wake();
  }

  /** Slots free now (0 while a shrink waits for running calls to end). */
  get available(): number {
    return Math.max(0, this.#max - this.#inUse);
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.#waiters.size;
  }

  /** Takes a slot if one is free now (in fair mode, never ahead of a waiter). */
  tryTake(): boolean {
    if (this.#inUse >= this.#max) return false;
    if (this.#fair && this.#waiters.size !== 0) return false;
    this.#inUse++;
    return true;
  }

  /**
   * Waits, last in line, for a slot; at most `maxWaitMs` (then rejects with `refused`'s error), or
   * until `signal` aborts. It resolves holding the slot, handed over by the call that freed it: the
   * bulkhead publishes `callPermitted` in the waiter's own continuation (its async context, so a
   * trace puts the wait on the waiting call's span).
   */
  wait(signal: AbortSignal, maxWaitMs: number): Promise<void> {
    return this.#waiters.wait(signal, maxWaitMs);
  }

  /** Gives one slot back; `false` (and nothing changes) when none is taken. Follow with {@link handOver}. */
  free(): boolean {
    if (this.#inUse === 0) return false;
    this.#inUse--;
    return true;
  }

  /** After {@link free}: the free slot goes to the oldest waiter (fair), or the waiters are woken on the next microtask (unfair). */
  handOver(): void {
    if (this.#waiters.size === 0 || this.#inUse >= this.#max) return;
    if (this.#fair) this.#grantOldest();
    else this.#scheduleWake();
  }

  /** Hands free slots to waiters, oldest first. */
  #wake(): void {
    while (this.#waiters.size !== 0 && this.#inUse < this.#max) this.#grantOldest();
  }

  #scheduleWake(): void {
    if (this.#wakeScheduled) return;
    this.#wakeScheduled = true;
    queueMicrotask(() => {
      this.#wakeScheduled = false;
      this.#wake();
    });
  }

  /** Hands a free slot to the oldest waiter (there is one): it holds the slot from now on. */
  #grantOldest(): void {
    const waiter = this.#waiters.shift()!;
    this.#inUse++;
    waiter.resolve();
  }
}
