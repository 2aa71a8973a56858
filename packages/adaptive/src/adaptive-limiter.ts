import { EventPublisher } from '@breakwater/core';
import type { AnyEventOf, CallContext, Clock, EventOf, ExecuteOptions, Policy, PolicyFn } from '@breakwater/core';
import { describeValue, enterCall, follow, NEVER_ABORTED, raceAbort, ROOT_CONTEXT } from '@breakwater/core/internal';
import { Admissions } from './admissions.js';
import { CallEnds } from './call-ends.js';
import { CallObservers, type AdaptiveCallObserver } from './call-observers.js';
import type { AdaptiveCallOptions } from './call-options.js';
import { resolveAdaptiveLimiterConfig, type AdaptiveLimiterConfig, type ResolvedAdaptiveLimiterConfig } from './config.js';
import { ADAPTIVE_LIMITER_EVENT_TYPES, type AdaptiveLimiterEvents, type AdaptiveLimiterMetrics, type AdaptivePartitionMetrics } from './events.js';
import type { LimitAlgorithm } from './limit/algorithm.js';
import { LimitFeed } from './limit-feed.js';
import { partitionView, type AdaptivePartitionPolicy } from './partition-view.js';
import { guaranteedSlots, laneOf } from './partitions.js';
import { Slots, type Grant } from './slots.js';
import { LimiterToken, type AdaptiveToken, type TokenOutcome } from './token.js';

/**
 * A concurrency limit that finds itself: a call is admitted while `inFlight < limit`, else it
 * waits up to `maxWaitDuration` for a slot (FIFO, or LIFO with `queue: 'lifo'`; at most
 * `maxQueue` waiting), else it is refused with a `RequestNotPermittedError` naming the limit.
 * Every call is a sample fed to a {@link LimitAlgorithm} (`'vegas'` by default, through a window):
 * a success gives its round-trip time (admission → settle, on the limiter's clock), a drop (a
 * `TimeoutError`, or an error `isDrop` accepts) tells of an overloaded backend, any other error
 * feeds nothing. The algorithm moves the limit; `limitChanged` says so.
 *
 * `partitions` give names shares of the limit: below the limit any call takes a free slot; when
 * the limit is reached a freed slot goes first to a waiter of a partition below its guaranteed
 * share. The limit itself is never exceeded (contract: docs/adaptive.md).
 *
 * @example
 * ```ts
 * const limiter = new AdaptiveLimiter('pg', { algorithm: 'gradient2', maxWaitDuration: '20ms', isDrop: (e) => e instanceof PoolTimeoutError });
 * const rows = await limiter.execute((ctx) => pool.query(sql, { signal: ctx.signal }));
 * limiter.on('limitChanged', (e) => console.log(`limit ${e.previous} -> ${e.limit}`));
 * ```
 */
export class AdaptiveLimiter implements Policy {
  readonly kind = 'adaptiveLimiter' as const;
  readonly #events: EventPublisher<AdaptiveLimiterEvents>;
  readonly #options: ResolvedAdaptiveLimiterConfig;
  readonly #source: string;
  readonly #names: readonly string[];
  readonly #slots: Slots;
  readonly #ends: CallEnds;
  readonly #views = new Map<string, AdaptivePartitionPolicy>();
  readonly #observers: CallObservers;
  readonly #admissions: Admissions;
  /** Read twice a call: one field away. */
  readonly #clock: Clock;

  constructor(
    readonly name: string,
    config?: AdaptiveLimiterConfig,
  ) {
    const c = resolveAdaptiveLimiterConfig(name, config);
    this.#options = c;
    this.#source = `AdaptiveLimiter '${name}'`;
    this.#clock = c.clock;
    this.#names = Object.keys(c.partitions);
    this.#observers = new CallObservers(this.#source);
    const feed = new LimitFeed(this.#source, c.algorithm);
    this.#slots = new Slots({
      limit: feed.limit,
      shares: this.#names.map((n) => c.partitions[n]!),
      lifo: c.queue === 'lifo',
      clock: c.clock,
      refused: (lane, waitedMs) => this.#admissions.refuse(lane, `freed no slot within maxWaitDuration (${waitedMs} ms)`),
    });
    this.#events = new EventPublisher(name, c.clock, this.#source, ADAPTIVE_LIMITER_EVENT_TYPES);
    const { clock, isDrop, maxWaitDuration, maxQueue, writableStackTraceEnabled } = c;
    const parts = { source: this.#source, names: this.#names, slots: this.#slots, events: this.#events };
    this.#admissions = new Admissions({ ...parts, name, maxWaitDuration, maxQueue, writableStackTraceEnabled });
    this.#ends = new CallEnds({ ...parts, clock, isDrop, feed, observers: this.#observers });
  }

  /**
   * Same as `new AdaptiveLimiter(name, config)`.
   *
   * @example
   * ```ts
   * const limiter = AdaptiveLimiter.of('pg', { algorithm: 'aimd' });
   * ```
   */
  static of(name: string, config?: AdaptiveLimiterConfig): AdaptiveLimiter {
    return new AdaptiveLimiter(name, config);
  }

  /** Every option as resolved at construction (`algorithm`: the one fed, window included). */
  get config(): ResolvedAdaptiveLimiterConfig {
    return this.#options;
  }

  /** The limit in force. */
  get limit(): number {
    return this.#slots.limit;
  }

  /** Calls holding a slot. */
  get inFlight(): number {
    return this.#slots.inFlight;
  }

  /** A fresh snapshot. */
  get metrics(): AdaptiveLimiterMetrics {
    const slots = this.#slots;
    const partitions: Record<string, AdaptivePartitionMetrics> = {};
    this.#names.forEach((n, lane) => {
      partitions[n] = { guaranteed: guaranteedSlots(slots.limit, this.#options.partitions[n]!), inFlight: slots.busy(lane), waiting: slots.waitingIn(lane) };
    });
    return { limit: slots.limit, inFlight: slots.inFlight, waiting: slots.waiting, rejected: this.#admissions.rejected, partitions };
  }

  /**
   * Subscribes to one event type, or to all with `'*'`; returns the unsubscribe function. An
   * unknown type is a `TypeError` that suggests the closest.
   */
  on<K extends keyof AdaptiveLimiterEvents & string>(type: K, listener: (event: EventOf<AdaptiveLimiterEvents, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<AdaptiveLimiterEvents>) => void): () => void;
  on(type: string, listener: (event: never) => void): () => void {
    return this.#events.subscribe(type, listener);
  }

  /**
   * Calls `observer(kind, rttMs)` once per finished call — `'successful'`, `'dropped'` or
   * `'ignored'`, with its round-trip time in ms — with no event object built (what exporters bind
   * to for a round-trip-time histogram). Returns the function that stops it. An observer that
   * throws is reported once (`BreakwaterCallbackWarning`) and changes nothing.
   *
   * @example
   * ```ts
   * const stop = limiter.observeCalls((kind, rttMs) => { if (kind !== 'ignored') rtt.observe(rttMs / 1000); });
   * ```
   */
  observeCalls(observer: AdaptiveCallObserver): () => void {
    if (typeof observer !== 'function') throw new TypeError(`${this.#source}: observeCalls(observer) needs a function, got ${describeValue(observer)}`);
    return this.#observers.add(observer);
  }

  /**
   * Takes a slot if one is free now (never waits, never ahead of a waiter): a token to settle
   * once the work ends, or `null` (refused: `callRejected`). Throws a `RangeError` for a partition
   * the limiter does not have.
   *
   * @example
   * ```ts
   * const token = limiter.tryAcquire({ partition: 'critical' });
   * if (token === null) return reply.code(503).send();
   * try { reply.send(await work()); token.onSuccess(); } catch (e) { token.onIgnore(); throw e; }
   * ```
   */
  tryAcquire(options?: { readonly partition?: string | undefined } | null): AdaptiveToken | null {
    const lane = this.#lane(options);
    if (this.#slots.tryTake(lane)) {
      this.#admissions.permitted(lane, 0);
      return this.#token(lane, this.#slots.inFlight);
    }
    this.#admissions.rejectedNow(lane);
    return null;
  }

  /**
   * Takes a slot, waiting for one at most `maxWaitDuration`; rejects with a
   * `RequestNotPermittedError` after that (or at once when it cannot wait), with the signal's
   * reason if `options.signal` aborts first (the waiter leaves the queue at once), or with a
   * `RangeError` for an unknown partition. Never throws synchronously.
   *
   * @example
   * ```ts
   * const token = await limiter.acquire({ signal, partition: 'batch' });
   * try { await work(); token.onSuccess(); } catch (e) { token.onIgnore(); throw e; }
   * ```
   */
  acquire(options?: AdaptiveCallOptions | null): Promise<AdaptiveToken> {
    const ctx = enterCall(options);
    if (ctx instanceof Promise) return ctx;
    let lane: number;
    try {
      lane = this.#lane(options);
    } catch (error) {
      return Promise.reject(error);
    }
    const signal = ctx.signal;
    const wait = this.#slot(lane, signal);
    if (wait === null) return Promise.resolve(this.#token(lane, this.#slots.inFlight));
    return wait.then(({ inFlight, waitedMs }) => {
      // Published here, in the waiting caller's own continuation (not by the call that freed the slot).
      this.#admissions.permitted(lane, waitedMs);
      const token = this.#token(lane, inFlight);
      if (signal.aborted) {
        // Aborted between getting the slot and this continuation: give it back.
        token.onIgnore();
        throw signal.reason;
      }
      return token;
    });
  }

  /**
   * Runs `fn` in a slot (waiting for one as {@link acquire} does, in `options.partition` if
   * given) and feeds its outcome to the algorithm. A caller's signal that aborts while `fn` runs
   * rejects the call at once; the slot is held until `fn` really settles (and a call whose caller
   * aborted feeds no sample unless it succeeds). Never throws synchronously.
   *
   * @example
   * ```ts
   * const user = await limiter.execute((ctx) => users.find(id, { signal: ctx.signal }), { signal, partition: 'critical' });
   * ```
   */
  execute<T>(fn: PolicyFn<T>, options?: AdaptiveCallOptions | CallContext | null): Promise<T> {
    let lane: number;
    try {
      lane = this.#lane(options as AdaptiveCallOptions | null | undefined);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#executeIn(fn, options, lane);
  }

  /**
   * Wraps `fn` so that each call runs in a slot (with no partition).
   *
   * @example
   * ```ts
   * const find = limiter.decorate((id: string) => users.find(id));
   * await find('42');
   * ```
   */
  decorate<A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>): (...args: A) => Promise<R> {
    return (...args: A) => this.#executeIn(() => fn(...args), undefined, this.#names.length);
  }

  /**
   * This limiter seen through one partition: a `Policy` (kind `'adaptiveLimiter'`, the same name)
   * whose calls run in `partition`. The same view every time for a name. Throws a `RangeError`
   * for a partition the limiter does not have.
   *
   * @example
   * ```ts
   * const batch = limiter.inPartition('batch');
   * await batch.execute(() => backend.export(rows));
   * ```
   */
  inPartition(partition: string): AdaptivePartitionPolicy {
    const lane = laneOf(this.#source, this.#names, partition);
    let view = this.#views.get(partition);
    if (view === undefined) {
      view = partitionView(this.name, partition, lane, (fn, options, l) => this.#executeIn(fn, options, l));
      this.#views.set(partition, view);
    }
    return view;
  }

  /** The lane of a call's options (its partition's; none: the last). Throws for a partition the limiter does not have. */
  #lane(options: { readonly partition?: string | undefined } | null | undefined): number {
    const partition = options === undefined || options === null ? undefined : options.partition;
    return partition === undefined ? this.#names.length : laneOf(this.#source, this.#names, partition);
  }

  #executeIn<T>(fn: PolicyFn<T>, options: ExecuteOptions | CallContext | null | undefined, lane: number): Promise<T> {
    let ctx = ROOT_CONTEXT;
    if (options !== undefined) {
      const entered = enterCall(options);
      if (entered instanceof Promise) return entered;
      ctx = entered;
    }
    const signal = ctx.signal;
    const wait = this.#slot(lane, signal);
    if (wait === null) return this.#run(fn, ctx, lane, this.#slots.inFlight);
    return wait.then(({ inFlight, waitedMs }) => {
      // The waiter holds the slot, handed over by the call that freed it; `callPermitted` is
      // published here, in this call's own async context (contract: docs/adaptive.md).
      this.#admissions.permitted(lane, waitedMs);
      if (signal.aborted) {
        // Aborted between getting the slot and starting: give it back, do not start fn.
        this.#token(lane, inFlight).onIgnore();
        throw signal.reason;
      }
      return this.#run(fn, ctx, lane, inFlight);
    });
  }

  /**
   * A slot for a call of `lane`: `null` when taken now, else the wait for one, which resolves with
   * its {@link Grant} (rejected at once when the call cannot wait).
   */
  #slot(lane: number, signal: AbortSignal): Promise<Grant> | null {
    if (this.#slots.tryTake(lane)) {
      this.#admissions.permitted(lane, 0);
      return null;
    }
    const refused = this.#admissions.cannotWait(lane);
    return refused === undefined ? this.#slots.wait(lane, signal, this.#options.maxWaitDuration) : Promise.reject(refused);
  }

  /**
   * Runs `fn` in the slot just taken (`inFlight`: the calls in flight when it was, itself
   * included); its outcome ends the slot once, when `fn` settles.
   */
  #run<T>(fn: PolicyFn<T>, ctx: CallContext, lane: number, inFlight: number): Promise<T> {
    const start = this.#clock.now();
    const signal = ctx.signal;
    let value: T | PromiseLike<T>;
    try {
      value = fn(ctx);
    } catch (error) {
      const ends = this.#ends;
      ends.finish(lane, start, inFlight, ends.judge(error, signal));
      return Promise.reject(error);
    }
    if (!this.#lent) {
      this.#lent = true;
      this.#lentLane = lane;
      this.#lentStart = start;
      this.#lentInFlight = inFlight;
      this.#lentSignal = signal;
      const outcome = follow(value).then(this.#succeeded, this.#failed) as Promise<T>;
      // Not through raceAbort without a signal: its closures' scope costs an allocation even when it returns at once.
      return signal === NEVER_ABORTED ? outcome : raceAbort(outcome, signal);
    }
    return raceAbort(this.#followOwn(value, lane, start, inFlight, signal), signal);
  }

  /**
   * The outcome of a call that found the lent ends in use, followed by a pair of its own (a
   * function of its own: the variables its closures capture would otherwise be allocated on every
   * call of `#run`).
   */
  #followOwn<T>(value: T | PromiseLike<T>, lane: number, start: number, inFlight: number, signal: AbortSignal): Promise<T> {
    const ends = this.#ends;
    return follow(value).then(
      (result) => {
        ends.finish(lane, start, inFlight, 0);
        return result;
      },
      (error: unknown) => {
        ends.finish(lane, start, inFlight, ends.judge(error, signal));
        throw error;
      },
    );
  }

  // The two ends of a call in `#run`, built once and lent to one call at a time (as Retry lends
  // its handlers), so that a call made while none is running allocates no closure: the call that
  // finds them free keeps its lane, start, in-flight count and signal here and frees them when
  // `fn` settles (before its end runs: a listener may start another call); a call that finds them
  // in use makes a pair of its own.
  #lent = false;
  #lentLane = 0;
  #lentStart = 0;
  #lentInFlight = 0;
  #lentSignal: AbortSignal = NEVER_ABORTED;

  readonly #succeeded = (result: unknown): unknown => {
    const lane = this.#lentLane;
    const start = this.#lentStart;
    const inFlight = this.#lentInFlight;
    this.#lent = false;
    this.#lentSignal = NEVER_ABORTED;
    this.#ends.finish(lane, start, inFlight, 0);
    return result;
  };

  readonly #failed = (error: unknown): never => {
    const lane = this.#lentLane;
    const start = this.#lentStart;
    const inFlight = this.#lentInFlight;
    const signal = this.#lentSignal;
    this.#lent = false;
    this.#lentSignal = NEVER_ABORTED;
    const ends = this.#ends;
    ends.finish(lane, start, inFlight, ends.judge(error, signal));
    throw error;
  };

  /** A token for the slot of `lane` just taken, with `inFlight` calls in flight when it was (itself included). */
  #token(lane: number, inFlight: number): LimiterToken {
    return new LimiterToken(this.#names[lane], lane, this.#clock.now(), inFlight, this.#settle);
  }

  /** Bound once: a token's end. */
  readonly #settle = (token: LimiterToken, outcome: TokenOutcome): void => this.#ends.finish(token.lane, token.start, token.inFlight, outcome);
}
