import type { CallContext, InnerLayers, PolicyFn } from '@breakwater/core';
import { follow } from '@breakwater/core/internal';

/**
 * The composed layers from one point inwards, then `fn` (core's `InnerLayers`): runs `fn`
 * through them. `args` are the arguments of a wrapped function (empty for `execute`); only an
 * `ArgsAwareLayer` (a fallback) reads them.
 * @internal
 */
export type Chain = InnerLayers;

/** Builds the step of one layer from the step of the layer inside it. @internal */
export type LayerStep = (inner: Chain) => Chain;

/** The arguments of `execute`: none. Shared, so `execute` allocates no array. @internal */
export const NO_ARGS: readonly unknown[] = Object.freeze([]);

/**
 * The innermost step: runs `fn` itself. A sync throw becomes a rejection, a plain value a
 * resolved promise (a native promise is returned as it is). A hostile thenable or two-faced
 * promise is not unwrapped here, on the hot path: whoever takes this promise adopts it once —
 * Breakwater's policies through core's `invoke`/`follow`, the pipeline's `execute` and the
 * fallback through `follow` — so a caller never sees it.
 * @internal
 */
export const terminal: Chain = (fn, ctx) => {
  try {
    return Promise.resolve(fn(ctx));
  } catch (error) {
    return Promise.reject(error);
  }
};

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

/**
 * `chain(fn, ctx, args)` as a promise that settles exactly once: a sync throw of a layer is a
 * rejection, and whatever the outermost layer returns (a user's policy may return a thenable of
 * its own) is adopted once by core's `follow`. What core's `invoke` is for a function, for a chain.
 * @internal
 */
export function runChain(chain: Chain, fn: PolicyFn<unknown>, ctx: CallContext, args: readonly unknown[]): Promise<unknown> {
  try {
    return follow(chain(fn, ctx, args));
  } catch (error) {
    return Promise.reject(error);
  }
}
