import {
  ConfigReader,
  EventPublisher,
  errorMatcher,
  ROOT_CONTEXT,
  toContext,
  type AnyEventOf,
  type CallContext,
  type Clock,
  type ErrorClass,
  type ErrorPredicate,
  type EventOf,
  type ExecuteOptions,
  type Observable,
  type PolicyFn,
} from '@breakwater/core';
import { NO_ARGS, terminal, type Chain } from './chain.js';

/**
 * What a fallback does with an error it handles: returns (or resolves to) the value the caller
 * gets instead. It is given the error and the arguments of the wrapped function (none for
 * `execute`). Annotate the arguments as you like: `(error, req: PaymentRequest) => …`.
 *
 * @example
 * ```ts
 * const handler: FallbackHandler<Quote> = (error, req: QuoteRequest) => cache.lastQuote(req.symbol);
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type FallbackHandler<G> = (error: unknown, ...args: any[]) => G | PromiseLike<G>;

/**
 * Which errors a fallback handles: error classes (is-a, `instanceof`) or a predicate.
 * Unset: every error.
 *
 * @example
 * ```ts
 * const on: FallbackOn = [CallNotPermittedError, TimeoutError];
 * const alsoOn: FallbackOn = (e) => (e as { status?: number }).status === 503;
 * ```
 */
export type FallbackOn = readonly ErrorClass[] | ErrorPredicate;

/**
 * Options of {@link Fallback}.
 *
 * @example
 * ```ts
 * const options: FallbackOptions = { on: [CallNotPermittedError], clock };
 * ```
 */
export interface FallbackOptions {
  /** The errors to handle; default every error. Others are rethrown as they are. */
  readonly on?: FallbackOn | undefined;
  /** The clock of the events' `at`; default `systemClock`. */
  readonly clock?: Clock | undefined;
}

/**
 * The events of a {@link Fallback}: `fallback` when the handler is about to be called for an
 * error, `ignoredError` when an error passes through (not matched by `on`, or the caller's own
 * abort).
 *
 * @example
 * ```ts
 * fallback.on('fallback', (e: EventOf<FallbackEvents, 'fallback'>) => log.warn('served from cache', e.error));
 * ```
 */
export type FallbackEvents = {
  fallback: { readonly error: unknown };
  ignoredError: { readonly error: unknown };
};

/**
 * A snapshot of a {@link Fallback}'s counters since it was created.
 *
 * @example
 * ```ts
 * const { numberOfFallbackCalls } = fallback.metrics;
 * ```
 */
export interface FallbackMetrics {
  /** Calls whose function succeeded (the handler was not needed). */
  readonly numberOfSuccessfulCalls: number;
  /** Calls whose error was handed to the handler. */
  readonly numberOfFallbackCalls: number;
  /** Calls whose error passed through unhandled. */
  readonly numberOfIgnoredErrors: number;
}

/** What the pipeline builder needs of a Fallback beyond its public surface. @internal */
export const fallbackInternals = {} as {
  /** Runs `next` (the layers inside the fallback) and hands a matching error to the handler, with `args`. */
  run(fallback: Fallback<unknown>, next: Chain, fn: PolicyFn<unknown>, ctx: CallContext, args: readonly unknown[]): Promise<unknown>;
  /** Whether the fallback was built without `on` (it handles every error). */
  handlesEveryError(fallback: Fallback<unknown>): boolean;
};

const everyError: ErrorPredicate = () => true;

function isClass(fn: object): boolean {
  const proto = (fn as { prototype?: unknown }).prototype;
  return fn === Error || proto instanceof Error || /^class\b/.test(Function.prototype.toString.call(fn));
}

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
export class Fallback<G = unknown> implements Observable<FallbackEvents> {
  /** `'fallback'`. */
  readonly kind = 'fallback' as const;
  readonly #handler: FallbackHandler<G>;
  readonly #matches: ErrorPredicate;
  readonly #handlesEveryError: boolean;
  readonly #events: EventPublisher<FallbackEvents>;
  #successes = 0;
  #fallbacks = 0;
  #ignored = 0;

  static {
    fallbackInternals.run = (fallback, next, fn, ctx, args) => fallback.#run(next, fn, ctx, args);
    fallbackInternals.handlesEveryError = (fallback) => fallback.#handlesEveryError;
  }

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
      this.#handlesEveryError = true;
    } else {
      this.#matches = readOn(read, on);
      this.#handlesEveryError = false;
    }
    this.#events = new EventPublisher(name, read.clock(), `Fallback '${name}'`);
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
   * only). Never throws synchronously.
   *
   * @example
   * ```ts
   * const price = await new Fallback('price', () => 0).execute((ctx) => api.price(ctx.signal));
   * ```
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T | G> {
    let ctx: CallContext;
    try {
      if (typeof fn !== 'function') throw new TypeError(`Fallback '${this.name}': execute(fn) needs a function, got ${typeof fn}`);
      ctx = toContext(options);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#run(terminal, fn as PolicyFn<unknown>, ctx, NO_ARGS) as Promise<T | G>;
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
    return (...args: A) => this.#run(terminal, () => fn(...args), ROOT_CONTEXT, args) as Promise<R | G>;
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

  async #run(next: Chain, fn: PolicyFn<unknown>, ctx: CallContext, args: readonly unknown[]): Promise<unknown> {
    try {
      const value = await next(fn, ctx, args);
      this.#successes++;
      return value;
    } catch (error) {
      return this.#recover(error, ctx, args);
    }
  }

  #recover(error: unknown, ctx: CallContext, args: readonly unknown[]): G | PromiseLike<G> {
    const signal = ctx.signal;
    if ((signal.aborted && error === signal.reason) || !this.#matches(error)) {
      this.#ignored++;
      if (this.#events.wants('ignoredError')) this.#events.emit('ignoredError', { error });
      throw error;
    }
    this.#fallbacks++;
    if (this.#events.wants('fallback')) this.#events.emit('fallback', { error });
    return args.length === 0 ? this.#handler(error) : this.#handler(error, ...args);
  }
}

function readOn(read: ConfigReader<FallbackOptions>, on: unknown): ErrorPredicate {
  if (Array.isArray(on)) {
    if (on.length === 0) read.fail('on', 'a non-empty array of error classes, or a predicate (leave it out to handle every error)', on, 'type');
    if (!on.every((c) => typeof c === 'function')) read.fail('on', 'an array of error classes, or a predicate', on, 'type');
    return errorMatcher(on as readonly ErrorClass[], undefined, false);
  }
  if (typeof on === 'function') {
    if (isClass(on)) read.fail('on', `an array of error classes or a predicate (write on: [${on.name}])`, on, 'type');
    return on as ErrorPredicate;
  }
  return read.fail('on', 'an array of error classes, or a predicate', on, 'type');
}
