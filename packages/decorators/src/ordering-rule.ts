// What an ordering rule is (`pipeline.warnings`): the warning it gives, the facts of a layer it
// reads, and the tests of a layer the rules are written with. The rules are in warnings.ts and
// warnings-hedge-chaos.ts.
import type { Policy } from '@breakwater/core';
import { Fallback } from './fallback.js';
import type { BuiltinKind } from './kinds.js';

/**
 * The codes of {@link PipelineWarning}s, one per order that loses information.
 *
 * @example
 * ```ts
 * if (pipeline.warnings.some((w) => w.code === 'TIME_LIMITER_OUTSIDE_CIRCUIT_BREAKER')) throw new Error(pipeline.describe());
 * ```
 */
export type PipelineWarningCode =
  | 'TIME_LIMITER_OUTSIDE_CIRCUIT_BREAKER'
  | 'CIRCUIT_BREAKER_OUTSIDE_RETRY'
  | 'RETRY_INSIDE_BULKHEAD'
  | 'RETRY_INSIDE_RATE_LIMITER'
  | 'RATE_LIMITER_OUTSIDE_CIRCUIT_BREAKER'
  | 'FALLBACK_INSIDE_CIRCUIT_BREAKER'
  | 'FALLBACK_INSIDE_RETRY'
  | 'TIME_LIMITER_OUTSIDE_ADAPTIVE_LIMITER'
  | 'RETRY_INSIDE_ADAPTIVE_LIMITER'
  | 'FALLBACK_INSIDE_ADAPTIVE_LIMITER'
  | 'THROTTLE_INSIDE_RETRY'
  | 'THROTTLE_INSIDE_CIRCUIT_BREAKER'
  | 'TIME_LIMITER_OUTSIDE_THROTTLE'
  | 'FALLBACK_INSIDE_THROTTLE'
  | 'CIRCUIT_BREAKER_OUTSIDE_HEDGE'
  | 'HEDGE_INSIDE_BULKHEAD'
  | 'HEDGE_INSIDE_RATE_LIMITER'
  | 'HEDGE_INSIDE_ADAPTIVE_LIMITER'
  | 'FALLBACK_INSIDE_HEDGE'
  | 'CHAOS_NOT_INNERMOST';

/**
 * An order of layers that loses information, found when the pipeline is built: what is wrong
 * (`message`) and the order that fixes it (`fix`).
 *
 * @example
 * ```ts
 * const pipeline = decorate().withTimeLimiter(tl).withCircuitBreaker(cb);
 * for (const w of pipeline.warnings) console.warn(`${w.code}: ${w.message} Fix: ${w.fix}`);
 * ```
 */
export interface PipelineWarning {
  readonly code: PipelineWarningCode;
  readonly message: string;
  readonly fix: string;
}

/** What the ordering rules look at in a layer. */
export interface LayerFacts {
  readonly policy: Policy;
  /** As `describe()` prints it. */
  readonly label: string;
}

/** One ordering rule: an `outer` layer written before (outside) an `inner` one loses information. */
export interface OrderingRule {
  readonly code: PipelineWarningCode;
  readonly outer: (layer: LayerFacts) => boolean;
  readonly inner: (layer: LayerFacts) => boolean;
  readonly message: (outer: string, inner: string) => string;
  readonly fix: (outer: string, inner: string) => string;
}

/** A test of a layer: its policy is of one of `kinds`. */
export const ofKind =
  (...kinds: BuiltinKind[]) =>
  (layer: LayerFacts): boolean =>
    (kinds as readonly string[]).includes(layer.policy.kind);

/** A Fallback built without `on`: it turns every error into a value. */
export const catchAllFallback = (layer: LayerFacts): boolean => layer.policy instanceof Fallback && layer.policy.handlesEveryError;
