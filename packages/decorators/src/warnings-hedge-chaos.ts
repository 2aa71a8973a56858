// The ordering rules of the hedge and of chaos (`pipeline.warnings`; the others are warnings.ts's).
// A hedge runs everything inside it once per attempt, several attempts at once: what counts calls,
// holds places or spends permits belongs inside it, so each attempt is its own call to them (as
// with a retry); a catch-all fallback inside it hides the failures that start the next attempt.
// Chaos stands in for the backend: it belongs innermost, so every other layer meets what it
// injects as it would meet the backend's own failure or latency.
import { catchAllFallback, ofKind, type LayerFacts, type OrderingRule } from './ordering-rule.js';

/** Any layer that is not a chaos strategy. */
const notChaos = (layer: LayerFacts): boolean => layer.policy.kind !== 'chaos';

/** The rules of the hedge and of chaos, in the form of warnings.ts's. */
export const HEDGE_AND_CHAOS_RULES: readonly OrderingRule[] = [
  {
    code: 'CIRCUIT_BREAKER_OUTSIDE_HEDGE',
    outer: ofKind('circuitBreaker'),
    inner: ofKind('hedge'),
    message: (o, i) =>
      `${o} is outside ${i}: the breaker records one outcome per hedged call, so the attempts the hedge makes are invisible ` +
      `to it (a slow or failing backend counts as a success whenever one attempt of the call succeeds), and an OPEN breaker cannot stop the hedges.`,
    fix: (o, i) => `Call withHedge(…) before withCircuitBreaker(…), so that the order reads ${i} → ${o}: each attempt is then its own breaker call.`,
  },
  {
    code: 'HEDGE_INSIDE_BULKHEAD',
    outer: ofKind('bulkhead', 'poolBulkhead'),
    inner: ofKind('hedge'),
    message: (o, i) =>
      `${i} is inside ${o}: all the attempts of a hedged call run in the call's one slot, so the bulkhead bounds calls, not the ` +
      `requests the backend gets (up to 1 + maxHedgedAttempts of them per slot).`,
    fix: (o, i) => `Call withHedge(…) before withBulkhead(…), so that the order reads ${i} → ${o}: each attempt then takes its own slot.`,
  },
  {
    code: 'HEDGE_INSIDE_RATE_LIMITER',
    outer: ofKind('rateLimiter'),
    inner: ofKind('hedge'),
    message: (o, i) => `${i} is inside ${o}: the whole hedged call spends one permit, so the hedged attempts reach the backend outside the limit.`,
    fix: (o, i) => `Call withHedge(…) before withRateLimiter(…), so that the order reads ${i} → ${o}: each attempt then takes its own permit.`,
  },
  {
    code: 'HEDGE_INSIDE_ADAPTIVE_LIMITER',
    outer: ofKind('adaptiveLimiter'),
    inner: ofKind('hedge'),
    message: (o, i) =>
      `${i} is inside ${o}: the limiter samples the whole hedged call as one call with the winner's round trip, so it never ` +
      `sees the slow attempts the hedge gave up on, and the hedged attempts take no place under its limit.`,
    fix: (o, i) =>
      `Call withHedge(…) before withAdaptiveLimiter(…), so that the order reads ${i} → ${o}: each attempt is then its own sample and takes its own place.`,
  },
  {
    code: 'FALLBACK_INSIDE_HEDGE',
    outer: ofKind('hedge'),
    inner: catchAllFallback,
    message: (o, i) =>
      `${i} is inside ${o} and handles every error: each failed attempt becomes a value the hedge takes as the answer, so a failure ` +
      `never starts the next attempt, and the fallback's value can win over a slower real answer.`,
    fix: (o, i) =>
      `Call withFallback(…) before withHedge(…), so that the order reads ${i} → ${o}; or give the fallback an 'on' list of the errors it is meant to absorb.`,
  },
  {
    code: 'CHAOS_NOT_INNERMOST',
    outer: ofKind('chaos'),
    inner: notChaos,
    message: (o, i) =>
      `${o} is outside ${i}: what it injects never passes through ${i}, so the experiment does not rehearse what ${i} does ` +
      `when the backend fails or slows down.`,
    fix: (o) =>
      `Call withChaos(…) last, so that ${o} is innermost, just around fn: every layer then meets what it injects as it would meet the backend's own failure.`,
  },
];
