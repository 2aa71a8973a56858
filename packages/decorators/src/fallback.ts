import {
  ConfigReader,
  EventPublisher,
  onAbort,
  type AnyEventOf,
  type ArgsAwareLayer,
  type CallContext,
  type EventOf,
  type ErrorPredicate,
  type ExecuteOptions,
  type InnerLayers,
  type Observable,
  type PolicyFn,
} from '@breakwater/core';
import { callbackThrew, enterCall, follow, NEVER_ABORTED, ROOT_CONTEXT } from '@breakwater/core/internal';
import { NO_ARGS, runChain, terminal } from './chain.js';
import { EVENT_TYPES, everyError, readOn, type FallbackEvents, type FallbackHandler, type FallbackMetrics, type FallbackOptions } from './fallback-options.js';

export type { FallbackEvents, FallbackHandler, FallbackMetrics, FallbackOn, FallbackOptions } from './fallback-options.js';

/**
 * Turns errors into values: when the function it runs fails with an error matched by `on`
 * (every error by default), the caller gets the handler's value instead. Any other error is
 * rethrown as it is, and so is the caller's own abort (the reason of the signal this fallback
 * was given): a caller that gave up gets its abort, never a fallback value.
 *
 * Usually built by `decorate().withFallback(handler, { on })`; build one yourself to listen to
 * its events or read its metrics, and add it with `.with(fallback)`.
 *
 * @example
 * ```ts
 * const cached = new Fallback('quote-cache', (error, req: QuoteRequest) => cache.get(req.symbol), {
 *   on: [CallNotPermittedError, TimeoutError],
 * });
 * cached.on('fallback', (e) => log.warn(`served ${e.name} for`, e.error));
 * const getQuote = decorate().with(cached).withCircuitBreaker(breaker).wrap((ctx, req: QuoteRequest) => api.quote(req, ctx));
 * ```
 */
export class Fallback<G = unknown> implements ArgsAwareLayer, Observable<FallbackEvents> {
  /** `'fallback'`. */
  readonly kind = 'fallback' as const;
  /**
   * Whether it was built without `on`, so it turns every error into a value (`decorate()` warns
   * when such a fallback sits inside a breaker or a retry, which would then never see a failure).
   */
  readonly handlesEveryError: boolean;
  readonly #handler: FallbackHandler<G>;
  readonly #matches: ErrorPredicate;
  /** What a throwing `on` is reported under (once): the user's predicate, or the array of classes. */
  readonly #on: object;
  readonly #events: EventPublisher<FallbackEvents>;
  #successes = 0;
  #fallbacks = 0;
  #ignored = 0;

  /**
   * @param name the fallback's name (events, `describe()`)
   * @param handler called with the error and the wrapped function's arguments
   * @param options `on` (error classes or a predicate; default every error), `clock`
   * @throws TypeError for an empty name, a handler that is not a function, a bad `on`, or an unknown option
   */
  constructor(
    readonly name: string,
    handler: FallbackHandler<G>,
    options?: FallbackOptions,
  ) {
    const read = new ConfigReader<FallbackOptions>('Fallback', name, options, ['on', 'clock']);
    if (typeof handler !== 'function') read.fail('handler', 'a function', handler, 'type');
    this.#handler = handler;
    const on = options?.on;
    if (on === undefined) {
      this.#matches = everyError;
      this.#on = everyError;
      this.handlesEveryError = true;
    } else {
      this.#matches = readOn(read, on);
      this.#on = on;
      this.handlesEveryError = false;
    }
    this.#events = new EventPublisher(name, read.clock(), `Fallback '${name}'`, EVENT_TYPES);
  }

  /**
   * Same as `new Fallback(name, handler, options)`.
   *
   * @example
   * ```ts
   * const zero = Fallback.of('zero', () => 0, { on: [TimeoutError] });
   * ```
   */
  static of<G>(name: string, handler: FallbackHandler<G>, options?: FallbackOptions): Fallback<G> {
    return new Fallback(name, handler, options);
  }

  /**
   * Runs `fn`; a matching error becomes the handler's value (the handler is given the error
   * only). Never throws synchronously. An already aborted signal rejects with its reason and
   * runs nothing; a signal that aborts while `fn` or the handler runs rejects the call at once
   * with its reason (never a fallback value).
   *
   * @example
   * ```ts
   * const price = await new Fallback('price', () => 0).execute((ctx) => api.price(ctx.signal));
   * ```
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T | G> {
    if (typeof fn !== 'function') return Promise.reject(new TypeError(`Fallback '${this.name}': execute(fn) needs a function, got ${typeof fn}`));
    const ctx = enterCall(options);
    if (ctx instanceof Promise) return ctx;
    return this.runLayer(terminal, fn as PolicyFn<unknown>, ctx, NO_ARGS) as Promise<T | G>;
  }

  /**
   * `fn` with the fallback around it; the handler is given the error and `fn`'s arguments.
   *
   * @example
   * ```ts
   * const find = new Fallback('user', (_e, id: string) => ({ id, anonymous: true })).decorate(users.find);
   * await find('42');
   * ```
   */
  decorate<A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>): (...args: A) => Promise<R | G> {
    if (typeof fn !== 'function') throw new TypeError(`Fallback '${this.name}': decorate(fn) needs a function, got ${typeof fn}`);
    return (...args: A) => this.runLayer(terminal, () => fn(...args), ROOT_CONTEXT, args) as Promise<R | G>;
  }

  /**
   * Subscribes to `fallback` / `ignoredError` events (or `'*'`); returns the unsubscribe.
   *
   * @example
   * ```ts
   * const off = fallback.on('*', (e) => console.log(e.type, e.error));
   * off();
   * ```
   */
  on<K extends keyof FallbackEvents & string>(type: K, listener: (event: EventOf<FallbackEvents, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<FallbackEvents>) => void): () => void;
  on(type: string, listener: (event: never) => void): () => void {
    return this.#events.subscribe(type, listener);
  }

  /**
   * A fresh snapshot of the counters.
   *
   * @example
   * ```ts
   * expect(fallback.metrics).toEqual({ numberOfSuccessfulCalls: 0, numberOfFallbackCalls: 1, numberOfIgnoredErrors: 0 });
   * ```
   */
  get metrics(): FallbackMetrics {
    return {
      numberOfSuccessfulCalls: this.#successes,
      numberOfFallbackCalls: this.#fallbacks,
      numberOfIgnoredErrors: this.#ignored,
    };
  }

  /**
   * The layer protocol (`ArgsAwareLayer`, called by `decorate()`): runs `inner` (the layers
   * inside, then `fn`) and hands a matching error to the handler, with `args`. The call settles
   * once: with `fn`'s value, the handler's outcome, an error passed through, or — the moment the
   * signal aborts, while `fn` or the handler runs — the signal's reason. Each call is counted
   * once, when its outcome is decided (an abort while `fn` runs is an ignored error; after the
   * handler started, it stays a fallback call).
   *
   * @example
   * ```ts
   * const value = await fallback.runLayer((fn, ctx) => invoke(fn, ctx), (ctx) => api.quote('X', ctx.signal), ROOT_CONTEXT, ['X']);
   * ```
   */
  runLayer(inner: InnerLayers, fn: PolicyFn<unknown>, ctx: CallContext, args: readonly unknown[]): Promise<unknown> {
    const outcome = runChain(inner, fn, ctx, args);
    const signal = ctx.signal;
    if (signal === NEVER_ABORTED) return outcome.then(this.#succeeded, (error: unknown) => this.#recover(error, args));
    if (signal.aborted) {
      // fn aborted the signal itself, synchronously: the call is over; its outcome is dropped.
      outcome.then(undefined, swallow);
      this.#ignore(signal.reason);
      return Promise.reject(signal.reason);
    }
    return this.#recoverUnlessAborted(outcome, signal, args);
  }

  /**
   * Like `outcome.then(#succeeded, #recover)`, except that the call rejects with the signal's
   * reason the moment `signal` aborts, while `fn` or the handler runs; the late outcome of
   * either is then dropped. One abort listener for both phases.
   */
  #recoverUnlessAborted(outcome: Promise<unknown>, signal: AbortSignal, args: readonly unknown[]): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      let state: CallState = FN_RUNNING;
      const stopListening = onAbort(signal, () => {
        if (state === FN_RUNNING) this.#ignore(signal.reason);
        state = SETTLED;
        reject(signal.reason);
      });
      const settle = (from: CallState, done: (result: unknown) => void) => (result: unknown) => {
        if (state !== from) return;
        state = SETTLED;
        stopListening();
        done(result);
      };
      outcome.then(
        (value) => {
          if (state === FN_RUNNING) this.#successes++;
          settle(FN_RUNNING, resolve)(value);
        },
        (error: unknown) => {
          if (state !== FN_RUNNING) return;
          if (!this.#handles(error)) {
            settle(FN_RUNNING, reject)(error);
            this.#ignore(error);
            return;
          }
          state = HANDLER_RUNNING;
          let handled: Promise<unknown>;
          try {
            handled = follow(this.#handle(error, args));
          } catch (thrown) {
            handled = Promise.reject(thrown);
          }
          handled.then(settle(HANDLER_RUNNING, resolve), settle(HANDLER_RUNNING, reject));
        },
      );
    });
  }

  /** A call whose function succeeded (bound once: no closure per call). */
  readonly #succeeded = (value: unknown): unknown => {
    this.#successes++;
    return value;
  };

  /** The error after a call with no signal: the handler's outcome, or the error passed through. */
  #recover(error: unknown, args: readonly unknown[]): unknown {
    if (!this.#handles(error)) {
      this.#ignore(error);
      throw error;
    }
    return this.#handle(error, args);
  }

  /** Whether `on` takes `error`; an `on` that throws is a user callback's failure: reported once, and the error passes through. */
  #handles(error: unknown): boolean {
    try {
      return Boolean(this.#matches(error));
    } catch (thrown) {
      callbackThrew(`Fallback '${this.name}'`, 'on', this.#on, thrown, 'the error goes to the caller as it is, without the handler');
      return false;
    }
  }

  /** Counts an error that passes through (not matched by `on`, or the caller's abort) and publishes it. */
  #ignore(error: unknown): void {
    this.#ignored++;
    if (this.#events.wants('ignoredError')) this.#events.emit('ignoredError', { error });
  }

  /** Counts the fallback, publishes it and calls the handler (which may throw: the caller gets its error). */
  #handle(error: unknown, args: readonly unknown[]): G | PromiseLike<G> {
    this.#fallbacks++;
    if (this.#events.wants('fallback')) this.#events.emit('fallback', { error });
    return args.length === 0 ? this.#handler(error) : this.#handler(error, ...args);
  }
}

/** Where a call through a fallback with a signal stands (see `#recoverUnlessAborted`). */
const FN_RUNNING = 0;
const HANDLER_RUNNING = 1;
const SETTLED = 2;
type CallState = typeof FN_RUNNING | typeof HANDLER_RUNNING | typeof SETTLED;

/** Drops the late outcome of a call that is already over (no unhandled rejection). */
const swallow = (): void => {};
