import { type BulkheadFullError, EventPublisher, type AnyEventOf, type EventOf, type TimerHandle } from '@breakwater/core';
import { follow, holdProcess, NEVER_ABORTED, raceAbort, releaseProcess, WaitQueue } from '@breakwater/core/internal';
import { admit } from './admission.js';
import { resolvePoolCloseOptions, type PoolCloseOptions, type ResolvedPoolConfig } from './config.js';
import { BULKHEAD_EVENT_TYPES, bulkheadFull, NO_FIELDS, permittedFields, type BulkheadEvents, type PoolBulkheadMetrics } from './events.js';

/**
 * What both pool bulkheads share: Java's admission rule, the bounded FIFO queue (an aborted
 * waiter leaves it in O(1)), the slot accounting, `close()`, events and metrics. A subclass says
 * how a call starts (`start`): an async function on the event loop, or a task sent to a worker.
 */
export abstract class PoolCore<Work, Options> {
  readonly #limits: ResolvedPoolConfig;
  readonly #events: EventPublisher<BulkheadEvents>;
  /**
   * The calls waiting for a slot, oldest first (no time limit: the queue's capacity bounds them).
   * A call that ends hands its slot to the oldest; that one starts in its own continuation.
   */
  readonly #queue: WaitQueue;
  /** Calls running (each in a slot). */
  #active = 0;
  /** Core slots started so far (Java starts a core thread per call until there are `core`). */
  #coreStarted = 0;
  /** What `close()` returns, once it has been called. */
  #closing: Promise<void> | undefined;
  /** Resolves the wait of `close()` for the running calls to end (set while it waits). */
  #drained: (() => void) | undefined;
  /** Whether close has stopped waiting for running calls (force, or its timeout ran out). */
  #forced = false;
  /** The timer of `close({ timeout })`. */
  #closeTimer: TimerHandle | undefined;
  /** Whether the close timer holds the process alive (the caller awaits the close). */
  #closeTimerHoldsProcess = false;

  protected constructor(
    readonly name: string,
    limits: ResolvedPoolConfig,
  ) {
    this.#limits = limits;
    this.#queue = new WaitQueue<void, void>({ clock: limits.clock });
    this.#events = new EventPublisher(name, limits.clock, `PoolBulkhead '${name}'`, BULKHEAD_EVENT_TYPES);
  }

  /** Starts one call: returns its value or a promise of it. May throw (taken as a rejection). */
  protected abstract start(work: Work, options: Options, signal: AbortSignal): unknown;

  /** Runs once `close()` has let every running call end (e.g. to stop worker threads). */
  protected onClosed(): Promise<void> | void {}

  /**
   * `close` stops waiting for the running calls (`force`, or its `timeout` ran out). A subclass
   * that can stop them does (a worker pool terminates its threads: their tasks reject and end);
   * by default they go on, and `close` resolves without them.
   */
  protected stopRunning(): void {
    this.#settleDrain();
  }

  /** Whether close was forced (see {@link stopRunning}). */
  protected get forced(): boolean {
    return this.#forced;
  }

  /** Every option's value (what was given or its default). */
  get config(): ResolvedPoolConfig {
    return { ...this.#limits };
  }

  /** Slots alive, as Java's `getPoolSize()` counts threads; a subclass with real threads counts those. */
  protected get threadPoolSize(): number {
    return Math.max(this.#coreStarted, this.#active);
  }

  /** Whether `close()` has been called. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /** A fresh snapshot. */
  get metrics(): PoolBulkheadMetrics {
    const l = this.#limits;
    return {
      coreThreadPoolSize: l.coreThreadPoolSize,
      threadPoolSize: this.threadPoolSize,
      maximumThreadPoolSize: l.maxThreadPoolSize,
      queueDepth: this.#queue.size,
      queueCapacity: l.queueCapacity,
      remainingQueueCapacity: l.queueCapacity - this.#queue.size,
      activeCount: this.#active,
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
   * Refuses new calls from now on and rejects every queued call with {@link BulkheadFullError};
   * running calls go on. The promise resolves once they have all ended (and, for a worker pool,
   * its threads have stopped). `{ force: true }` does not wait for them: a worker pool terminates
   * its threads at once (each running task rejects with a `BulkheadFullError` that says so), an
   * async pool resolves at once and lets its running calls go on. `{ timeout }` waits that long
   * for them, then closes with force. Calling it again returns the same promise (a later call
   * with `force` or `timeout` still applies them). Throws a `TypeError` / `RangeError` for bad
   * options.
   *
   * @example
   * ```ts
   * process.on('SIGTERM', () => void pool.close({ timeout: '10s' }).then(() => process.exit(0)));
   * ```
   */
  close(options?: PoolCloseOptions | null): Promise<void> {
    const { force, timeout } = resolvePoolCloseOptions(this.name, options);
    if (this.#closing === undefined) {
      const drained = this.#active === 0 ? Promise.resolve() : new Promise<void>((resolve) => (this.#drained = resolve));
      this.#closing = drained.then(() => {
        this.#clearCloseTimer();
        return this.onClosed();
      });
      for (let queued = this.#queue.shift(); queued !== null; queued = this.#queue.shift()) {
        queued.reject(this.#rejected('is closed; the call was queued and never ran'));
      }
    }
    if (this.#active !== 0 && !this.#forced) {
      if (force || timeout === 0) this.#force();
      else if (timeout !== Infinity && this.#closeTimer === undefined) {
        // The caller awaits the close: its deadline keeps the process alive (core's holdProcess).
        this.#closeTimer = this.#limits.clock.setTimeout(() => this.#force(), timeout);
        this.#closeTimerHoldsProcess = holdProcess(this.#closeTimer);
      }
    }
    return this.#closing;
  }

  #force(): void {
    if (this.#forced) return;
    this.#forced = true;
    this.#clearCloseTimer();
    this.stopRunning();
  }

  #clearCloseTimer(): void {
    if (this.#closeTimer !== undefined) this.#limits.clock.clearTimeout(this.#closeTimer);
    this.#closeTimer = undefined;
    if (this.#closeTimerHoldsProcess) {
      this.#closeTimerHoldsProcess = false;
      releaseProcess();
    }
  }

  /** Lets `close()` go on as if every running call had ended. */
  #settleDrain(): void {
    if (this.#drained === undefined) return;
    this.#drained();
    this.#drained = undefined;
  }

  /**
   * Admits one call (run, queue or refuse) and returns its outcome; the caller's abort rejects it
   * at once, queued or running (a running call keeps its slot until it really ends). Never throws.
   */
  protected admitCall<T>(work: Work, options: Options, signal: AbortSignal): Promise<T> {
    if (signal !== NEVER_ABORTED && signal.aborted) return Promise.reject(signal.reason);
    if (this.#closing !== undefined) return Promise.reject(this.#rejected('is closed and does not accept further calls'));
    switch (admit(this.#active, this.#queue.size, this.#limits)) {
      case 'run':
        this.#active++;
        if (this.#coreStarted < this.#limits.coreThreadPoolSize) this.#coreStarted++;
        this.#permitted(0);
        return raceAbort(this.#run(work, options, signal), signal) as Promise<T>;
      case 'queue': {
        // The wait is timed only when someone listens to `callPermitted` now (its `waitMs`).
        const since = this.#events.wants('callPermitted') ? this.#limits.clock.now() : Number.NaN;
        return this.#queue.wait(signal, Infinity).then(() => this.#startQueued(work, options, signal, since)) as Promise<T>;
      }
      case 'reject':
        return Promise.reject(this.#rejected('is full and does not permit further calls'));
    }
  }

  /**
   * Starts a queued call in the slot the call that ended has handed it. This runs in the queued
   * call's own continuation — its async context, not the ending call's — so `callPermitted` (with
   * the wait) and everything `fn` does belong to it (contract: docs/bulkhead.md). A pool closed
   * in between refuses it as it refuses the calls still queued, and gives the slot back.
   */
  #startQueued(work: Work, options: Options, signal: AbortSignal, since: number): Promise<unknown> {
    if (this.#closing !== undefined) {
      this.#handOver();
      return Promise.reject(this.#rejected('is closed; the call was queued and never ran'));
    }
    this.#permitted(Number.isNaN(since) ? 0 : this.#limits.clock.now() - since);
    return raceAbort(this.#run(work, options, signal), signal);
  }

  /** Starts a call in the slot it holds; the slot comes back once, when its outcome settles (`follow` adopts a hostile thenable once). */
  #run(work: Work, options: Options, signal: AbortSignal): Promise<unknown> {
    let running: unknown;
    try {
      running = this.start(work, options, signal);
    } catch (error) {
      running = Promise.reject(error);
    }
    return follow(running).then(this.#completed, this.#failed);
  }

  // Bound once: a call allocates no closure to give its slot back.
  readonly #completed = (value: unknown): unknown => {
    this.#finish();
    return value;
  };

  readonly #failed = (error: unknown): never => {
    this.#finish();
    throw error;
  };

  /** A call ended: `callFinished`, and its slot is handed over. */
  #finish(): void {
    if (this.#events.wants('callFinished')) this.#events.emit('callFinished', NO_FIELDS);
    this.#handOver();
  }

  /** A slot came back: it goes to the oldest queued call (which starts in its own continuation), or becomes free. */
  #handOver(): void {
    const next = this.#queue.shift();
    if (next !== null) {
      next.resolve();
      return;
    }
    this.#active--;
    if (this.#active === 0) this.#settleDrain();
  }

  /** Publishes `callPermitted` (`waitMs`: how long the call waited in the queue, 0 at once). */
  #permitted(waitMs: number): void {
    if (this.#events.wants('callPermitted')) this.#events.emit('callPermitted', permittedFields(waitMs));
  }

  #rejected(detail: string): BulkheadFullError {
    if (this.#events.wants('callRejected')) this.#events.emit('callRejected', NO_FIELDS);
    return bulkheadFull(this.name, detail, this.#limits.writableStackTraceEnabled);
  }
}
