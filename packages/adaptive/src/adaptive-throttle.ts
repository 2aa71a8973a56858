import { BulkheadFullError, CallNotPermittedError, EventPublisher, RequestNotPermittedError } from '@breakwater/core';
import type { AnyEventOf, CallContext, Clock, EventOf, ExecuteOptions, Policy, PolicyFn } from '@breakwater/core';
import { callbackThrew, enterCall, follow, NEVER_ABORTED, raceAbort, ROOT_CONTEXT } from '@breakwater/core/internal';
import { ADAPTIVE_THROTTLE_EVENT_TYPES, NO_FIELDS, type AdaptiveThrottleEvents, type AdaptiveThrottleMetrics } from './events.js';
import { refusal } from './refusal.js';
import { resolveAdaptiveThrottleConfig, type AdaptiveThrottleConfig, type ResolvedAdaptiveThrottleConfig } from './throttle-config.js';
import { ThrottleWindow } from './throttle-window.js';

/**
 * A request let through by an {@link AdaptiveThrottle}'s `tryAcquire`: say once how the backend
 * answered. A second call of any method is ignored.
 *
 * - `onAccepted()`: the backend accepted the request (a success, or an error of its own that is
 *   not an overload, e.g. a 404).
 * - `onRejected()`: the backend refused it (a 429, a 503, a time-out): it counts against the backend.
 * - `onIgnore()`: the request was never sent after all (or its answer is not to be judged); it is
 *   not counted.
 *
 * The request is counted (with its accept, if accepted) when the token is settled, in the bucket
 * of the moment `tryAcquire` let it through; until then it is in flight and not counted.
 *
 * @example
 * ```ts
 * const token = throttle.tryAcquire();
 * if (token === null) throw new Error('throttled');
 * const res = await fetch(url);
 * if (res.status === 429 || res.status >= 500) token.onRejected();
 * else token.onAccepted();
 * ```
 */
export interface AdaptiveThrottleToken {
  onAccepted(): void;
  onRejected(): void;
  onIgnore(): void;
}

/** The throttle's token: the bucket its request was counted in, settled once. */
class ThrottleToken implements AdaptiveThrottleToken {
  #done = false;

  constructor(
    readonly bucket: number,
    readonly settle: (token: ThrottleToken, outcome: 0 | 1 | 2) => void,
  ) {}

  onAccepted(): void {
    this.#end(0);
  }

  onRejected(): void {
    this.#end(1);
  }

  onIgnore(): void {
    this.#end(2);
  }

  #end(outcome: 0 | 1 | 2): void {
    if (this.#done) return;
    this.#done = true;
    this.settle(this, outcome);
  }
}

/**
 * Google SRE's client-side throttling ("Handling Overload"): over a sliding window (2 minutes by
 * default) the client counts the requests whose outcome is known — answered by the backend, or
 * rejected locally — and those the backend accepted, and rejects a new request locally — before
 * the backend is asked — with probability `max(0, (requests − k·accepts) / (requests + 1))`,
 * capped by `maxRejectRatio`. A request in flight is not counted until it is answered (in the
 * bucket of its own start), so a cold burst on a fresh throttle is let through; a backend that
 * never answers is not counted either — put a time limiter inside the throttle. While the
 * backend accepts more than one request in `k`, nothing is rejected; as it refuses more, the
 * client sheds its own load instead of sending requests that would fail. A local rejection is a
 * `RequestNotPermittedError` naming the reject ratio.
 *
 * @example
 * ```ts
 * const throttle = new AdaptiveThrottle('search', { isDrop: (e) => e instanceof HttpError && (e.status === 429 || e.status >= 500) });
 * const hits = await throttle.execute((ctx) => search(q, { signal: ctx.signal }));
 * ```
 */
export class AdaptiveThrottle implements Policy {
  readonly kind = 'throttle' as const;
  readonly #events: EventPublisher<AdaptiveThrottleEvents>;
  readonly #options: ResolvedAdaptiveThrottleConfig;
  readonly #source: string;
  readonly #window: ThrottleWindow;
  // Read on every call: kept here, one field away.
  readonly #clock: Clock;
  readonly #k: number;
  readonly #maxRejectRatio: number;

  constructor(
    readonly name: string,
    config?: AdaptiveThrottleConfig,
  ) {
    const c = resolveAdaptiveThrottleConfig(name, config);
    this.#options = c;
    this.#source = `AdaptiveThrottle '${name}'`;
    this.#window = new ThrottleWindow(c.window, c.clock.now());
    this.#clock = c.clock;
    this.#k = c.k;
    this.#maxRejectRatio = c.maxRejectRatio;
    this.#events = new EventPublisher(name, c.clock, this.#source, ADAPTIVE_THROTTLE_EVENT_TYPES);
  }

  /**
   * Same as `new AdaptiveThrottle(name, config)`.
   *
   * @example
   * ```ts
   * const throttle = AdaptiveThrottle.of('search', { k: 1.5 });
   * ```
   */
  static of(name: string, config?: AdaptiveThrottleConfig): AdaptiveThrottle {
    return new AdaptiveThrottle(name, config);
  }

  /** Every option as resolved at construction (the window in ms). */
  get config(): ResolvedAdaptiveThrottleConfig {
    return this.#options;
  }

  /** The probability of a local rejection now. */
  get rejectRatio(): number {
    this.#window.advance(this.#options.clock.now());
    return this.#window.ratio(this.#options.k, this.#options.maxRejectRatio);
  }

  /** A fresh snapshot of the window as of `clock.now()`. */
  get metrics(): AdaptiveThrottleMetrics {
    const window = this.#window;
    window.advance(this.#options.clock.now());
    return {
      requests: window.requests,
      accepts: window.accepts,
      rejected: window.rejected,
      rejectRatio: window.ratio(this.#options.k, this.#options.maxRejectRatio),
    };
  }

  /**
   * Subscribes to one event type, or to all with `'*'`; returns the unsubscribe function. An
   * unknown type is a `TypeError` that suggests the closest.
   */
  on<K extends keyof AdaptiveThrottleEvents & string>(type: K, listener: (event: EventOf<AdaptiveThrottleEvents, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<AdaptiveThrottleEvents>) => void): () => void;
  on(type: string, listener: (event: never) => void): () => void {
    return this.#events.subscribe(type, listener);
  }

  /**
   * Draws against the reject ratio now: a token to settle with the backend's answer (the request
   * is counted then, in the bucket of this moment), or `null` when the throttle rejects the
   * request locally (`callRejected`; counted at once as a request). Never waits.
   *
   * @example
   * ```ts
   * const token = throttle.tryAcquire();
   * if (token === null) return cached();
   * try { const r = await backend.get(id); token.onAccepted(); return r; } catch (e) { token.onRejected(); throw e; }
   * ```
   */
  tryAcquire(): AdaptiveThrottleToken | null {
    const bucket = this.#admit();
    return bucket < 0 ? null : new ThrottleToken(bucket, this.#settle);
  }

  /**
   * Runs `fn` unless the throttle rejects it locally (a `RequestNotPermittedError` naming the
   * reject ratio); the request is counted when `fn` settles, in the bucket of its start: a
   * success, or an error `isDrop` does not accept, is an accept; a refusal by a Breakwater layer
   * inside is not counted. A caller's signal that aborts while `fn` runs rejects the call at once
   * (and its outcome, unless a success, is not counted). Never throws synchronously.
   *
   * @example
   * ```ts
   * const body = await throttle.execute((ctx) => fetch(url, { signal: ctx.signal }).then(checkStatus), { signal });
   * ```
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext | null): Promise<T> {
    let ctx = ROOT_CONTEXT;
    if (options !== undefined) {
      const entered = enterCall(options);
      if (entered instanceof Promise) return entered;
      ctx = entered;
    }
    const bucket = this.#admit();
    if (bucket < 0) {
      const ratio = Number(this.#lastRatio.toFixed(4));
      return Promise.reject(refusal(this.#source, this.name, `rejected the call locally (reject ratio ${ratio})`, this.#options.writableStackTraceEnabled));
    }
    const signal = ctx.signal;
    let value: T | PromiseLike<T>;
    try {
      value = fn(ctx);
    } catch (error) {
      this.#end(this.#judge(error, signal), bucket);
      return Promise.reject(error);
    }
    if (this.#lentBucket < 0) {
      // The bound-once handlers are free: lent to this call (its bucket and signal kept), no closure.
      this.#lentBucket = bucket;
      this.#lentSignal = signal;
      const outcome = follow(value).then(this.#succeeded, this.#failed) as Promise<T>;
      // Not through raceAbort without a signal: its closures' scope costs an allocation even when it returns at once.
      return signal === NEVER_ABORTED ? outcome : raceAbort(outcome, signal);
    }
    return raceAbort(this.#followOwn(value, bucket, signal), signal);
  }

  /**
   * The outcome of a call that found the lent ends in use, followed by a pair of its own (a
   * function of its own: the variables its closures capture would otherwise be allocated on every
   * call of `execute`).
   */
  #followOwn<T>(value: T | PromiseLike<T>, bucket: number, signal: AbortSignal): Promise<T> {
    return follow(value).then(
      (result) => {
        this.#end(0, bucket);
        return result;
      },
      (error: unknown) => {
        this.#end(this.#judge(error, signal), bucket);
        throw error;
      },
    );
  }

  /**
   * Wraps `fn` so that each call goes through the throttle.
   *
   * @example
   * ```ts
   * const search = throttle.decorate((q: string) => api.search(q));
   * await search('breakwater');
   * ```
   */
  decorate<A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>): (...args: A) => Promise<R> {
    return (...args: A) => this.execute(() => fn(...args));
  }

  /** The ratio of the last local rejection (for its error's message). */
  #lastRatio = 0;

  /**
   * Draws against the ratio now: the bucket of this moment (where the request is counted when it
   * is answered), or -1 when it is rejected locally (`callRejected`; counted at once).
   */
  #admit(): number {
    const window = this.#window;
    const bucket = window.advance(this.#clock.now());
    const p = window.ratio(this.#k, this.#maxRejectRatio);
    if (p > 0 && this.#draw() < p) {
      window.countRefused();
      this.#lastRatio = p;
      if (this.#events.wants('callRejected')) this.#events.emit('callRejected', { rejectRatio: p });
      return -1;
    }
    if (this.#events.wants('callPermitted')) this.#events.emit('callPermitted', NO_FIELDS);
    return bucket;
  }

  #draw(): number {
    const random = this.#options.random;
    try {
      return random();
    } catch (error) {
      callbackThrew(this.#source, 'random', random, error, 'the request is let through');
      return 1;
    }
  }

  /**
   * How a failed call ends: 1 a drop, 0 an accept (an error `isDrop` does not accept), 2 ignored —
   * its caller aborted, or a Breakwater layer inside refused it locally (the backend never saw it).
   */
  #judge(error: unknown, signal: AbortSignal): 0 | 1 | 2 {
    if (signal.aborted || isLocalRefusal(error)) return 2;
    const isDrop = this.#options.isDrop;
    try {
      return isDrop(error) === true ? 1 : 0;
    } catch (thrown) {
      callbackThrew(this.#source, 'isDrop', isDrop, thrown, 'the error counts as a drop');
      return 1;
    }
  }

  // The two ends of a call, built once and lent to one call at a time (as Retry lends its
  // handlers), so that a call made while none is in progress allocates no closure: the call that
  // finds them free (-1) keeps its request's bucket (its answer is counted there) and its signal here, and frees them when `fn`
  // settles, before its end is counted; a call that finds them in use makes a pair of its own.
  #lentBucket = -1;
  #lentSignal: AbortSignal = NEVER_ABORTED;

  readonly #succeeded = (result: unknown): unknown => {
    const bucket = this.#lentBucket;
    this.#lentBucket = -1;
    this.#lentSignal = NEVER_ABORTED;
    this.#end(0, bucket);
    return result;
  };

  readonly #failed = (error: unknown): never => {
    const bucket = this.#lentBucket;
    const signal = this.#lentSignal;
    this.#lentBucket = -1;
    this.#lentSignal = NEVER_ABORTED;
    this.#end(this.#judge(error, signal), bucket);
    throw error;
  };

  /** Bound once: a token's end. */
  readonly #settle = (token: ThrottleToken, outcome: 0 | 1 | 2): void => this.#end(outcome, token.bucket);

  /** A request's end, the request let through in `bucket`: counted there with its accept (0), counted as a drop (1), or (2, ignored) not counted. */
  #end(outcome: 0 | 1 | 2, bucket: number): void {
    if (outcome === 2) return;
    this.#window.countAnswered(bucket, outcome === 0);
    if (this.#events.wants('callFinished')) this.#events.emit('callFinished', { accepted: outcome === 0 });
  }
}

/** A refusal by a Breakwater layer (a breaker, a bulkhead, a rate or adaptive limiter, a throttle): the call never reached the backend. */
function isLocalRefusal(error: unknown): boolean {
  return error instanceof CallNotPermittedError || error instanceof BulkheadFullError || error instanceof RequestNotPermittedError;
}
