import {
  callbackThrew,
  ConfigReader,
  enterCall,
  EventPublisher,
  errorMatcher,
  follow,
  NEVER_ABORTED,
  onAbort,
  ROOT_CONTEXT,
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

/** The event types a Fallback publishes (`on()` refuses any other, suggesting the closest). */
const EVENT_TYPES: readonly (keyof FallbackEvents)[] = ['fallback', 'ignoredError'];

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
  /** What a throwing `on` is reported under (once): the user's predicate, or the array of classes. */
  readonly #on: object;
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
      this.#on = everyError;
      this.#handlesEveryError = true;
    } else {
      this.#matches = readOn(read, on);
      this.#on = on;
      this.#handlesEveryError = false;
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

  /**
   * Runs `next` (the layers inside, then `fn`) and hands a matching error to the handler. The
   * call settles once: with `fn`'s value, the handler's outcome, an error passed through, or —
   * the moment the signal aborts, while `fn` or the handler runs — the signal's reason. Each
   * call is counted once, when its outcome is decided (an abort while `fn` runs is an ignored
   * error; after the handler started, it stays a fallback call).
   */
  #run(next: Chain, fn: PolicyFn<unknown>, ctx: CallContext, args: readonly unknown[]): Promise<unknown> {
    let outcome: Promise<unknown>;
    try {
      outcome = follow(next(fn, ctx, args));
    } catch (error) {
      outcome = Promise.reject(error);
    }
    const signal = ctx.signal;
    if (signal === NEVER_ABORTED) return outcome.then(this.#succeeded, (error: unknown) => this.#recover(error, args));
    if (signal.aborted) {
      // fn aborted the signal itself, synchronously: the call is over; its outcome is dropped.
      outcome.then(undefined, swallow);
      this.#ignore(signal.reason);
      return Promise.reject(signal.reason);
    }
    return new Promise<unknown>((resolve, reject) => {
      let state = RUNNING;
      const stop = onAbort(signal, () => {
        if (state === RUNNING) this.#ignore(signal.reason);
        state = DONE;
        reject(signal.reason);
      });
      outcome.then(
        (value) => {
          if (state !== RUNNING) return;
          state = DONE;
          stop();
          this.#successes++;
          resolve(value);
        },
        (error: unknown) => {
          if (state !== RUNNING) return;
          if (!this.#handles(error)) {
            state = DONE;
            stop();
            this.#ignore(error);
            reject(error);
            return;
          }
          state = HANDLING;
          let handled: Promise<unknown>;
          try {
            handled = follow(this.#handle(error, args));
          } catch (thrown) {
            handled = Promise.reject(thrown);
          }
          handled.then(
            (value) => {
              if (state !== HANDLING) return;
              state = DONE;
              stop();
              resolve(value);
            },
            (thrown: unknown) => {
              if (state !== HANDLING) return;
              state = DONE;
              stop();
              reject(thrown);
            },
          );
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

const RUNNING = 0;
const HANDLING = 1;
const DONE = 2;
const swallow = (): void => {};

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
