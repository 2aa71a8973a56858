import { onAbort } from './abort.js';
import { NEVER_ABORTED, toContext, type CallContext, type ExecuteOptions, type PolicyFn } from './policy.js';

// The call protocol every policy's `execute` follows, written once:
//   const ctx = enterCall(options);          // a context, or the rejection to return
//   if (ctx instanceof Promise) return ctx;
//   … admit the call (permit, slot, permits) …
//   const outcome = invoke(fn, ctx);         // fn's outcome as a promise that settles once
//   … outcome.then(record, record) …
//   return raceAbort(result, ctx.signal);    // the caller's abort rejects at once

/**
 * The prologue of `execute`: the call's context, or a rejected promise to return as it is when
 * the call must not start: `options` that are not valid (a `signal` that is not an
 * `AbortSignal`), or a signal that has already aborted (rejects with its reason). Never throws.
 *
 * @example
 * ```ts
 * execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T> {
 *   const ctx = enterCall(options);
 *   if (ctx instanceof Promise) return ctx;
 *   return invoke(fn, ctx);
 * }
 * ```
 */
export function enterCall(options: ExecuteOptions | CallContext | null | undefined): CallContext | Promise<never> {
  let ctx: CallContext;
  try {
    ctx = toContext(options);
  } catch (error) {
    return Promise.reject(error);
  }
  return ctx.signal.aborted ? Promise.reject(ctx.signal.reason) : ctx;
}

/**
 * `value` as a promise that settles exactly once. A plain native promise is returned as it is;
 * anything else — a value, a thenable, a promise with a `then` of its own that calls both
 * handlers or throws — is adopted once through `new Promise`, so a hostile `then` can neither
 * settle a call twice nor throw synchronously.
 *
 * @example
 * ```ts
 * follow(fn(ctx)).then(onSuccess, onError); // each runs at most once, and only one of them
 * ```
 */
export function follow<T>(value: T | PromiseLike<T>): Promise<T> {
  // A value that is not an object is never adopted as a thenable: `Promise.resolve`, with no
  // executor closure (what a function returning a plain value costs, ~10 ns less).
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return Promise.resolve(value as T);
  // A promise whose `then` is the native one (one read, compared; prototype and own-property
  // checks cost ~15 ns more per call): `Promise.resolve` hands a plain native promise back as it
  // is, and adopts a subclass or a look-alike (`Object.create(Promise.prototype)`, no promise
  // inside: its rejection is the returned promise's). A `then` or `constructor` getter that
  // throws is caught here and rejects through `new Promise`.
  if (value instanceof Promise) {
    try {
      if (value.then === nativeThen) return Promise.resolve(value) as Promise<T>;
    } catch {
      // a hostile getter: adopted below, where its throw becomes the rejection
    }
  }
  return new Promise<T>((resolve) => resolve(value));
}

const nativeThen = Promise.prototype.then;

/**
 * Runs `fn(ctx)` and returns its outcome as a promise that settles exactly once: a sync throw is
 * a rejection, a plain value a resolution, a thenable is adopted by {@link follow}.
 *
 * @example
 * ```ts
 * invoke(fn, ctx).then((value) => record(value), (error) => record(error));
 * ```
 */
export function invoke<T>(fn: PolicyFn<T>, ctx: CallContext): Promise<T> {
  let value: T | PromiseLike<T>;
  try {
    value = fn(ctx);
  } catch (error) {
    return Promise.reject(error);
  }
  return follow(value);
}

/**
 * `promise`, except that it rejects with the signal's reason the moment `signal` aborts (at once
 * when it already has). `promise` goes on, and its late outcome is swallowed (no unhandled
 * rejection); the abort listener goes when either happens. With {@link NEVER_ABORTED}, `promise`
 * itself.
 *
 * @example
 * ```ts
 * return raceAbort(invoke(fn, ctx), ctx.signal); // a caller's abort ends the call at once
 * ```
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal === NEVER_ABORTED) return promise;
  if (signal.aborted) {
    promise.then(undefined, swallow);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const stop = onAbort(signal, () => reject(signal.reason));
    promise.then(
      (value) => {
        stop();
        resolve(value);
      },
      (error: unknown) => {
        stop();
        reject(error);
      },
    );
  });
}

const swallow = (): void => {};
