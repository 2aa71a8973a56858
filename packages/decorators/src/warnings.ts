// The orders of layers that lose information, and the rule for each (`pipeline.warnings`): which
// kind written outside which loses what, in words a user reads, with the order that fixes it.
// Decided by `kind` only (the labels and kinds are kinds.ts's), once, when a pipeline is built.
// A rule is here only when the loss is certain whatever the options: an order that is merely a
// matter of taste (a bulkhead inside or outside a breaker, an adaptive limiter beside a rate
// limiter) warns of nothing. With every rule kept, the order that warns of nothing is
// Fallback → AdaptiveThrottle → Retry → Hedge → Bulkhead → AdaptiveLimiter → CircuitBreaker → RateLimiter → TimeLimiter → Chaos → fn.
// The rules of the hedge and of chaos are in warnings-hedge-chaos.ts; what a rule is, in ordering-rule.ts.
import { catchAllFallback, ofKind, type LayerFacts, type OrderingRule, type PipelineWarning } from './ordering-rule.js';
import { HEDGE_AND_CHAOS_RULES } from './warnings-hedge-chaos.js';

export type { LayerFacts, PipelineWarning, PipelineWarningCode } from './ordering-rule.js';

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
  // An adaptive limiter learns from each call's round trip and from its drops (a TimeoutError, or
  // what its isDrop accepts): a layer outside it that ends the call first (a time limiter) hides
  // the drop, one inside it that waits or absorbs errors (a retry, a catch-all fallback) stretches
  // the round trip or hides the drop. Each warns.
  {
    code: 'TIME_LIMITER_OUTSIDE_ADAPTIVE_LIMITER',
    outer: ofKind('timeLimiter'),
    inner: ofKind('adaptiveLimiter'),
    message: (o, i) =>
      `${o} is outside ${i}: a time-out ends the call above the limiter, so the limiter never sees it as a drop and never lowers ` +
      `its limit for it (the call keeps its place until the abandoned work ends, which then counts at most as a slow success).`,
    fix: (o, i) =>
      `Call withAdaptiveLimiter(…) before withTimeLimiter(…), so that the order reads ${i} → ${o}: each time-out is then a drop the limiter backs off on.`,
  },
  {
    code: 'RETRY_INSIDE_ADAPTIVE_LIMITER',
    outer: ofKind('adaptiveLimiter'),
    inner: ofKind('retry'),
    message: (o, i) =>
      `${i} is inside ${o}: the limiter samples the whole retried operation as one call, so the waits between attempts count ` +
      `as round-trip time and a failed attempt followed by a successful one is never seen as a drop; and the call keeps its place ` +
      `under the limit while it sleeps.`,
    fix: (o, i) =>
      `Call withRetry(…) before withAdaptiveLimiter(…), so that the order reads ${i} → ${o}: each attempt is then its own sample and takes its own place.`,
  },
  {
    code: 'FALLBACK_INSIDE_ADAPTIVE_LIMITER',
    outer: ofKind('adaptiveLimiter'),
    inner: catchAllFallback,
    message: (o, i) =>
      `${i} is inside ${o} and handles every error: the limiter sees each drop it turns into a value as a success, so it never lowers its limit.`,
    fix: (o, i) =>
      `Call withFallback(…) before withAdaptiveLimiter(…), so that the order reads ${i} → ${o}; or give the fallback an 'on' list of the errors it is meant to absorb.`,
  },
  // An adaptive throttle counts requests and the backend's accepts, and refuses locally, at once,
  // with the probability those counts give: it belongs outside what would retry its refusals (a
  // retry) or count them as the backend's failures (a breaker), and outside what hides the
  // backend's answer from it (a time limiter's time-out, a catch-all fallback).
  {
    code: 'THROTTLE_INSIDE_RETRY',
    outer: ofKind('retry'),
    inner: ofKind('throttle'),
    message: (o, i) =>
      `${o} is outside ${i}: each attempt is a request of its own, and the throttle's local refusals (RequestNotPermittedError) ` +
      `are retried, so an operation is refused only when every attempt is, the caller waits between attempts for what was ` +
      `meant as an immediate refusal, and each refused attempt counts as one more request, raising the reject ratio further.`,
    fix: (o, i) =>
      `Call withThrottle(…) before withRetry(…), so that the order reads ${i} → ${o}: the throttle then decides once per operation, before any attempt.`,
  },
  {
    code: 'THROTTLE_INSIDE_CIRCUIT_BREAKER',
    outer: ofKind('circuitBreaker'),
    inner: ofKind('throttle'),
    message: (o, i) =>
      `${i} is inside ${o}: the breaker records each of the throttle's local refusals as a failure (unless told to ignore ` +
      `RequestNotPermittedError), so shedding load opens the breaker, and in HALF_OPEN its trial calls can be refused by the ` +
      `throttle before they reach the backend.`,
    fix: (o, i) =>
      `Call withThrottle(…) before withCircuitBreaker(…), so that the order reads ${i} → ${o}: the breaker then records only what the backend answered.`,
  },
  {
    code: 'TIME_LIMITER_OUTSIDE_THROTTLE',
    outer: ofKind('timeLimiter'),
    inner: ofKind('throttle'),
    message: (o, i) =>
      `${o} is outside ${i}: a time-out ends the call above the throttle, so the throttle never counts it as a request ` +
      `the backend failed to accept (it counts whatever the abandoned call does later, if anything).`,
    fix: (o, i) => `Call withThrottle(…) before withTimeLimiter(…), so that the order reads ${i} → ${o}: each time-out then raises the reject ratio.`,
  },
  {
    code: 'FALLBACK_INSIDE_THROTTLE',
    outer: ofKind('throttle'),
    inner: catchAllFallback,
    message: (o, i) =>
      `${i} is inside ${o} and handles every error: the throttle counts each failure it turns into a value as accepted, so it never throttles.`,
    fix: (o, i) =>
      `Call withFallback(…) before withThrottle(…), so that the order reads ${i} → ${o}; or give the fallback an 'on' list of the errors it is meant to absorb.`,
  },
];

const ALL_RULES: readonly OrderingRule[] = [...RULES, ...HEDGE_AND_CHAOS_RULES];

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
      for (const rule of ALL_RULES) {
        if (rule.outer(outer) && rule.inner(inner)) {
          found.push(Object.freeze({ code: rule.code, message: rule.message(outer.label, inner.label), fix: rule.fix(outer.label, inner.label) }));
        }
      }
    }
  }
  return Object.freeze(found);
}
