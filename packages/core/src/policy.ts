import { describeValue } from './config.js';

/**
 * What every layer hands to the function it runs: the signal that aborts the work and the
 * 1-based attempt number (set by a retry; 1 elsewhere). A policy passes it on to the layer
 * inside as `execute`'s second argument, so the innermost `fn` sees the signal of every layer.
 *
 * @example
 * ```ts
 * await retry.execute((ctx: CallContext) => fetch(url, { signal: ctx.signal, headers: { 'x-attempt': String(ctx.attempt) } }));
 * ```
 */
export interface CallContext {
  readonly signal: AbortSignal;
  readonly attempt: number;
}

/**
 * The options of a top-level `execute`: a caller's own signal. Aborting it rejects the call
 * with the signal's reason and reaches `fn` through `ctx.signal`.
 *
 * @example
 * ```ts
 * const options: ExecuteOptions = { signal: AbortSignal.timeout(5000) };
 * await breaker.execute((ctx) => fetch(url, { signal: ctx.signal }), options);
 * ```
 */
export interface ExecuteOptions {
  readonly signal?: AbortSignal | undefined;
}

/**
 * A function run by a policy: it gets the context, and may return a value or a promise (a sync
 * throw counts as a rejection).
 *
 * @example
 * ```ts
 * const charge: PolicyFn<Receipt> = (ctx) => gateway.charge(order, { signal: ctx.signal });
 * await breaker.execute(charge);
 * ```
 */
export type PolicyFn<T> = (ctx: CallContext) => T | PromiseLike<T>;

/**
 * How a call ended, as the callbacks that judge it see it: `{ result }` when `fn` resolved,
 * `{ error }` when it threw or rejected. The one outcome type of every package (a retry's
 * `intervalBiFunction`, a rate limiter's `drainPermissionsOnResult`, …).
 *
 * @example
 * ```ts
 * const drainOn429 = (outcome: Outcome) => 'error' in outcome && outcome.error instanceof HttpError && outcome.error.status === 429;
 * ```
 */
export type Outcome<T = unknown> = { readonly error: unknown } | { readonly result: T };

/**
 * The kinds of Breakwater's own policies; a user's policy may name its own.
 *
 * @example
 * ```ts
 * const kind: PolicyKind = 'circuitBreaker';
 * const mine: PolicyKind = 'audit'; // any string
 * ```
 */
export type PolicyKind = 'retry' | 'circuitBreaker' | 'timeLimiter' | 'bulkhead' | 'poolBulkhead' | 'rateLimiter' | 'fallback' | (string & {});

/**
 * The one interface every resilience component implements, so that `decorate()` composes any of
 * them (a user's own included). `execute` never throws synchronously; a sync throw or a plain
 * value from `fn` is treated like a rejected or resolved promise.
 *
 * @example
 * ```ts
 * const logging: Policy = {
 *   name: 'log', kind: 'log',
 *   async execute(fn, options) { const ctx = toContext(options); console.log('call', ctx.attempt); return fn(ctx); },
 * };
 * ```
 */
export interface Policy {
  readonly name: string;
  readonly kind: PolicyKind;
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T>;
}

/**
 * A signal that never aborts (its controller is unreachable), shared by every call that has no
 * signal of its own. `onAbort` and `sleep` add no listener to it; compare with it to skip work.
 *
 * @example
 * ```ts
 * if (ctx.signal !== NEVER_ABORTED) stop = onAbort(ctx.signal, cancel);
 * ```
 */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/**
 * The context of a call with no signal, `{ signal: NEVER_ABORTED, attempt: 1 }`: frozen,
 * shared, never allocated per call.
 *
 * @example
 * ```ts
 * const run = (...args: A) => this.#execute(fn, ROOT_CONTEXT, args); // decorate(): no per-call context
 * ```
 */
export const ROOT_CONTEXT: CallContext = Object.freeze({ signal: NEVER_ABORTED, attempt: 1 });

/**
 * The context for a call from `execute`'s options: the context itself when a layer passes one
 * down (an object whose `signal` is an `AbortSignal` and whose `attempt` is a number), the shared
 * {@link ROOT_CONTEXT} when there is no signal (`options` absent, `null`, or without `signal`),
 * else a new `{ signal, attempt: 1 }`. Throws a `TypeError` for options that are not an object or
 * a `signal` that is not an `AbortSignal` (`{ signal: { aborted: false } }`): use
 * {@link enterCall}, which turns the throw into a rejection.
 *
 * @example
 * ```ts
 * async execute(fn, options) { const ctx = toContext(options); ctx.signal.throwIfAborted(); return fn(ctx); }
 * ```
 */
export function toContext(options: ExecuteOptions | CallContext | null | undefined): CallContext {
  if (options === undefined || options === null) return ROOT_CONTEXT;
  if (typeof options !== 'object') throw new TypeError(`execute: options must be an object ({ signal }), got ${describeValue(options)}`);
  const signal = options.signal;
  if (signal === undefined) return ROOT_CONTEXT;
  if (!(signal instanceof AbortSignal)) throw new TypeError(`execute: options.signal must be an AbortSignal, got ${describeValue(signal)}`);
  if (typeof (options as CallContext).attempt === 'number') return options as CallContext;
  return { signal, attempt: 1 };
}
