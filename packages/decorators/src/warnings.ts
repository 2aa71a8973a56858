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

/** What the rules need to know of a layer. @internal */
export interface LayerFacts {
  readonly kind: string;
  readonly label: string;
  /** A fallback built without `on`. */
  readonly handlesEveryError: boolean;
}

interface Rule {
  readonly code: PipelineWarningCode;
  readonly outer: (layer: LayerFacts) => boolean;
  readonly inner: (layer: LayerFacts) => boolean;
  readonly message: (outer: string, inner: string) => string;
  readonly fix: (outer: string, inner: string) => string;
}

const is =
  (...kinds: string[]) =>
  (layer: LayerFacts): boolean =>
    kinds.includes(layer.kind);
const catchAllFallback = (layer: LayerFacts): boolean => layer.kind === 'fallback' && layer.handlesEveryError;

/** Every rule: an `outer` layer written before (outside) an `inner` one. */
const RULES: readonly Rule[] = [
  {
    code: 'TIME_LIMITER_OUTSIDE_CIRCUIT_BREAKER',
    outer: is('timeLimiter'),
    inner: is('circuitBreaker'),
    message: (o, i) =>
      `${o} is outside ${i}: a time-out ends the call above the breaker, so the breaker never records it as a failure ` +
      `(it records whatever the abandoned call does later, if anything).`,
    fix: (o, i) => `Call withCircuitBreaker(…) before withTimeLimiter(…), so that the order reads ${i} → ${o}: each time-out is then a failure the breaker records.`,
  },
  {
    code: 'CIRCUIT_BREAKER_OUTSIDE_RETRY',
    outer: is('circuitBreaker'),
    inner: is('retry'),
    message: (o, i) =>
      `${o} is outside ${i}: the breaker records one outcome per retried operation, so the attempts the retry makes ` +
      `are invisible to it (three failed attempts count as one failure, or as a success if the last one succeeds).`,
    fix: (o, i) => `Call withRetry(…) before withCircuitBreaker(…), so that the order reads ${i} → ${o}: each attempt is then its own breaker call.`,
  },
  {
    code: 'RETRY_INSIDE_BULKHEAD',
    outer: is('bulkhead', 'poolBulkhead'),
    inner: is('retry'),
    message: (o, i) =>
      `${i} is inside ${o}: every attempt and every wait between attempts holds the bulkhead's slot, so a call that ` +
      `retries keeps other calls out while it sleeps.`,
    fix: (o, i) => `Call withRetry(…) before withBulkhead(…), so that the order reads ${i} → ${o}: each attempt then takes and gives back its own slot, and no slot is held between attempts.`,
  },
  {
    code: 'RETRY_INSIDE_RATE_LIMITER',
    outer: is('rateLimiter'),
    inner: is('retry'),
    message: (o, i) =>
      `${i} is inside ${o}: the whole retried operation spends one permit, so the attempts after the first reach the ` +
      `backend outside the limit (and a RequestNotPermittedError can never be retried).`,
    fix: (o, i) => `Call withRetry(…) before withRateLimiter(…), so that the order reads ${i} → ${o}: each attempt then takes its own permit.`,
  },
  {
    code: 'FALLBACK_INSIDE_CIRCUIT_BREAKER',
    outer: is('circuitBreaker'),
    inner: catchAllFallback,
    message: (o, i) =>
      `${i} is inside ${o} and handles every error: the breaker sees each failure it turns into a value as a success, so it never opens.`,
    fix: (o, i) => `Call withFallback(…) before withCircuitBreaker(…), so that the order reads ${i} → ${o}; or give the fallback an 'on' list of the errors it is meant to absorb.`,
  },
  {
    code: 'FALLBACK_INSIDE_RETRY',
    outer: is('retry'),
    inner: catchAllFallback,
    message: (o, i) => `${i} is inside ${o} and handles every error: the retry never sees a failure, so it never retries.`,
    fix: (o, i) => `Call withFallback(…) before withRetry(…), so that the order reads ${i} → ${o}; or give the fallback an 'on' list of the errors it is meant to absorb.`,
  },
];

/**
 * Every pair of layers (outer written before inner) that a rule flags, outermost pair first.
 * Runs once, when a pipeline is built.
 * @internal
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
