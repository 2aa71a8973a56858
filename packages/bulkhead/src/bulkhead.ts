import {
  type BulkheadFullError,
  type Clock,
  EventPublisher,
  type AnyEventOf,
  type CallContext,
  type EventOf,
  type ExecuteOptions,
  type Policy,
  type PolicyFn,
} from '@breakwater/core';
import { enterCall, follow, raceAbort, ROOT_CONTEXT } from '@breakwater/core/internal';
import { resolveBulkheadConfig, resolveBulkheadConfigChange, type BulkheadConfig, type BulkheadConfigChange, type ResolvedBulkheadConfig } from './config.js';
import { BULKHEAD_EVENT_TYPES, bulkheadFull, NO_FIELDS, permittedFields, type BulkheadEvents, type BulkheadMetrics } from './events.js';
import { Slots } from './slots.js';

const RESOLVED: Promise<void> = Promise.resolve();

/**
 * A semaphore bulkhead: at most `maxConcurrentCalls` calls run at once; a call beyond waits in
 * FIFO order for at most `maxWaitDuration` (0: it is refused at once) and is then refused with a
 * {@link BulkheadFullError}. The slot comes back when the call settles — success, failure or a
 * synchronous throw — exactly once.
 *
 * `fairCallHandlingEnabled` (default `true`) hands a freed slot straight to the oldest waiter, so
 * no newcomer ever overtakes the queue. With `false` a freed slot goes back to the pool and the
 * oldest waiter is woken on the next microtask: a call that arrives before then (typically the
 * code that just finished a call and starts another) takes the slot, and the waiter stays first in
 * line. That saves a hand-over per call and keeps a busy chain going, at the price of possible
 * starvation of waiters under constant re-entry.
 *
 * @example
 * ```ts
 * const db = new Bulkhead('db', { maxConcurrentCalls: 10, maxWaitDuration: '50ms' });
 * const rows = await db.execute((ctx) => pool.query(sql, { signal: ctx.signal }));
 * const query = db.decorate((sql: string) => pool.query(sql));
 * await query('select 1');
 * ```
 */
export class Bulkhead implements Policy {
  readonly kind = 'bulkhead' as const;
  readonly #events: EventPublisher<BulkheadEvents>;
  /** The options as resolved at construction (the limits in force are in #slots and #maxWait). */
  readonly #options: ResolvedBulkheadConfig;
  readonly #stackTraces: boolean;
  /** The clock a wait is measured on. */
  readonly #clock: Clock;
  /** The slots: how many are taken, who waits for one, who gets a freed one (fair or not). */
  readonly #slots: Slots;
  /** `maxWaitDuration` in force (`changeConfig` may change it). */
  #maxWait: number;

  constructor(
    readonly name: string,
    config?: BulkheadConfig,
  ) {
    const c = resolveBulkheadConfig(name, config);
    this.#options = c;
    this.#clock = c.clock;
    this.#slots = new Slots({ ...c, refused: (waitedMs) => this.#rejected(waitedMs) });
    this.#maxWait = c.maxWaitDuration;
    this.#stackTraces = c.writableStackTraceEnabled;
    this.#events = new EventPublisher(name, c.clock, `Bulkhead '${name}'`, BULKHEAD_EVENT_TYPES);
  }

  /**
   * Same as `new Bulkhead(name, config)`.
   *
   * @example
   * ```ts
   * const db = Bulkhead.of('db', { maxConcurrentCalls: 4 });
   * ```
   */
  static of(name: string, config?: BulkheadConfig): Bulkhead {
    return new Bulkhead(name, config);
  }

  /**
   * Every option's value in force (ms): what was given or its default, with `maxConcurrentCalls`
   * and `maxWaitDuration` as `changeConfig` last set them.
   */
  get config(): ResolvedBulkheadConfig {
    return { ...this.#options, maxConcurrentCalls: this.#slots.max, maxWaitDuration: this.#maxWait };
  }

  /** A fresh snapshot. */
  get metrics(): BulkheadMetrics {
    return {
      availableConcurrentCalls: this.#slots.available,
      maxAllowedConcurrentCalls: this.#slots.max,
      waitingCalls: this.#slots.waiting,
    };
  }

  /**
   * Subscribes to one event type, or to all with `'*'`; returns the unsubscribe function. An
   * unknown type is a `TypeError` that suggests the closest.
   */
  on<K extends keyof BulkheadEvents & string>(type: K, listener: (event: EventOf<BulkheadEvents, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<BulkheadEvents>) => void): () => void;
  on(type: string, listener: (event: never) => void): () => void {
    return this.#events.subscribe(type, listener);
  }

  /**
   * Takes a slot if one is free now (never waits; in fair mode never ahead of a waiter).
   * Publishes `callPermitted` or `callRejected`. Give the slot back with {@link onComplete}.
   *
   * @example
   * ```ts
   * if (!db.tryAcquirePermission()) return res.status(503).end();
   * try { await work(); } finally { db.onComplete(); }
   * ```
   */
  tryAcquirePermission(): boolean {
    if (this.#slots.tryTake()) {
      this.#permitted(0);
      return true;
    }
    this.#emitRejected();
    return false;
  }

  /**
   * Takes a slot, waiting for one at most `maxWaitDuration`; rejects with
   * {@link BulkheadFullError} after that, or with the signal's reason if `options.signal` aborts
   * first (the waiter leaves the queue at once). Give the slot back with {@link onComplete}.
   *
   * @example
   * ```ts
   * await db.acquirePermission({ signal });
   * try { await work(); } finally { db.onComplete(); }
   * ```
   */
  acquirePermission(options?: ExecuteOptions | null): Promise<void> {
    const ctx = enterCall(options);
    if (ctx instanceof Promise) return ctx;
    const signal = ctx.signal;
    if (this.#slots.tryTake()) {
      this.#permitted(0);
      return RESOLVED;
    }
    if (this.#maxWait === 0) return Promise.reject(this.#rejected(undefined));
    const since = this.#waitStart();
    // Published here, in the waiting caller's own continuation (not by the call that freed the slot).
    return this.#slots.wait(signal, this.#maxWait).then(() => this.#permitted(this.#waitedSince(since)));
  }

  /**
   * Gives a slot back and publishes `callFinished`. A call with no slot taken is ignored: the
   * bulkhead never goes above `maxConcurrentCalls`.
   *
   * @example
   * ```ts
   * db.onComplete();
   * ```
   */
  onComplete(): void {
    this.#release(true);
  }

  /**
   * Gives a slot back without publishing anything (a permission taken but not used). Ignored
   * when no slot is taken.
   *
   * @example
   * ```ts
   * if (!db.tryAcquirePermission()) return;
   * if (cancelled) db.releasePermission();
   * ```
   */
  releasePermission(): void {
    this.#release(false);
  }

  /**
   * Changes the limits at run time. A larger `maxConcurrentCalls` wakes waiters at once; a smaller
   * one takes effect as running calls end (the caller never waits). A new `maxWaitDuration` holds
   * for calls that start waiting from now on. Throws a `TypeError` for a change that is not an
   * object (or has an unknown key), a `RangeError` for a value out of range; a bad change changes
   * nothing.
   *
   * @example
   * ```ts
   * db.changeConfig({ maxConcurrentCalls: 50 });
   * ```
   */
  changeConfig(change: BulkheadConfigChange): void {
    const next = resolveBulkheadConfigChange(this.name, change, { maxConcurrentCalls: this.#slots.max, maxWaitDuration: this.#maxWait });
    this.#maxWait = next.maxWaitDuration;
    this.#slots.max = next.maxConcurrentCalls; // a larger limit hands slots to waiters at once
  }

  /**
   * Runs `fn` in a slot (waiting for one as {@link acquirePermission} does); the slot comes back
   * when `fn` settles, exactly once whatever `fn` returns. `fn` gets the call's context
   * (`ctx.signal` is the caller's). A caller's signal that aborts while `fn` runs rejects the call
   * at once with its reason; the slot stays held until `fn` really settles. Never throws
   * synchronously.
   *
   * @example
   * ```ts
   * const user = await db.execute((ctx) => users.find(id, { signal: ctx.signal }), { signal });
   * ```
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext | null): Promise<T> {
    let ctx = ROOT_CONTEXT; // never aborted
    if (options !== undefined) {
      const entered = enterCall(options);
      if (entered instanceof Promise) return entered;
      ctx = entered;
    }
    if (this.#slots.tryTake()) {
      this.#permitted(0);
      return this.#run(fn, ctx);
    }
    if (this.#maxWait === 0) return Promise.reject(this.#rejected(undefined));
    const signal = ctx.signal;
    const since = this.#waitStart();
    return this.#slots.wait(signal, this.#maxWait).then(() => {
      // The waiter holds the slot, handed over by the call that freed it; `callPermitted` is
      // published here, in this call's own async context (contract: docs/bulkhead.md).
      this.#permitted(this.#waitedSince(since));
      if (signal.aborted) {
        // Aborted between getting the slot and starting: give it back, do not start fn.
        this.onComplete();
        throw signal.reason;
      }
      return this.#run(fn, ctx);
    });
  }

  /**
   * Wraps `fn` so that each call runs in a slot.
   *
   * @example
   * ```ts
   * const find = db.decorate((id: string) => users.find(id));
   * await find('42');
   * ```
   */
  decorate<A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>): (...args: A) => Promise<R> {
    return (...args: A) => this.execute(() => fn(...args));
  }

  /**
   * Runs `fn` in the slot just taken. The slot comes back once, when `fn`'s outcome settles
   * (`follow` adopts a hostile thenable once); the caller's abort rejects the call at once.
   */
  #run<T>(fn: PolicyFn<T>, ctx: CallContext): Promise<T> {
    let value: T | PromiseLike<T>;
    try {
      value = fn(ctx);
    } catch (error) {
      this.onComplete();
      return Promise.reject(error);
    }
    return raceAbort(follow(value).then(this.#completed, this.#failed) as Promise<T>, ctx.signal);
  }

  // Bound once: a call allocates no closure to give its slot back.
  readonly #completed = (result: unknown): unknown => {
    this.onComplete();
    return result;
  };

  readonly #failed = (error: unknown): never => {
    this.onComplete();
    throw error;
  };

  /** Gives one slot back (ignored when none is taken): `callFinished`, then the hand-over to a waiter. */
  #release(finished: boolean): void {
    if (!this.#slots.free()) return;
    if (finished && this.#events.wants('callFinished')) this.#events.emit('callFinished', NO_FIELDS);
    this.#slots.handOver();
  }

  /**
   * When a wait for a slot starts, on the clock — read only when someone listens to
   * `callPermitted` then (its `waitMs`): a call that waits costs no clock reading otherwise.
   */
  #waitStart(): number {
    return this.#events.wants('callPermitted') ? this.#clock.now() : Number.NaN;
  }

  /** How long a wait that started at `since` ({@link #waitStart}) took: 0 when it was not timed. */
  #waitedSince(since: number): number {
    return Number.isNaN(since) ? 0 : this.#clock.now() - since;
  }

  /** Publishes `callPermitted` (`waitMs`: how long the call waited for its slot, 0 at once). */
  #permitted(waitMs: number): void {
    if (this.#events.wants('callPermitted')) this.#events.emit('callPermitted', permittedFields(waitMs));
  }

  #emitRejected(): void {
    if (this.#events.wants('callRejected')) this.#events.emit('callRejected', NO_FIELDS);
  }

  /** Publishes the refusal and builds its error; `waitedMs` for a waiter whose wait ran out. */
  #rejected(waitedMs: number | undefined): BulkheadFullError {
    this.#emitRejected();
    const detail = waitedMs === undefined ? 'is full and does not permit further calls' : `is full and freed no slot within maxWaitDuration (${waitedMs} ms)`;
    return bulkheadFull(this.name, detail, this.#stackTraces);
  }
}
