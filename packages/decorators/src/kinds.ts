// Everything the builder knows of Breakwater's own kinds of policy, in one place: how they print
// (`describe()`), which of them hold a slot while `fn` runs, the rate limiter's `withPermits`, and
// the orders of layers that lose information (`pipeline.warnings`). The rest of the builder knows
// only the Policy and LayerPolicy protocols of @breakwater/core, so a user's own policy composes
// the same way. A kind is spelt through `BuiltinKind`: a misspelt one is a type error.
import type { Policy, PolicyKind } from '@breakwater/core';
import { describeValue } from '@breakwater/core/internal';
import { Fallback } from './fallback.js';

/** The kinds of Breakwater's own policies (core's `PolicyKind` without a user's own). */
export type BuiltinKind = 'retry' | 'circuitBreaker' | 'timeLimiter' | 'bulkhead' | 'poolBulkhead' | 'rateLimiter' | 'fallback';

/** How `describe()` prints each built-in kind: its class name. */
const KIND_LABELS: Readonly<Record<BuiltinKind, string>> = {
  retry: 'Retry',
  circuitBreaker: 'CircuitBreaker',
  timeLimiter: 'TimeLimiter',
  bulkhead: 'Bulkhead',
  poolBulkhead: 'PoolBulkhead',
  rateLimiter: 'RateLimiter',
  fallback: 'Fallback',
};

/**
 * One layer as `describe()` prints it: `CircuitBreaker 'pg'` for a built-in kind (the class
 * name), the kind as given for any other (`hedge 'pg'`).
 */
export function layerLabel(kind: PolicyKind, name: string): string {
  return `${Object.hasOwn(KIND_LABELS, kind) ? KIND_LABELS[kind as BuiltinKind] : kind} '${name}'`;
}

/**
 * The kinds whose policy holds a slot (a bulkhead's permit, a pool's worker) while the call
 * inside it runs: their layer keeps the slot until `fn` really settles, even when the layers
 * inside it have already given up on an abort (see `holdingStep` in layers.ts).
 */
export function holdsASlot(kind: PolicyKind): boolean {
  return (SLOT_HOLDING_KINDS as readonly string[]).includes(kind);
}
const SLOT_HOLDING_KINDS: readonly BuiltinKind[] = ['bulkhead', 'poolBulkhead'];

/** Checks, for JavaScript callers, that `value` is a Policy of one of `kinds` (a with-method's). */
export function checkKind(method: string, value: unknown, kinds: readonly BuiltinKind[]): asserts value is Policy {
  checkPolicy(method, value);
  if (!(kinds as readonly string[]).includes(value.kind)) {
    const expected = kinds.map((k) => `'${k}'`).join(' or ');
    throw new TypeError(`${method}: expected a policy of kind ${expected}, got kind '${value.kind}' (${layerLabel(value.kind, value.name)})`);
  }
}

/** Checks that `value` is a Policy: a string name, a string kind and an execute method. */
export function checkPolicy(method: string, value: unknown): asserts value is Policy {
  const p = value as Partial<Policy> | null;
  if (typeof p !== 'object' || p === null || typeof p.execute !== 'function' || typeof p.name !== 'string' || typeof p.kind !== 'string') {
    throw new TypeError(`${method}: expected a Policy (an object with a string name, a string kind and an execute method), got ${describeValue(value)}`);
  }
}

/**
 * A rate limiter as `withRateLimiter` sees it: a `Policy` of kind `'rateLimiter'`, with an
 * optional `withPermits(n)` giving a policy that takes `n` permits per call.
 *
 * @example
 * ```ts
 * const limiter: RateLimiterLike = new RateLimiter('pg', { limitForPeriod: 10 });
 * ```
 */
export type RateLimiterLike = Policy & {
  readonly kind: 'rateLimiter';
  withPermits?(permits: number): Pick<Policy, 'execute'>;
};

/**
 * The policy that takes `permits` permits of `limiter` per call, and its label
 * (`RateLimiter 'pg' (3 permits)`): `limiter.withPermits(permits)`, called once, at build time.
 * Throws for a `permits` that is not an integer ≥ 1, and for a limiter without `withPermits`.
 */
export function withPermits(limiter: RateLimiterLike, permits: unknown): { readonly view: Pick<Policy, 'execute'>; readonly label: string } {
  if (typeof permits !== 'number') throw new TypeError(`withRateLimiter: permits must be a number, got ${describeValue(permits)}`);
  if (!Number.isInteger(permits) || permits < 1) throw new RangeError(`withRateLimiter: permits must be an integer >= 1, got ${describeValue(permits)}`);
  const label = layerLabel(limiter.kind, limiter.name);
  if (typeof limiter.withPermits !== 'function') {
    throw new TypeError(`withRateLimiter: ${label} has no withPermits(n) method, so it cannot take ${permits} permits per call`);
  }
  const view = limiter.withPermits(permits);
  if (typeof view !== 'object' || view === null || typeof view.execute !== 'function') {
    throw new TypeError(`withRateLimiter: ${label}.withPermits(${permits}) must return a policy (with an execute method), got ${describeValue(view)}`);
  }
  return { view, label: `${label} (${permits} permits)` };
}

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
  | 'FALLBACK_INSIDE_RETRY';

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
interface OrderingRule {
  readonly code: PipelineWarningCode;
  readonly outer: (layer: LayerFacts) => boolean;
  readonly inner: (layer: LayerFacts) => boolean;
  readonly message: (outer: string, inner: string) => string;
  readonly fix: (outer: string, inner: string) => string;
}

const ofKind =
  (...kinds: BuiltinKind[]) =>
  (layer: LayerFacts): boolean =>
    (kinds as readonly string[]).includes(layer.policy.kind);

/** A Fallback built without `on`: it turns every error into a value. */
const catchAllFallback = (layer: LayerFacts): boolean => layer.policy instanceof Fallback && layer.policy.handlesEveryError;

const RULES: readonly OrderingRule[] = [
  {
    code: 'TIME_LIMITER_OUTSIDE_CIRCUIT_BREAKER',
    outer: ofKind('timeLimiter'),
    inner: ofKind('circuitBreaker'),
    message: (o, i) =>
      `${o} is outside ${i}: a time-out ends the call above the breaker, so the breaker never records it as a failure ` +
      `(it records whatever the abandoned call does later, if anything).`,
    fix: (o, i) =>
      `Call withCircuitBreaker(…) before withTimeLimiter(…), so that the order reads ${i} → ${o}: each time-out is then a failure the breaker records.`,
  },
  {
    code: 'CIRCUIT_BREAKER_OUTSIDE_RETRY',
    outer: ofKind('circuitBreaker'),
    inner: ofKind('retry'),
    message: (o, i) =>
      `${o} is outside ${i}: the breaker records one outcome per retried operation, so the attempts the retry makes ` +
      `are invisible to it (three failed attempts count as one failure, or as a success if the last one succeeds).`,
    fix: (o, i) => `Call withRetry(…) before withCircuitBreaker(…), so that the order reads ${i} → ${o}: each attempt is then its own breaker call.`,
  },
  {
    code: 'RETRY_INSIDE_BULKHEAD',
    outer: ofKind('bulkhead', 'poolBulkhead'),
    inner: ofKind('retry'),
    message: (o, i) =>
      `${i} is inside ${o}: every attempt and every wait between attempts holds the bulkhead's slot, so a call that ` +
      `retries keeps other calls out while it sleeps.`,
    fix: (o, i) =>
      `Call withRetry(…) before withBulkhead(…), so that the order reads ${i} → ${o}: each attempt then takes and gives back its own slot, and no slot is held between attempts.`,
  },
  {
    code: 'RETRY_INSIDE_RATE_LIMITER',
    outer: ofKind('rateLimiter'),
    inner: ofKind('retry'),
    message: (o, i) =>
      `${i} is inside ${o}: the whole retried operation spends one permit, so the attempts after the first reach the ` +
      `backend outside the limit (and a RequestNotPermittedError can never be retried).`,
    fix: (o, i) => `Call withRetry(…) before withRateLimiter(…), so that the order reads ${i} → ${o}: each attempt then takes its own permit.`,
  },
  {
    code: 'RATE_LIMITER_OUTSIDE_CIRCUIT_BREAKER',
    outer: ofKind('rateLimiter'),
    inner: ofKind('circuitBreaker'),
    message: (o, i) =>
      `${o} is outside ${i}: while the breaker is OPEN every call still spends a permit before the breaker refuses it, callers ` +
      `get the limiter's refusal (or wait for a permit) instead of the breaker's immediate CallNotPermittedError, and the first call ` +
      `after the OPEN wait (the one that moves the breaker to HALF_OPEN) can be held up until the limiter's next cycle.`,
    fix: (o, i) =>
      `Call withCircuitBreaker(…) before withRateLimiter(…), so that the order reads ${i} → ${o} (Resilience4j's Spring aspect order): ` +
      `an OPEN breaker then refuses at once without spending a permit.`,
  },
  {
    code: 'FALLBACK_INSIDE_CIRCUIT_BREAKER',
    outer: ofKind('circuitBreaker'),
    inner: catchAllFallback,
    message: (o, i) => `${i} is inside ${o} and handles every error: the breaker sees each failure it turns into a value as a success, so it never opens.`,
    fix: (o, i) =>
      `Call withFallback(…) before withCircuitBreaker(…), so that the order reads ${i} → ${o}; or give the fallback an 'on' list of the errors it is meant to absorb.`,
  },
  {
    code: 'FALLBACK_INSIDE_RETRY',
    outer: ofKind('retry'),
    inner: catchAllFallback,
    message: (o, i) => `${i} is inside ${o} and handles every error: the retry never sees a failure, so it never retries.`,
    fix: (o, i) =>
      `Call withFallback(…) before withRetry(…), so that the order reads ${i} → ${o}; or give the fallback an 'on' list of the errors it is meant to absorb.`,
  },
];

/**
 * Every pair of layers (outer written before inner) that a rule flags, outermost pair first.
 * Runs once, when a pipeline is built.
 */
export function findWarnings(layers: readonly LayerFacts[]): readonly PipelineWarning[] {
  const found: PipelineWarning[] = [];
  for (let o = 0; o < layers.length; o++) {
    const outer = layers[o]!;
    for (let i = o + 1; i < layers.length; i++) {
      const inner = layers[i]!;
      for (const rule of RULES) {
        if (rule.outer(outer) && rule.inner(inner)) {
          found.push(Object.freeze({ code: rule.code, message: rule.message(outer.label, inner.label), fix: rule.fix(outer.label, inner.label) }));
        }
      }
    }
  }
  return Object.freeze(found);
}
