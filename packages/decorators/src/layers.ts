// What the builder makes of one policy: a layer, whose step runs the layers inside it. A policy
// runs as a layer through one of two protocols of @breakwater/core: a `LayerPolicy` through its
// `runLayer` (it sees the wrapped function's arguments: a Fallback, or a user's own), any other
// `Policy` through `execute`.
import type { Policy } from '@breakwater/core';
import { follow, invoke, isArgsAwareLayer, NEVER_ABORTED } from '@breakwater/core/internal';
import type { LayerStep } from './chain.js';
import { holdsASlot, policyLabel } from './kinds.js';
import type { LayerFacts } from './warnings.js';

/** One layer of a pipeline: its policy, how `describe()` prints it, and the step it adds. */
export interface PipelineLayer extends LayerFacts {
  readonly step: LayerStep;
}

/**
 * The layer of `policy`, printed as `label` (by default its kind and name, and an adaptive
 * limiter view's partition). `runVia` is the policy whose `execute` runs the call when it is not
 * `policy` itself (a rate limiter's `withPermits(n)` view, an adaptive limiter's `inPartition(p)`).
 */
export function layerOf(policy: Policy, label = policyLabel(policy), runVia: Pick<Policy, 'execute'> = policy): PipelineLayer {
  let step: LayerStep;
  if (runVia === policy && isArgsAwareLayer(policy)) step = (inner) => (fn, ctx, args) => policy.runLayer(inner, fn, ctx, args);
  else if (holdsASlot(policy.kind)) step = holdingStep(runVia);
  else step = executeStep(runVia);
  return { policy, label, step };
}

/** Runs the layers inside through `policy.execute`, passing down the context it gets. */
function executeStep(policy: Pick<Policy, 'execute'>): LayerStep {
  // A policy that calls its fn with no context (a hand-written one, say) passes down the one it got.
  return (inner) => (fn, ctx, args) => policy.execute((c) => inner(fn, c ?? ctx, args), ctx);
}

/**
 * Like {@link executeStep}, except that when the signal the layer was given aborts (the
 * caller's, or an outer time limiter's on time-out), the policy's call is held until `fn` — the
 * attempt running inside the layer — really settles. The layers inside race the signal and end
 * at once, which a bulkhead would take for the end of its call and give its slot to the next
 * caller while `fn` still runs: more concurrent work on the backend than the bulkhead allows.
 * The call's own outcome is not delayed: the pipeline's entry (and the outer layers) have
 * already rejected it with the signal's reason. With no signal, nothing is added.
 */
function holdingStep(policy: Pick<Policy, 'execute'>): LayerStep {
  return (inner) => (fn, ctx, args) => {
    if (ctx.signal === NEVER_ABORTED) return policy.execute((c) => inner(fn, c ?? ctx, args), ctx);
    return policy.execute((c) => {
      const innerCtx = c ?? ctx;
      let runningFn: Promise<unknown> | undefined;
      const outcome = follow(inner((c2) => (runningFn = invoke(fn, c2)), innerCtx, args));
      const whenFnSettles = <T>(settle: () => T) => (innerCtx.signal.aborted && runningFn !== undefined ? runningFn.then(settle, settle) : settle());
      return outcome.then(
        (value) => whenFnSettles(() => value),
        (error: unknown) => whenFnSettles(() => rethrow(error)),
      );
    }, ctx);
  };
}

function rethrow(error: unknown): never {
  throw error;
}
