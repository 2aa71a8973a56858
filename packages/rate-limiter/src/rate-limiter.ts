import { EventPublisher, RequestNotPermittedError } from '@breakwater/core';
import { enterCall, invoke, NEVER_ABORTED, raceAbort, ROOT_CONTEXT, withoutStack } from '@breakwater/core/internal';
import type { AnyEventOf, CallContext, Duration, EventOf, ExecuteOptions, Policy, PolicyFn } from '@breakwater/core';
import {
  acquireSignal,
  checkPermits,
  resolveRateLimiterChange,
  resolveRateLimiterConfig,
  type RateLimiterConfig,
  type ResolvedRateLimiterConfig,
} from './config.js';
import { DrainOnResult } from './drain-on-result.js';
import { RATE_LIMITER_EVENT_TYPES, type RateLimiterEvents, type RateLimiterMetrics } from './events.js';
import { LocalPermitState, type PermitState } from './permit-state.js';
import { Permits } from './permits.js';
import { handleOf, sharedFactory, type SharedRateLimiterHandle, type SharedRateLimiterOptions } from './shared.js';
import { withPermitsOf, type RateLimiterPolicy } from './weighted-policy.js';

const RESOLVED: Promise<void> = Promise.resolve();

/**
 * A {@link RateLimiter} made by `RateLimiter.shared`: its state is shared, and so it has a `handle`.
 *
 * @example
 * ```ts
 * const pg: SharedRateLimiter = RateLimiter.shared('pg', { limitForPeriod: 10 });
 * worker.postMessage(pg.handle);
 * ```
 */
export type SharedRateLimiter = RateLimiter & { readonly handle: SharedRateLimiterHandle };

/**
 * `RateLimiter.shared`: a limiter whose cycle state (cycle, permissions, `limitForPeriod`) lives in
 * a `SharedArrayBuffer`, so that worker threads share one limit.
 *
 * - `RateLimiter.shared(name, config)` makes a new shared state (the options of `new RateLimiter`;
 *   `limitForPeriod` at most 2^31 − 1);
 * - `RateLimiter.shared(handle, options?)`, in any thread, attaches to the state of
 *   `limiter.handle` (`options`: the per-thread ones, {@link SharedRateLimiterOptions}).
 *
 * Each thread's limiter has the whole `RateLimiter` API and its own waiters, events and metrics;
 * all reserve from the same permits, and `changeLimitForPeriod` and `drainPermissions` act on them
 * for every thread. A bad handle throws a `TypeError` naming what is wrong.
 *
 * @example
 * ```ts
 * // main thread
 * const pg = RateLimiter.shared('pg', { limitForPeriod: 100, limitRefreshPeriod: '1s' });
 * new Worker(new URL('./worker.js', import.meta.url), { workerData: { pg: pg.handle } });
 * // worker.js
 * const pg = RateLimiter.shared(workerData.pg);
 * await pg.execute(() => fetch(url));
 * ```
 */
export interface SharedRateLimiterFactory {
  (name: string, config?: RateLimiterConfig): SharedRateLimiter;
  (handle: SharedRateLimiterHandle, options?: SharedRateLimiterOptions): SharedRateLimiter;
}

/**
 * An atomic rate limiter: Resilience4j's `AtomicRateLimiter` arithmetic, with no scheduler.
 * Time since creation is cut into cycles of `limitRefreshPeriod`; each cycle brings at most
 * `limitForPeriod` permissions (unused ones are lost), refreshed lazily on the next call. A caller
 * that would have to wait is told exactly how long — to the start of the cycle whose refill covers
 * its permits — and waits that long on the clock if it is within `timeoutDuration`; otherwise it
 * is refused **at once** with a {@link RequestNotPermittedError} whose `waitMs` says when a permit
 * would be free (for `Retry-After`).
 *
 * @example
 * ```ts
 * const limiter = new RateLimiter('pg', { limitForPeriod: 10, limitRefreshPeriod: '1s', timeoutDuration: '500ms' });
 * const pay = limiter.decorate((req: PaymentRequest) => pg.requestPayment(req));
 * try {
 *   await pay(req);
 * } catch (e) {
 *   if (e instanceof RequestNotPermittedError) res.set('Retry-After', String(Math.ceil(e.waitMs / 1000)));
 * }
 * ```
 */
export class RateLimiter implements Policy {
  readonly kind = 'rateLimiter' as const;
  readonly #events: EventPublisher<RateLimiterEvents>;
  /** The options as resolved at construction (the limit and timeout in force live in #permits and #timeout). */
  readonly #options: ResolvedRateLimiterConfig;
  /** `drainPermissionsOnResult` around each call, when it is set. */
  readonly #drainOnResult: DrainOnResult | undefined;
  /** `writableStackTraceEnabled`: whether a refusal's error carries a stack. */
  readonly #stackTraces: boolean;
  /** `RateLimiter 'name'`, how messages and warnings name the limiter. */
  readonly #source: string;
  /** The permits over time: the cycle state, the reservations, the callers waiting for theirs. */
  readonly #permits: Permits;
  /** `timeoutDuration` in force (`changeTimeoutDuration` may change it). */
  #timeout: number;

  /** `state` is internal: where the cycle state lives when not in this limiter (see {@link RateLimiter.shared}). */
  constructor(
    readonly name: string,
    config?: RateLimiterConfig,
    state?: PermitState,
  ) {
    const c = resolveRateLimiterConfig(name, config);
    this.#options = c;
    this.#timeout = c.timeoutDuration;
    this.#stackTraces = c.writableStackTraceEnabled;
    this.#source = `RateLimiter '${name}'`;
    const predicate = c.drainPermissionsOnResult;
    this.#drainOnResult = predicate === undefined ? undefined : new DrainOnResult(this.#source, predicate, () => this.drainPermissions());
    // An in-process limiter's cycles count from here (the last reading of the clock in the constructor).
    state ??= new LocalPermitState(c.limitForPeriod, c.limitRefreshPeriod, c.clock);
    this.#permits = new Permits({ state, clock: c.clock, granted: (permits, waitMs) => this.#succeeded(permits, waitMs) });
    this.#events = new EventPublisher(name, c.clock, this.#source, RATE_LIMITER_EVENT_TYPES);
  }

  /**
   * Same as `new RateLimiter(name, config)`.
   *
   * @example
   * ```ts
   * const limiter = RateLimiter.of('pg', { limitForPeriod: 5 });
   * ```
   */
  static of(name: string, config?: RateLimiterConfig): RateLimiter {
    return new RateLimiter(name, config);
  }

  /**
   * A limiter whose cycle state lives in a `SharedArrayBuffer`, so that worker threads share one
   * limit: `shared(name, config)` makes one, `shared(limiter.handle, options?)` attaches to it in
   * any thread (see {@link SharedRateLimiterFactory}).
   *
   * @example
   * ```ts
   * const pg = RateLimiter.shared('pg', { limitForPeriod: 100, limitRefreshPeriod: '1s' });
   * ```
   */
  static readonly shared: SharedRateLimiterFactory = sharedFactory((name, config, state) => new RateLimiter(name, config, state) as SharedRateLimiter);

  /**
   * What passes this limiter to a worker thread (`postMessage`, `workerData`, a task's payload) to
   * attach there with `RateLimiter.shared(handle)`; `undefined` unless made by `RateLimiter.shared`.
   *
   * @example
   * ```ts
   * await pool.run({ rows, limiter: pg.handle });
   * ```
   */
  get handle(): SharedRateLimiterHandle | undefined {
    return handleOf(this.#permits.state, this.name, this.#timeout, this.#stackTraces);
  }

  /**
   * Every option's value in force (durations in ms): what was given or its default, with the
   * limit and the timeout as `changeLimitForPeriod` / `changeTimeoutDuration` last set them.
   */
  get config(): ResolvedRateLimiterConfig {
    return { ...this.#options, limitForPeriod: this.#permits.limitForPeriod, timeoutDuration: this.#timeout };
  }

  /** A fresh snapshot as of `clock.now()` (estimated as Resilience4j does, reserving nothing). */
  get metrics(): RateLimiterMetrics {
    const now = this.#permits.current();
    return { availablePermissions: now.permissions, numberOfWaitingCalls: this.#permits.waiting, waitMs: now.waitMs, cycle: now.cycle };
  }

  /**
   * Subscribes to one event type, or to all with `'*'`; returns the unsubscribe function. An
   * unknown type is a `TypeError` that suggests the closest one.
   */
  on<K extends keyof RateLimiterEvents & string>(type: K, listener: (event: EventOf<RateLimiterEvents, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<RateLimiterEvents>) => void): () => void;
  on(type: string, listener: (event: never) => void): () => void {
    return this.#events.subscribe(type, listener);
  }

  /**
   * Takes `permits` permits, waiting on the clock for them when the wait is within
   * `timeoutDuration`; else rejects at once with {@link RequestNotPermittedError}. More permits
   * than `limitForPeriod` are reserved across several cycles, as in Resilience4j. Rejects with a
   * `RangeError` when `permits` is not an integer >= 1, and with the signal's reason when
   * `options.signal` aborts (a waiter aborted then hands its permits back when no later
   * reservation stands on them). Never throws synchronously.
   *
   * @example
   * ```ts
   * await limiter.acquirePermission(1, { signal });
   * ```
   */
  acquirePermission(permits = 1, options?: ExecuteOptions | null): Promise<void> {
    const signal = permits === 1 && (options === undefined || options === null) ? NEVER_ABORTED : acquireSignal(this.#source, permits, options);
    if (signal instanceof Promise) return signal;
    const wait = this.#permits.acquire(permits, this.#timeout);
    if (wait === 0) {
      this.#succeeded(permits, 0);
      return RESOLVED;
    }
    if (wait < 0) return Promise.reject(this.#failed(permits));
    return this.#permits.wait(permits, wait, signal);
  }

  /**
   * Reserves `permits` without waiting: returns 0 (take them now), the ms to wait before using
   * them (they are reserved: do wait), or -1 (refused; nothing reserved). More permits than
   * `limitForPeriod` are reserved across several cycles. Throws a `RangeError` when `permits` is
   * not an integer >= 1.
   *
   * @example
   * ```ts
   * const wait = limiter.reservePermission();
   * if (wait < 0) throw new Error('busy');
   * if (wait > 0) await sleep(clock, wait);
   * ```
   */
  reservePermission(permits = 1): number {
    checkPermits(this.#source, 'reservePermission(permits)', permits);
    const wait = this.#permits.reserve(permits, this.#timeout);
    if (wait < 0) {
      this.#failed(permits);
      return -1;
    }
    this.#succeeded(permits, wait);
    return wait;
  }

  /**
   * Takes the permissions left in the current cycle (`availablePermissions` becomes
   * `min(available, 0)`), e.g. when the backend answered "too many requests". Reservations of
   * later cycles stay.
   *
   * @example
   * ```ts
   * if (res.status === 429) limiter.drainPermissions();
   * ```
   */
  drainPermissions(): void {
    const before = this.#permits.drain();
    if (this.#events.wants('drained')) this.#events.emit('drained', { permits: Math.max(before, 0) });
  }

  /**
   * Sets the permissions per cycle; as in Resilience4j it counts from the next refill (the
   * current cycle keeps what it has left). Throws a `RangeError` unless an integer >= 1.
   *
   * @example
   * ```ts
   * limiter.changeLimitForPeriod(100); // evening peak
   * ```
   */
  changeLimitForPeriod(limitForPeriod: number): void {
    const limit = resolveRateLimiterChange(this.name, 'limitForPeriod', limitForPeriod);
    this.#permits.changeLimit(limit);
  }

  /**
   * Sets the longest wait, for calls from now on (waiting calls keep theirs). Throws unless a
   * duration >= 0.
   *
   * @example
   * ```ts
   * limiter.changeTimeoutDuration('2s');
   * ```
   */
  changeTimeoutDuration(timeoutDuration: Duration): void {
    this.#timeout = resolveRateLimiterChange(this.name, 'timeoutDuration', timeoutDuration);
  }

  /**
   * Runs `fn` once it has one permit (see {@link acquirePermission}); `fn` gets the call's context.
   * Never throws synchronously. A caller's signal that aborts while `fn` runs rejects the call at
   * once with its reason (`fn` goes on with `ctx.signal` aborted). `drainPermissionsOnResult`,
   * when set, runs on `fn`'s outcome.
   *
   * @example
   * ```ts
   * const body = await limiter.execute((ctx) => fetch(url, { signal: ctx.signal }), { signal });
   * ```
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext | null): Promise<T> {
    return this.#execute(fn, options, 1);
  }

  /**
   * Wraps `fn` so that each call takes one permit first.
   *
   * @example
   * ```ts
   * const search = limiter.decorate((q: string) => api.search(q));
   * await search('breakwater');
   * ```
   */
  decorate<A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>): (...args: A) => Promise<R> {
    return (...args: A) => this.#execute(() => fn(...args), undefined, 1);
  }

  /**
   * A policy over this limiter whose calls take `permits` permits each (a bulk call that weighs
   * more; above `limitForPeriod` it waits across several cycles). Throws a `RangeError` unless an
   * integer >= 1.
   *
   * @example
   * ```ts
   * await limiter.withPermits(5).execute(() => api.batch(items));
   * ```
   */
  withPermits(permits: number): RateLimiterPolicy {
    return withPermitsOf(this.#source, this.name, permits, (fn, options, n) => this.#execute(fn, options, n));
  }

  #execute<T>(fn: PolicyFn<T>, options: ExecuteOptions | CallContext | null | undefined, permits: number): Promise<T> {
    let ctx = ROOT_CONTEXT;
    if (options !== undefined) {
      const entered = enterCall(options);
      if (entered instanceof Promise) return entered;
      ctx = entered;
    }
    const wait = this.#permits.acquire(permits, this.#timeout);
    if (wait === 0) {
      this.#succeeded(permits, 0);
      return this.#run(fn, ctx);
    }
    if (wait < 0) return Promise.reject(this.#failed(permits));
    // An abort in the instant between the grant and this continuation: fn is not started.
    return this.#permits.wait(permits, wait, ctx.signal).then(() => (ctx.signal.aborted ? Promise.reject(ctx.signal.reason) : this.#run(fn, ctx)));
  }

  /** Runs `fn` (its outcome settles once, whatever it returns); the caller's abort ends the call at once. */
  #run<T>(fn: PolicyFn<T>, ctx: CallContext): Promise<T> {
    const outcome = invoke(fn, ctx);
    const drainOnResult = this.#drainOnResult;
    return raceAbort(drainOnResult === undefined ? outcome : (outcome.then(drainOnResult.onResult, drainOnResult.onError) as Promise<T>), ctx.signal);
  }

  /** Publishes that a caller got `permits` after `waitMs`. */
  #succeeded(permits: number, waitMs: number): void {
    if (this.#events.wants('successfulAcquire')) this.#events.emit('successfulAcquire', { permits, waitMs });
  }

  /** Publishes the refusal and builds its error (with the wait the permits would have needed). */
  #failed(permits: number): RequestNotPermittedError {
    const waitMs = this.#permits.lastWaitMs;
    if (this.#events.wants('failedAcquire')) this.#events.emit('failedAcquire', { permits, waitMs });
    return this.#stackTraces ? new RequestNotPermittedError(this.name, waitMs) : withoutStack(() => new RequestNotPermittedError(this.name, waitMs));
  }
}
