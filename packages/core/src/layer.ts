import type { CallContext, PolicyFn } from './policy.js';

// The layer protocol of `decorate()` (@breakwater/decorators). A pipeline composes its layers
// once, when it is built, into nested steps; one call then runs them outermost first. Any
// `Policy` is a layer: the builder runs the layers inside it through `policy.execute`. A policy
// that also needs the arguments of the wrapped function (a fallback's handler gets
// `(error, ...args)`) implements `runLayer` as well, and the builder calls that instead:
//
//   pipeline.wrap(fn)(...args)
//     → breaker.execute(…)                          a plain Policy: sees the context only
//       → fallback.runLayer(inner, fn, ctx, args)   an ArgsAwareLayer: sees the arguments too
//         → inner(fn, ctx, args)                    the layers inside, then fn(ctx, ...args)

/**
 * The layers inside a layer, then the function: what an {@link ArgsAwareLayer} calls to go on with
 * the call. Pass `fn` and `args` through as they were given; `ctx` is the context the inner
 * layers and `fn` get (the one received, or one derived from it: a signal of your own, say).
 * Returns a promise; it may be a look-alike, so adopt it once with `follow` before chaining on it.
 *
 * @example
 * ```ts
 * const passThrough = (inner: InnerLayers, fn: PolicyFn<unknown>, ctx: CallContext, args: readonly unknown[]) => inner(fn, ctx, args);
 * ```
 */
export type InnerLayers = (fn: PolicyFn<unknown>, ctx: CallContext, args: readonly unknown[]) => Promise<unknown>;

/**
 * What a `Policy` adds to be a layer that also sees the arguments of the wrapped function:
 * `decorate()` calls `runLayer` instead of `execute` for a policy that has it
 * (`implements Policy, ArgsAwareLayer`; a Fallback is one). `args` are the arguments the wrapped
 * function was called with (`pipeline.wrap(fn)(...args)`, `policy.decorate(fn)(...args)`),
 * and an empty array for `execute(fn)`. `ctx` is a valid context whose signal had not aborted
 * when the call entered the pipeline. The same rules as `execute` hold: never throw
 * synchronously, follow `ctx.signal`, settle once. A policy whose `execute` is itself a layer
 * around `fn` can write `execute` as `runLayer((f, c) => invoke(f, c), fn, ctx, [])`.
 *
 * @example
 * ```ts
 * // Logs the arguments of each call that fails.
 * class LogFailures implements Policy, ArgsAwareLayer {
 *   readonly kind = 'logFailures';
 *   constructor(readonly name: string) {}
 *   execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T> {
 *     const ctx = enterCall(options);
 *     if (ctx instanceof Promise) return ctx;
 *     return this.runLayer((f, c) => invoke(f, c), fn, ctx, []) as Promise<T>;
 *   }
 *   runLayer(inner: InnerLayers, fn: PolicyFn<unknown>, ctx: CallContext, args: readonly unknown[]): Promise<unknown> {
 *     return follow(inner(fn, ctx, args)).catch((error: unknown) => {
 *       console.warn(`${this.name}: failed for`, args, error);
 *       throw error;
 *     });
 *   }
 * }
 * const getQuote = decorate().with(new LogFailures('quotes')).withRetry(retry).wrap((ctx, symbol: string) => api.quote(symbol, ctx.signal));
 * ```
 */
export interface ArgsAwareLayer {
  /**
   * Runs one call through this layer: `inner(fn, ctx, args)` runs the layers inside and `fn`.
   * Resolves to the value the caller gets, or rejects with the error the caller gets.
   */
  runLayer(inner: InnerLayers, fn: PolicyFn<unknown>, ctx: CallContext, args: readonly unknown[]): Promise<unknown>;
}

/**
 * Whether `policy` implements {@link ArgsAwareLayer} (has a `runLayer` method). The builder asks
 * once per layer, when a pipeline is built.
 *
 * @example
 * ```ts
 * const step = isArgsAwareLayer(policy) ? (inner: InnerLayers) => (fn, ctx, args) => policy.runLayer(inner, fn, ctx, args) : viaExecute(policy);
 * ```
 */
export function isArgsAwareLayer<P extends object>(policy: P): policy is P & ArgsAwareLayer {
  return typeof (policy as Partial<ArgsAwareLayer>).runLayer === 'function';
}
