// The public types of a Fallback (its handler, `on`, options, events, metrics) and of
// `withFallback`'s options, and the checks of both.
import type { ConfigReader, Clock, ErrorClass, ErrorPredicate } from '@breakwater/core';
import { errorMatcher } from '@breakwater/core';
import { describeValue } from '@breakwater/core/internal';

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
// biome-ignore lint/suspicious/noExplicitAny: the caller annotates the arguments as it likes (`(error, req: PaymentRequest) => …`); unknown[] would refuse that
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
export const EVENT_TYPES: readonly (keyof FallbackEvents)[] = ['fallback', 'ignoredError'];

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

/** The `on` of a fallback built without one. */
export const everyError: ErrorPredicate = () => true;

/** Whether `fn` is a class (an error class given where a predicate is expected: `on: TimeoutError`). */
function isClass(fn: object): boolean {
  const proto = (fn as { prototype?: unknown }).prototype;
  return fn === Error || proto instanceof Error || /^class\b/.test(Function.prototype.toString.call(fn));
}

/** The predicate of `on`: error classes (is-a) or the user's predicate; throws a `TypeError` naming the option for anything else. */
export function readOn(read: ConfigReader<FallbackOptions>, on: unknown): ErrorPredicate {
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

/**
 * Options of `Pipeline.withFallback`.
 *
 * @example
 * ```ts
 * const options: WithFallbackOptions = { on: [CallNotPermittedError], name: 'cached-quote' };
 * ```
 */
export interface WithFallbackOptions {
  /** The errors the handler is for: error classes (is-a) or a predicate. Default: every error. */
  readonly on?: FallbackOn | undefined;
  /** The fallback's name in `describe()`; default `'fallback'`. */
  readonly name?: string | undefined;
}

/** Checks `withFallback`'s options, for JavaScript callers: an object with no key but `on` and `name`. */
export function checkWithFallbackOptions(options: unknown): void {
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options))) {
    throw new TypeError(`withFallback: options must be an object, got ${describeValue(options)}`);
  }
  for (const key of Object.keys(options ?? {})) {
    if (key !== 'on' && key !== 'name') throw new TypeError(`withFallback: unknown option '${key}' (known options: on, name)`);
  }
}
