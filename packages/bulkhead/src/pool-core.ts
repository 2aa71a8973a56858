import {
  BulkheadFullError,
  EventPublisher,
  LinkedQueue,
  NEVER_ABORTED,
  withoutStack,
  type AnyEventOf,
  type EventOf,
  type Linked,
} from '@breakwater/core';
import { admit } from './admission.js';
import type { ResolvedPoolConfig } from './config.js';
import { NO_FIELDS, type BulkheadEvents, type PoolBulkheadMetrics } from './events.js';

/** A call waiting in the pool's queue: the two arguments its executor needs, and its promise. */
interface Queued<A, B> extends Linked<Queued<A, B>> {
  readonly a: A;
  readonly b: B;
  readonly signal: AbortSignal;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  onAbort: (() => void) | undefined;
}

/**
 * What both pool bulkheads share: Java's admission rule, the bounded FIFO queue (an aborted
 * waiter leaves it in O(1)), the slot accounting, `close()`, events and metrics. A subclass says
 * how a call starts (`start`): an async function on the event loop, or a task sent to a worker.
 */
export abstract class PoolCore<A, B> {
  readonly #limits: ResolvedPoolConfig;
  readonly #events: EventPublisher<BulkheadEvents>;
  readonly #queue = new LinkedQueue<Queued<A, B>>();
  #active = 0;
  /** Core slots started so far (Java starts a core thread per call until there are `core`). */
  #coreStarted = 0;
  #closing: Promise<void> | undefined;
  #drained: (() => void) | undefined;

  protected constructor(
    readonly name: string,
    limits: ResolvedPoolConfig,
  ) {
    this.#limits = limits;
    this.#events = new EventPublisher(name, limits.clock, `PoolBulkhead '${name}'`);
  }

  /** Starts one call: returns its value or a promise of it. May throw (taken as a rejection). */
  protected abstract start(a: A, b: B, signal: AbortSignal): unknown;

  /** Runs once `close()` has let every running call end (e.g. to stop worker threads). */
  protected onClosed(): Promise<void> | void {}

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

  /** Subscribes to one event type, or to all with `'*'`; returns the unsubscribe function. */
  on<K extends keyof BulkheadEvents & string>(type: K, listener: (event: EventOf<BulkheadEvents, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<BulkheadEvents>) => void): () => void;
  on(type: string, listener: (event: never) => void): () => void {
    return this.#events.subscribe(type, listener);
  }

  /**
   * Refuses new calls from now on and rejects every queued call with {@link BulkheadFullError};
   * running calls go on. The promise resolves once they have all ended (and, for a worker pool,
   * its threads have stopped). Calling it again returns the same promise.
   *
   * @example
   * ```ts
   * process.on('SIGTERM', () => void pool.close().then(() => process.exit(0)));
   * ```
   */
  close(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing;
    const drained = this.#active === 0 ? Promise.resolve() : new Promise<void>((resolve) => (this.#drained = resolve));
    this.#closing = drained.then(() => this.onClosed());
    for (let queued = this.#queue.first; queued !== null; queued = this.#queue.first) {
      this.#leave(queued);
      queued.reject(this.#rejected('is closed; the call was queued and never ran'));
    }
    return this.#closing;
  }

  /** Admits one call (run, queue or refuse) and returns its outcome. Never throws. */
  protected admitCall<T>(a: A, b: B, signal: AbortSignal): Promise<T> {
    if (signal !== NEVER_ABORTED && signal.aborted) return Promise.reject(signal.reason);
    if (this.#closing !== undefined) return Promise.reject(this.#rejected('is closed and does not accept further calls'));
    switch (admit(this.#active, this.#queue.size, this.#limits)) {
      case 'run':
        this.#active++;
        if (this.#coreStarted < this.#limits.coreThreadPoolSize) this.#coreStarted++;
        this.#permitted();
        return this.#run(a, b, signal) as Promise<T>;
      case 'queue':
        return this.#enqueue(a, b, signal) as Promise<T>;
      case 'reject':
        return Promise.reject(this.#rejected('is full and does not permit further calls'));
    }
  }

  #run(a: A, b: B, signal: AbortSignal): Promise<unknown> {
    let running: unknown;
    try {
      running = this.start(a, b, signal);
    } catch (error) {
      running = Promise.reject(error);
    }
    return (running instanceof Promise ? running : Promise.resolve(running)).then(this.#completed, this.#failed);
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

  /** A call ended: its slot goes to the oldest queued call, or becomes free. */
  #finish(): void {
    if (this.#events.wants('callFinished')) this.#events.emit('callFinished', NO_FIELDS);
    const next = this.#queue.first;
    if (next !== null) {
      this.#leave(next);
      this.#permitted();
      this.#run(next.a, next.b, next.signal).then(next.resolve, next.reject);
      return;
    }
    this.#active--;
    if (this.#active === 0 && this.#drained !== undefined) {
      this.#drained();
      this.#drained = undefined;
    }
  }

  #enqueue(a: A, b: B, signal: AbortSignal): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      const queued: Queued<A, B> = { prev: null, next: null, linked: false, a, b, signal, resolve, reject, onAbort: undefined };
      this.#queue.push(queued);
      if (signal !== NEVER_ABORTED) {
        queued.onAbort = () => {
          queued.onAbort = undefined;
          this.#leave(queued);
          reject(signal.reason);
        };
        signal.addEventListener('abort', queued.onAbort, { once: true });
      }
    });
  }

  #leave(queued: Queued<A, B>): void {
    this.#queue.remove(queued);
    if (queued.onAbort !== undefined) {
      queued.signal.removeEventListener('abort', queued.onAbort);
      queued.onAbort = undefined;
    }
  }

  #permitted(): void {
    if (this.#events.wants('callPermitted')) this.#events.emit('callPermitted', NO_FIELDS);
  }

  #rejected(detail: string): BulkheadFullError {
    if (this.#events.wants('callRejected')) this.#events.emit('callRejected', NO_FIELDS);
    return this.#limits.writableStackTraceEnabled
      ? new BulkheadFullError(this.name, detail)
      : withoutStack(() => new BulkheadFullError(this.name, detail));
  }
}
