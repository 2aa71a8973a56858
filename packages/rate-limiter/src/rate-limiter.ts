import {
  callbackThrew,
  describeValue,
  enterCall,
  EventPublisher,
  invoke,
  keepAlive,
  LinkedQueue,
  NEVER_ABORTED,
  onAbort,
  raceAbort,
  ROOT_CONTEXT,
  RequestNotPermittedError,
  toContext,
  withoutStack,
  type AnyEventOf,
  type CallContext,
  type Clock,
  type Duration,
  type EventOf,
  type ExecuteOptions,
  type Linked,
  type Policy,
  type PolicyFn,
} from '@breakwater/core';
import { readChange, readRateLimiterConfig, type CallOutcome, type RateLimiterConfig, type ResolvedRateLimiterConfig } from './config.js';
import { RATE_LIMITER_EVENT_TYPES, type RateLimiterEvents, type RateLimiterMetrics } from './events.js';
import { drain, giveBack, initialState, nextState, refresh, type RateLimiterState } from './state.js';

/** A call waiting on a timer for permits it has reserved. */
interface Waiter extends Linked<Waiter> {
  readonly permits: number;
  /** Clock time at which its permits are there. */
  readonly releaseAt: number;
  aborted: boolean;
}

/**
 * A view of a rate limiter that takes `permits` permits per call (from {@link RateLimiter.withPermits}).
 *
 * @example
 * ```ts
 * const bulk = limiter.withPermits(5);
 * await bulk.execute(() => api.batch(items));
 * ```
 */
export interface RateLimiterPolicy extends Policy {
  readonly kind: 'rateLimiter';
  /** Permits each call takes. */
  readonly permits: number;
  decorate<A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>): (...args: A) => Promise<R>;
}

const RESOLVED: Promise<void> = Promise.resolve();

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
  readonly #clock: Clock;
  readonly #events: EventPublisher<RateLimiterEvents>;
  /** The options as resolved at construction (the limit and timeout in force live in #state and #timeout). */
  readonly #options: ResolvedRateLimiterConfig;
  readonly #drainOnResult: ((outcome: CallOutcome) => boolean) | undefined;
  readonly #stackTraces: boolean;
  readonly #source: string;
  #state: RateLimiterState;
  #timeout: number;
  #waiting = 0;
  /** The clock reading of the last reservation: a waiter's permits are there at this + its wait. */
  #reservedAt = 0;
  /**
   * Waiters whose permits can still be handed back if they abort: those reserved after the last
   * permit taken by anything else, in reservation order (so their permits are the last ones
   * reserved, and giving them back lets no later call into a cycle that is already full).
   */
  readonly #returnable = new LinkedQueue<Waiter>();

  constructor(
    readonly name: string,
    config?: RateLimiterConfig,
  ) {
    const c = readRateLimiterConfig(name, config);
    this.#options = c;
    this.#clock = c.clock;
    this.#timeout = c.timeoutDuration;
    this.#drainOnResult = c.drainPermissionsOnResult;
    this.#stackTraces = c.writableStackTraceEnabled;
    this.#source = `RateLimiter '${name}'`;
    this.#state = initialState(c.limitForPeriod, c.limitRefreshPeriod, this.#clock.now());
    this.#events = new EventPublisher(name, this.#clock, this.#source, RATE_LIMITER_EVENT_TYPES);
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
   * Every option's value in force (durations in ms): what was given or its default, with the
   * limit and the timeout as `changeLimitForPeriod` / `changeTimeoutDuration` last set them.
   */
  get config(): ResolvedRateLimiterConfig {
    return { ...this.#options, limitForPeriod: this.#state.limitForPeriod, timeoutDuration: this.#timeout };
  }

  /** A fresh snapshot as of `clock.now()` (estimated as Resilience4j does, reserving nothing). */
  get metrics(): RateLimiterMetrics {
    const now = refresh(this.#state, this.#clock.now());
    return { availablePermissions: now.permissions, numberOfWaitingCalls: this.#waiting, waitMs: now.waitMs, cycle: now.cycle };
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
    let signal = NEVER_ABORTED;
    if (permits !== 1 || (options !== undefined && options !== null)) {
      try {
        this.#checkPermits('acquirePermission(permits)', permits);
        signal = toContext(options).signal;
      } catch (error) {
        return Promise.reject(error);
      }
      if (signal.aborted) return Promise.reject(signal.reason);
    }
    const wait = this.#reserve(permits);
    if (wait === 0) {
      this.#seal();
      this.#succeeded(permits, 0);
      return RESOLVED;
    }
    if (wait < 0) return Promise.reject(this.#failed(permits));
    return this.#wait(permits, wait, signal);
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
    this.#checkPermits('reservePermission(permits)', permits);
    const wait = this.#reserve(permits);
    if (wait < 0) {
      this.#failed(permits);
      return -1;
    }
    this.#seal();
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
    const now = this.#clock.now();
    const before = refresh(this.#state, now).permissions;
    this.#state = drain(this.#state, now);
    if (before > 0) this.#seal();
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
    const limit = readChange(this.name, 'limitForPeriod', limitForPeriod);
    this.#state = { ...this.#state, limitForPeriod: limit };
    this.#seal();
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
    this.#timeout = readChange(this.name, 'timeoutDuration', timeoutDuration);
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
    this.#checkPermits('withPermits(permits)', permits);
    const execute = <T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext | null): Promise<T> => this.#execute(fn, options, permits);
    return {
      name: this.name,
      kind: 'rateLimiter',
      permits,
      execute,
      decorate: <A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>) =>
        (...args: A): Promise<R> => execute(() => fn(...args)),
    };
  }

  #execute<T>(fn: PolicyFn<T>, options: ExecuteOptions | CallContext | null | undefined, permits: number): Promise<T> {
    let ctx = ROOT_CONTEXT;
    if (options !== undefined) {
      const entered = enterCall(options);
      if (entered instanceof Promise) return entered;
      ctx = entered;
    }
    const wait = this.#reserve(permits);
    if (wait === 0) {
      this.#seal();
      this.#succeeded(permits, 0);
      return this.#run(fn, ctx);
    }
    if (wait < 0) return Promise.reject(this.#failed(permits));
    // An abort in the instant between the grant and this continuation: fn is not started.
    return this.#wait(permits, wait, ctx.signal).then(() => (ctx.signal.aborted ? Promise.reject(ctx.signal.reason) : this.#run(fn, ctx)));
  }

  /** Reserves `permits` now: the wait (>= 0), or -1 when it exceeds the timeout (nothing reserved). */
  #reserve(permits: number): number {
    const now = this.#clock.now();
    const next = nextState(this.#state, permits, this.#timeout, now);
    this.#state = next;
    this.#reservedAt = now;
    return this.#timeout >= next.waitMs ? next.waitMs : -1;
  }

  #wait(permits: number, waitMs: number, signal: AbortSignal): Promise<void> {
    const waiter: Waiter = { prev: null, next: null, linked: false, permits, releaseAt: this.#reservedAt + waitMs, aborted: false };
    this.#returnable.push(waiter);
    this.#waiting++;
    return new Promise<void>((resolve, reject) => {
      // One listener per signal for all of Breakwater (onAbort); none at all without a signal.
      const stop = onAbort(signal, () => {
        this.#clock.clearTimeout(timer);
        this.#waiting--;
        this.#handBack(waiter);
        reject(signal.reason);
      });
      // The caller awaits this wait: it keeps the process alive (see keepAlive).
      const timer = keepAlive(
        this.#clock.setTimeout(() => {
          stop();
          this.#waiting--;
          this.#released(waiter);
          this.#succeeded(permits, waitMs);
          resolve();
        }, waitMs),
      );
    });
  }

  /** A waiter got its permits: it and every reservation before it can no longer be handed back. */
  #released(waiter: Waiter): void {
    if (!waiter.linked) return;
    for (let first = this.#returnable.shift(); first !== null && first !== waiter; first = this.#returnable.shift());
  }

  /**
   * An aborted waiter's permits come back when they are the last ones reserved; an earlier one
   * stays as a hole until everything reserved after it has come back too (else a later waiter's
   * slot would be counted twice and a cycle could let more than its limit through).
   */
  #handBack(waiter: Waiter): void {
    if (!waiter.linked) return;
    waiter.aborted = true;
    const now = this.#clock.now();
    for (let last = this.#returnable.last; last !== null && last.aborted && last.releaseAt > now; last = this.#returnable.last) {
      this.#returnable.pop();
      this.#state = giveBack(this.#state, last.permits, now);
    }
  }

  /** Something other than a waiter took permits (or the limit changed): no waiter before it can hand back. */
  #seal(): void {
    if (this.#returnable.size === 0) return;
    while (this.#returnable.shift() !== null);
  }

  /** Runs `fn` (its outcome settles once, whatever it returns); the caller's abort ends the call at once. */
  #run<T>(fn: PolicyFn<T>, ctx: CallContext): Promise<T> {
    const outcome = invoke(fn, ctx);
    return raceAbort(this.#drainOnResult === undefined ? outcome : (outcome.then(this.#onResult, this.#onError) as Promise<T>), ctx.signal);
  }

  // Bound once: a call with drainPermissionsOnResult allocates no closure for it.
  readonly #onResult = (result: unknown): unknown => {
    this.#afterCall({ result });
    return result;
  };

  readonly #onError = (error: unknown): never => {
    this.#afterCall({ error });
    throw error;
  };

  #afterCall(outcome: CallOutcome): void {
    const predicate = this.#drainOnResult!;
    let drainNow: boolean;
    try {
      drainNow = predicate(outcome) === true;
    } catch (error) {
      callbackThrew(this.#source, 'drainPermissionsOnResult', predicate, error, "the call's outcome is kept and nothing is drained");
      return;
    }
    if (drainNow) this.drainPermissions();
  }

  #succeeded(permits: number, waitMs: number): void {
    if (this.#events.wants('successfulAcquire')) this.#events.emit('successfulAcquire', { permits, waitMs });
  }

  /** Publishes the refusal and builds its error (with the wait the permits would have needed). */
  #failed(permits: number): RequestNotPermittedError {
    const waitMs = this.#state.waitMs;
    if (this.#events.wants('failedAcquire')) this.#events.emit('failedAcquire', { permits, waitMs });
    return this.#stackTraces ? new RequestNotPermittedError(this.name, waitMs) : withoutStack(() => new RequestNotPermittedError(this.name, waitMs));
  }

  /** `what` names the argument in the message: `acquirePermission(permits)`, `withPermits(permits)`. */
  #checkPermits(what: string, permits: number): void {
    if (permits === 1) return;
    if (typeof permits !== 'number') {
      throw new TypeError(`${this.#source}: ${what} must be a number, got ${describeValue(permits)}`);
    }
    if (!Number.isSafeInteger(permits) || permits < 1) {
      const range = permits > Number.MAX_SAFE_INTEGER ? `an integer in [1, ${Number.MAX_SAFE_INTEGER}]` : 'an integer >= 1';
      throw new RangeError(`${this.#source}: ${what} must be ${range}, got ${String(permits)}`);
    }
  }
}
