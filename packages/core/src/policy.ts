import { describeValue } from './config.js';

/**
 * What every layer hands to the function it runs: the signal that aborts the work and the
 * 1-based attempt number (set by a retry; 1 elsewhere).
 */
export interface CallContext {
  readonly signal: AbortSignal;
  readonly attempt: number;
}

/** The options of a top-level `execute`: a caller's own signal. */
export interface ExecuteOptions {
  readonly signal?: AbortSignal | undefined;
}

/** A function run by a policy: it gets the context, and may return a value or a promise. */
export type PolicyFn<T> = (ctx: CallContext) => T | PromiseLike<T>;

/** The kinds of Breakwater's own policies; a user's policy may name its own. */
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

/** A signal that never aborts, shared by every call that has no signal of its own. */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** The context of a call with no signal: shared, never allocated per call. */
export const ROOT_CONTEXT: CallContext = Object.freeze({ signal: NEVER_ABORTED, attempt: 1 });

/**
 * The context for a call from `execute`'s options: the context itself when a layer passes one
 * down, the shared {@link ROOT_CONTEXT} when there is no signal, else a new one.
 *
 * @example
 * ```ts
 * async execute(fn, options) { const ctx = toContext(options); ctx.signal.throwIfAborted(); return fn(ctx); }
 * ```
 */
export function toContext(options: ExecuteOptions | CallContext | undefined): CallContext {
  if (options === undefined) return ROOT_CONTEXT;
  if (typeof (options as CallContext).attempt === 'number' && (options as CallContext).signal !== undefined) return options as CallContext;
  const signal = options.signal;
  if (signal === undefined) return ROOT_CONTEXT;
  if (!(signal instanceof AbortSignal)) throw new TypeError(`execute: options.signal must be an AbortSignal, got ${describeValue(signal)}`);
  return { signal, attempt: 1 };
}
