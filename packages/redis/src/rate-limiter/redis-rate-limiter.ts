import { EventPublisher, RequestNotPermittedError } from '@breakwater/core';
import { enterCall, invoke, NEVER_ABORTED, raceAbort, ROOT_CONTEXT, withoutStack } from '@breakwater/core/internal';
import type { AnyEventOf, CallContext, Duration, EventOf, ExecuteOptions, Policy, PolicyFn } from '@breakwater/core';
import { checkPermits, DrainOnResult, weightedPolicy, withPermitsOf, type ExecuteWithPermits, type RateLimiterPolicy } from '@breakwater/rate-limiter';
import { rateLimiterKey } from '../keys.js';
import { checkRepresentable, resolveChange } from './checks.js';
import { resolveRedisRateLimiterConfig, type RedisRateLimiterConfig, type ResolvedRedisRateLimiterConfig } from './config.js';
import { REDIS_RATE_LIMITER_EVENT_TYPES, type RedisRateLimiterEvents, type RedisRateLimiterMetrics } from './events.js';
import { Fallback } from './fallback.js';
import { metricsOf } from './metrics.js';
import { Answers } from './answers.js';
import { Store } from './store.js';
import { Batcher, Call, type Header } from './batch.js';
import { Waiters } from './waiters.js';
import { StateView } from './state-view.js';

/** The least time an idle key lives, ms (the script makes it longer when later cycles are reserved). */
const MIN_TTL_MS = '1000';

/**
 * A rate limiter shared by every process that uses the same name on the same Redis: Resilience4j's
 * atomic cycle arithmetic run as one Lua script on one key, with Redis `TIME` as the clock of all
 * instances and cycles counted from the Unix epoch. Together they never grant more than
 * `limitForPeriod` permits per cycle. The same API as `RateLimiter` (the calls of one tick share
 * one round trip: see {@link Batcher}),
 * except that `reservePermission`, `drainPermissions` are async. A caller told to wait waits on
 * its own clock; an aborted waiter hands its permits back when no later reservation stands on them.
 * When Redis does not answer within `commandTimeout`, `onStoreError` decides.
 *
 * @example
 * ```ts
 * const client = await createClient({ url: 'redis://127.0.0.1:6379' }).on('error', log.warn).connect();
 * const limiter = new RedisRateLimiter('pg', { client, limitForPeriod: 50, limitRefreshPeriod: '1s', timeoutDuration: '5s', onStoreError: 'local' });
 * await limiter.execute(() => pg.requestPayment(req));
 * const wait = await limiter.reservePermission(2); // 0, ms reserved, or -1
 * ```
 */
export class RedisRateLimiter implements Policy {
  readonly kind = 'rateLimiter' as const;
  readonly #options: ResolvedRedisRateLimiterConfig;
  readonly #events: EventPublisher<RedisRateLimiterEvents>;
  readonly #source: string;
  readonly #store: Store;
  readonly #fallback: Fallback;
  readonly #waiters: Waiters;
  readonly #batcher: Batcher;
  readonly #now: (() => number) | undefined;
  #limit: number;
  #timeout: number;
  /** The limit, period and timeout as the script reads them (built once per change). */
  #header: Header;
  readonly #answers: Answers;
  /** How many losses of the key (evicted, deleted, flushed mid-use) this instance noticed. */
  #statesLost = 0;
  /** `drainPermissionsOnResult` around each call, when it is set (a drain is one round trip the call does not await). */
  readonly #drainOnResult: DrainOnResult | undefined;
  /** How a call of any weight runs here (what `withPermitsOf` takes). */
  readonly #executeWith: ExecuteWithPermits = (fn, options, permits) => this.#execute(fn, options, permits);
  /** The one-permit policy (`weightedPolicy` of @breakwater/rate-limiter): `decorate` is its. */
  readonly #onePermit: RateLimiterPolicy;

  constructor(
    readonly name: string,
    config: RedisRateLimiterConfig,
  ) {
    const c = (this.#options = resolveRedisRateLimiterConfig(name, config));
    this.#source = `RedisRateLimiter '${name}'`;
    this.#onePermit = weightedPolicy(name, 1, (fn, options) => this.#execute(fn, options, 1));
    this.#limit = c.limitForPeriod;
    this.#timeout = c.timeoutDuration;
    this.#header = headerOf(c.limitForPeriod, c.limitRefreshPeriod, c.timeoutDuration);
    this.#now = c.time === 'redis' ? undefined : c.time;
    const events = (this.#events = new EventPublisher(name, c.clock, this.#source, REDIS_RATE_LIMITER_EVENT_TYPES));
    this.#fallback = new Fallback(name, c, config.localLimitForPeriod === undefined, events);
    this.#store = new Store(c.client, rateLimiterKey(name), c.commandTimeout, c.clock, {
      down: (error) => events.wants('storeError') && events.emit('storeError', { error, mode: c.onStoreError }),
      up: (downtimeMs) => events.wants('storeRecovered') && events.emit('storeRecovered', { downtimeMs }),
    });
    this.#waiters = new Waiters({
      clock: c.clock,
      granted: (r, waitedMs) => this.#granted(r.permits, waitedMs, r.grantCycle),
      giveBack: (r) => void this.#add(new Call('giveBack', 'g', r.permits, NEVER_ABORTED, r.seq, r.releaseAt, r.generation)),
    });
    const view = new StateView();
    this.#answers = new Answers({
      store: this.#store,
      fallback: this.#fallback,
      granted: (permits, waitMs, cycle) => this.#granted(permits, waitMs, cycle),
      refused: (permits, waitMs) => this.#refused(permits, waitMs),
      refusal: (permits, waitMs) => this.#refusal(permits, waitMs),
      drained: (permits) => events.wants('drained') && events.emit('drained', { permits }),
      wait: (permits, seq, generation, releaseAt, grantCycle, waitMs, signal) =>
        this.#waiters.wait(permits, seq, generation, releaseAt, grantCycle, waitMs, signal),
      view,
      lost: (cycle) => {
        this.#statesLost += 1;
        if (events.wants('storeStateLost')) events.emit('storeStateLost', { cycle });
      },
    });
    this.#batcher = new Batcher(this.#store, this.#answers, MIN_TTL_MS, view);
    const predicate = c.drainPermissionsOnResult;
    this.#drainOnResult = predicate === undefined ? undefined : new DrainOnResult(this.#source, predicate, () => void this.drainPermissions().catch(() => {}));
  }

  /** Every option in force (durations in ms), with the limit and timeout as last changed. */
  get config(): ResolvedRedisRateLimiterConfig {
    return { ...this.#options, limitForPeriod: this.#limit, timeoutDuration: this.#timeout };
  }

  /** A snapshot: Redis's last answer to this instance, or the fallback's figures during an outage. */
  get metrics(): RedisRateLimiterMetrics {
    return metricsOf(this.#store.down, this.#fallback, this.#answers.last, this.#limit, this.#waiters.size, this.#statesLost);
  }

  /**
   * Asks Redis for the state as of now (one round trip, reserving nothing) and returns the
   * metrics; during an outage, the fallback's.
   *
   * @example
   * ```ts
   * const { availablePermissions, cycle } = await limiter.fetchMetrics();
   * ```
   */
  async fetchMetrics(): Promise<RedisRateLimiterMetrics> {
    await this.#submit(new Call('look', 'm', 1, NEVER_ABORTED));
    return this.metrics;
  }

  /** Subscribes to one event type, or to all with `'*'`; returns the unsubscribe function. */
  on<K extends keyof RedisRateLimiterEvents & string>(type: K, listener: (event: EventOf<RedisRateLimiterEvents, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<RedisRateLimiterEvents>) => void): () => void;
  on(type: string, listener: (event: never) => void): () => void {
    return this.#events.subscribe(type, listener);
  }

  /**
   * Takes `permits` permits, waiting on the clock for them when Redis says the wait is within
   * `timeoutDuration`; else rejects with `RequestNotPermittedError`. Rejects with the signal's
   * reason when `options.signal` aborts (a waiter's permits then go back when no later
   * reservation stands on them). Never throws synchronously.
   *
   * @example
   * ```ts
   * await limiter.acquirePermission(1, { signal });
   * ```
   */
  acquirePermission(permits = 1, options?: ExecuteOptions | null): Promise<void> {
    try {
      checkPermits(this.#source, 'acquirePermission(permits)', permits);
      checkRepresentable(this.#source, 'acquirePermission(permits)', permits, this.#limit, this.#options.limitRefreshPeriod);
    } catch (error) {
      return Promise.reject(error);
    }
    const ctx = enterCall(options);
    if (ctx instanceof Promise) return ctx;
    return this.#acquire(permits, ctx.signal);
  }

  /**
   * Reserves `permits` without waiting: resolves 0 (take them now), the ms to wait before using
   * them (they are reserved: do wait), or -1 (refused; nothing reserved). During an outage:
   * the local limiter's answer, 0 (`'fail-open'`) or -1 (`'fail-closed'`).
   *
   * @example
   * ```ts
   * const wait = await limiter.reservePermission(2);
   * if (wait > 0) await sleep(systemClock, wait);
   * ```
   */
  async reservePermission(permits = 1): Promise<number> {
    checkPermits(this.#source, 'reservePermission(permits)', permits);
    checkRepresentable(this.#source, 'reservePermission(permits)', permits, this.#limit, this.#options.limitRefreshPeriod);
    return this.#submit<number>(new Call('reserve', String(permits), permits, NEVER_ABORTED)) ?? this.#fallback.reserve(permits);
  }

  /**
   * Takes the permissions left in the current cycle, for every instance (reservations of later
   * cycles stay), e.g. when the backend answered 429.
   *
   * @example
   * ```ts
   * if (res.status === 429) await limiter.drainPermissions();
   * ```
   */
  async drainPermissions(): Promise<void> {
    return this.#submit<void>(new Call('drain', 'd', 1, NEVER_ABORTED)) ?? this.#fallback.drain();
  }

  /**
   * Sets the permissions per cycle this instance refills with, from the next refill on (as in
   * Resilience4j). The limit is an argument of each call, not stored in Redis: change it on every
   * instance. Throws a `RangeError` unless an integer >= 1.
   *
   * @example
   * ```ts
   * limiter.changeLimitForPeriod(100);
   * ```
   */
  changeLimitForPeriod(limitForPeriod: number): void {
    this.#limit = resolveChange(this.name, 'limitForPeriod', limitForPeriod);
    this.#header = headerOf(this.#limit, this.#options.limitRefreshPeriod, this.#timeout);
    this.#fallback.changeLimit(this.#limit);
  }

  /**
   * Sets the longest wait, for calls from now on. Throws unless a duration >= 0.
   *
   * @example
   * ```ts
   * limiter.changeTimeoutDuration('2s');
   * ```
   */
  changeTimeoutDuration(timeoutDuration: Duration): void {
    this.#timeout = resolveChange(this.name, 'timeoutDuration', timeoutDuration);
    this.#header = headerOf(this.#limit, this.#options.limitRefreshPeriod, this.#timeout);
    this.#fallback.changeTimeout(this.#timeout);
  }

  /**
   * Runs `fn` once it has one permit from Redis, as `RateLimiter.execute` does in-process; `fn`
   * gets the call's context. Never throws synchronously.
   *
   * @example
   * ```ts
   * const rows = await limiter.execute((ctx) => pg.query(sql, { signal: ctx.signal }), { signal });
   * ```
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext | null): Promise<T> {
    return this.#executeWith(fn, options, 1);
  }

  /**
   * `fn` wrapped so that each call takes one permit from Redis first.
   *
   * @example
   * ```ts
   * const query = limiter.decorate((sql: string) => pg.query(sql)); // one permit per query, fleet-wide
   * ```
   */
  decorate<A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>): (...args: A) => Promise<R> {
    return this.#onePermit.decorate(fn);
  }

  /**
   * A policy over this limiter whose calls take `permits` permits each: `withPermitsOf` of
   * `@breakwater/rate-limiter`, as `RateLimiter.withPermits`. Throws a `RangeError` unless an
   * integer >= 1.
   *
   * @example
   * ```ts
   * await limiter.withPermits(5).execute(() => pg.copyFrom(rows)); // five permits of the fleet's limit
   * ```
   */
  withPermits(permits: number): RateLimiterPolicy {
    return withPermitsOf(this.#source, this.name, permits, this.#executeWith);
  }

  #execute<T>(fn: PolicyFn<T>, options: ExecuteOptions | CallContext | null | undefined, permits: number): Promise<T> {
    if (permits > this.#limit) {
      try {
        checkRepresentable(this.#source, 'withPermits(permits)', permits, this.#limit, this.#options.limitRefreshPeriod);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    let ctx = ROOT_CONTEXT;
    if (options !== undefined) {
      const entered = enterCall(options);
      if (entered instanceof Promise) return entered;
      ctx = entered;
    }
    return this.#acquire(permits, ctx.signal).then(() => (ctx.signal.aborted ? Promise.reject(ctx.signal.reason) : this.#run(fn, ctx)));
  }

  /** Runs `fn` (its outcome settles once); `drainPermissionsOnResult` sees the outcome; the caller's abort ends the call at once. */
  #run<T>(fn: PolicyFn<T>, ctx: CallContext): Promise<T> {
    const outcome = invoke(fn, ctx);
    const drainOnResult = this.#drainOnResult;
    return raceAbort(drainOnResult === undefined ? outcome : (outcome.then(drainOnResult.onResult, drainOnResult.onError) as Promise<T>), ctx.signal);
  }

  /** This tick's round trip (see {@link Batcher}); then the wait on the clock, the refusal, or the fallback. */
  #acquire(permits: number, signal: AbortSignal): Promise<void> {
    const call = new Call('acquire', permits === 1 ? '1' : String(permits), permits, signal);
    const decided = this.#submit<void>(call);
    return decided === undefined ? this.#fallback.acquire(permits, signal, this.#store.lastError) : raceAbort(decided, signal);
  }

  /**
   * Adds `call` to this tick's batch: its promise, or undefined when no round trip can be made now
   * (the fallback decides). During an outage, on time ({@link Store.retryDue}), the call first gives
   * the event loop a turn (the client reconnects then) and tries again; the fallback decides it if
   * Redis is still out of reach.
   */
  #submit<T>(call: Call): Promise<T> | undefined {
    if (!this.#add(call)) {
      if (!this.#store.retryDue()) return undefined;
      const promise = this.#pending<T>(call);
      setImmediate(this.#retry, call);
      return promise;
    }
    return this.#pending<T>(call);
  }

  /** A call's promise, settled by the batch (or the fallback) that decides it. */
  #pending<T>(call: Call): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      call.resolve = resolve as (value?: unknown) => void;
      call.reject = reject;
    });
  }

  /** A call that gave the event loop a turn during an outage: Redis if a round trip can begin now, else the fallback. */
  readonly #retry = (call: Call): void => {
    if (this.#add(call)) return;
    try {
      this.#answers.failed(call);
    } catch (error) {
      call.reject(error);
    }
  };

  #add(call: Call): boolean {
    return this.#batcher.add(call, this.#header, this.#now === undefined ? '' : String(this.#now()));
  }

  #granted(permits: number, waitMs: number, cycle: number): void {
    if (this.#events.wants('successfulAcquire')) this.#events.emit('successfulAcquire', { permits, waitMs, cycle });
  }

  #refused(permits: number, waitMs: number): void {
    if (this.#events.wants('failedAcquire')) this.#events.emit('failedAcquire', { permits, waitMs });
  }

  #refusal(permits: number, waitMs: number): RequestNotPermittedError {
    this.#refused(permits, waitMs);
    return this.#options.writableStackTraceEnabled
      ? new RequestNotPermittedError(this.name, waitMs)
      : withoutStack(() => new RequestNotPermittedError(this.name, waitMs));
  }
}

/** A batch's header (a timeout of `Infinity` is `1e300`: Lua's tonumber has no `Infinity`). */
function headerOf(limit: number, period: number, timeout: number): Header {
  return { limit, period, timeout, limitArg: String(limit), periodArg: String(period), timeoutArg: timeout === Infinity ? '1e300' : String(timeout) };
}
