import { invoke, type CallContext, type PolicyFn } from '@breakwater/core';

/**
 * One precomposed step of a pipeline: runs `fn` through this layer and every layer inside it.
 * `args` are the arguments of a wrapped function (empty for `execute`); only a fallback reads them.
 * @internal
 */
export type Chain = (fn: PolicyFn<unknown>, ctx: CallContext, args: readonly unknown[]) => Promise<unknown>;

/** Builds the step of one layer from the step of the layer inside it. @internal */
export type LayerStep = (next: Chain) => Chain;

/** The arguments of `execute`: none. Shared, so `execute` allocates no array. @internal */
export const NO_ARGS: readonly unknown[] = Object.freeze([]);

/**
 * The innermost step: runs `fn` itself through core's `invoke`. A sync throw becomes a
 * rejection, a plain value a resolved promise, a thenable is adopted once (a `then` that throws
 * or calls both handlers settles the call once); a plain native promise is returned as it is.
 * @internal
 */
export const terminal: Chain = (fn, ctx) => invoke(fn, ctx);

/**
 * Folds the steps into nested closures once, outermost first: `steps[0]` runs `steps[1]`, …, the
 * last runs `fn`. With no steps the chain is {@link terminal}.
 * @internal
 */
export function compose(steps: readonly LayerStep[]): Chain {
  let chain = terminal;
  for (let i = steps.length - 1; i >= 0; i--) chain = steps[i]!(chain);
  return chain;
}
