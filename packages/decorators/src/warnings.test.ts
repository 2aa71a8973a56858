import { AdaptiveLimiter, AdaptiveThrottle } from '@breakwater/adaptive';
import { TimeoutError, type Policy } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { decorate, Fallback, type Pipeline } from './index.js';
import { fakeRateLimiter, fakeRetry, recorder } from '../test/test-support.js';

const retry = fakeRetry('pg', 3);
const breaker = recorder('circuitBreaker', 'pg', []);
const timeLimiter = recorder('timeLimiter', 'pg', []);
const bulkhead = recorder('bulkhead', 'db', []);
const pool = recorder('poolBulkhead', 'cpu', []);
const limiter = fakeRateLimiter('api', []);
const adaptive = new AdaptiveLimiter('pg', { partitions: { critical: 0.7, batch: 0.3 } });
const throttle = new AdaptiveThrottle('search');

const codes = (p: Pipeline<unknown>): string[] => p.warnings.map((w) => w.code);

describe('warnings', () => {
  it('a time limiter outside the breaker: time-outs are not recorded as failures', () => {
    const p = decorate().withTimeLimiter(timeLimiter).withCircuitBreaker(breaker);
    expect(p.warnings).toEqual([
      {
        code: 'TIME_LIMITER_OUTSIDE_CIRCUIT_BREAKER',
        message:
          "TimeLimiter 'pg' is outside CircuitBreaker 'pg': a time-out ends the call above the breaker, so the breaker never records it as a failure " +
          '(it records whatever the abandoned call does later, if anything).',
        fix: "Call withCircuitBreaker(…) before withTimeLimiter(…), so that the order reads CircuitBreaker 'pg' → TimeLimiter 'pg': each time-out is then a failure the breaker records.",
      },
    ]);
  });

  it('a breaker outside the retry: the retry is invisible to the breaker', () => {
    const p = decorate().withCircuitBreaker(breaker).withRetry(retry);
    expect(p.warnings).toEqual([
      {
        code: 'CIRCUIT_BREAKER_OUTSIDE_RETRY',
        message:
          "CircuitBreaker 'pg' is outside Retry 'pg': the breaker records one outcome per retried operation, so the attempts the retry makes " +
          'are invisible to it (three failed attempts count as one failure, or as a success if the last one succeeds).',
        fix: "Call withRetry(…) before withCircuitBreaker(…), so that the order reads Retry 'pg' → CircuitBreaker 'pg': each attempt is then its own breaker call.",
      },
    ]);
  });

  it('a retry inside a bulkhead (semaphore or pool): retries hold the slot', () => {
    expect(decorate().withBulkhead(bulkhead).withRetry(retry).warnings).toEqual([
      {
        code: 'RETRY_INSIDE_BULKHEAD',
        message:
          "Retry 'pg' is inside Bulkhead 'db': every attempt and every wait between attempts holds the bulkhead's slot, so a call that " +
          'retries keeps other calls out while it sleeps.',
        fix: "Call withRetry(…) before withBulkhead(…), so that the order reads Retry 'pg' → Bulkhead 'db': each attempt then takes and gives back its own slot, and no slot is held between attempts.",
      },
    ]);
    expect(decorate().withBulkhead(pool).withRetry(retry).warnings[0]?.message).toMatch(/^Retry 'pg' is inside PoolBulkhead 'cpu': /);
  });

  it('a retry inside a rate limiter: one permit for every attempt', () => {
    expect(decorate().withRateLimiter(limiter).withRetry(retry).warnings).toEqual([
      {
        code: 'RETRY_INSIDE_RATE_LIMITER',
        message:
          "Retry 'pg' is inside RateLimiter 'api': the whole retried operation spends one permit, so the attempts after the first reach the " +
          'backend outside the limit (and a RequestNotPermittedError can never be retried).',
        fix: "Call withRetry(…) before withRateLimiter(…), so that the order reads Retry 'pg' → RateLimiter 'api': each attempt then takes its own permit.",
      },
    ]);
    expect(codes(decorate().withRateLimiter(limiter, 2).withRetry(retry))).toEqual(['RETRY_INSIDE_RATE_LIMITER']);
  });

  it("a rate limiter outside the breaker: an OPEN breaker spends permits and answers with the limiter's refusal", () => {
    expect(decorate().withRateLimiter(limiter).withCircuitBreaker(breaker).warnings).toEqual([
      {
        code: 'RATE_LIMITER_OUTSIDE_CIRCUIT_BREAKER',
        message:
          "RateLimiter 'api' is outside CircuitBreaker 'pg': while the breaker is OPEN every call still spends a permit before the breaker refuses it, callers " +
          "get the limiter's refusal (or wait for a permit) instead of the breaker's immediate CallNotPermittedError, and the first call " +
          "after the OPEN wait (the one that moves the breaker to HALF_OPEN) can be held up until the limiter's next cycle.",
        fix:
          "Call withCircuitBreaker(…) before withRateLimiter(…), so that the order reads CircuitBreaker 'pg' → RateLimiter 'api' (Resilience4j's Spring aspect order): " +
          'an OPEN breaker then refuses at once without spending a permit.',
      },
    ]);
    expect(codes(decorate().withRetry(retry).withRateLimiter(limiter, 2).withTimeLimiter(timeLimiter).withCircuitBreaker(breaker))).toEqual([
      'RATE_LIMITER_OUTSIDE_CIRCUIT_BREAKER',
      'TIME_LIMITER_OUTSIDE_CIRCUIT_BREAKER',
    ]);
  });

  it('a fallback that handles every error, inside a breaker or a retry, hides the failures from it', () => {
    expect(
      decorate()
        .withCircuitBreaker(breaker)
        .withFallback(() => 0).warnings,
    ).toEqual([
      {
        code: 'FALLBACK_INSIDE_CIRCUIT_BREAKER',
        message:
          "Fallback 'fallback' is inside CircuitBreaker 'pg' and handles every error: the breaker sees each failure it turns into a value as a success, so it never opens.",
        fix: "Call withFallback(…) before withCircuitBreaker(…), so that the order reads Fallback 'fallback' → CircuitBreaker 'pg'; or give the fallback an 'on' list of the errors it is meant to absorb.",
      },
    ]);
    expect(
      decorate()
        .withRetry(retry)
        .with(new Fallback('cache', () => 0)).warnings,
    ).toEqual([
      {
        code: 'FALLBACK_INSIDE_RETRY',
        message: "Fallback 'cache' is inside Retry 'pg' and handles every error: the retry never sees a failure, so it never retries.",
        fix: "Call withFallback(…) before withRetry(…), so that the order reads Fallback 'cache' → Retry 'pg'; or give the fallback an 'on' list of the errors it is meant to absorb.",
      },
    ]);
  });

  it('a time limiter outside the adaptive limiter: time-outs are not drops', () => {
    expect(decorate().withTimeLimiter(timeLimiter).withAdaptiveLimiter(adaptive).warnings).toEqual([
      {
        code: 'TIME_LIMITER_OUTSIDE_ADAPTIVE_LIMITER',
        message:
          "TimeLimiter 'pg' is outside AdaptiveLimiter 'pg': a time-out ends the call above the limiter, so the limiter never sees it as a drop and never lowers " +
          'its limit for it (the call keeps its place until the abandoned work ends, which then counts at most as a slow success).',
        fix: "Call withAdaptiveLimiter(…) before withTimeLimiter(…), so that the order reads AdaptiveLimiter 'pg' → TimeLimiter 'pg': each time-out is then a drop the limiter backs off on.",
      },
    ]);
    expect(decorate().withTimeLimiter(timeLimiter).withAdaptiveLimiter(adaptive, { partition: 'batch' }).warnings[0]?.message).toMatch(
      /^TimeLimiter 'pg' is outside AdaptiveLimiter 'pg' \(partition batch\): /,
    );
  });

  it('a retry inside the adaptive limiter: one sample for every attempt and every wait', () => {
    expect(decorate().withAdaptiveLimiter(adaptive).withRetry(retry).warnings).toEqual([
      {
        code: 'RETRY_INSIDE_ADAPTIVE_LIMITER',
        message:
          "Retry 'pg' is inside AdaptiveLimiter 'pg': the limiter samples the whole retried operation as one call, so the waits between attempts count " +
          'as round-trip time and a failed attempt followed by a successful one is never seen as a drop; and the call keeps its place ' +
          'under the limit while it sleeps.',
        fix: "Call withRetry(…) before withAdaptiveLimiter(…), so that the order reads Retry 'pg' → AdaptiveLimiter 'pg': each attempt is then its own sample and takes its own place.",
      },
    ]);
  });

  it('a retry outside the throttle: its refusals are retried, and every attempt is a request', () => {
    expect(decorate().withRetry(retry).withThrottle(throttle).warnings).toEqual([
      {
        code: 'THROTTLE_INSIDE_RETRY',
        message:
          "Retry 'pg' is outside AdaptiveThrottle 'search': each attempt is a request of its own, and the throttle's local refusals (RequestNotPermittedError) " +
          'are retried, so an operation is refused only when every attempt is, the caller waits between attempts for what was ' +
          'meant as an immediate refusal, and each refused attempt counts as one more request, raising the reject ratio further.',
        fix: "Call withThrottle(…) before withRetry(…), so that the order reads AdaptiveThrottle 'search' → Retry 'pg': the throttle then decides once per operation, before any attempt.",
      },
    ]);
  });

  it("a breaker outside the throttle: the throttle's refusals are the breaker's failures", () => {
    expect(decorate().withCircuitBreaker(breaker).withThrottle(throttle).warnings).toEqual([
      {
        code: 'THROTTLE_INSIDE_CIRCUIT_BREAKER',
        message:
          "AdaptiveThrottle 'search' is inside CircuitBreaker 'pg': the breaker records each of the throttle's local refusals as a failure (unless told to ignore " +
          'RequestNotPermittedError), so shedding load opens the breaker, and in HALF_OPEN its trial calls can be refused by the ' +
          'throttle before they reach the backend.',
        fix: "Call withThrottle(…) before withCircuitBreaker(…), so that the order reads AdaptiveThrottle 'search' → CircuitBreaker 'pg': the breaker then records only what the backend answered.",
      },
    ]);
  });

  it('a time limiter outside the throttle: time-outs are not counted against the backend', () => {
    expect(decorate().withTimeLimiter(timeLimiter).withThrottle(throttle).warnings).toEqual([
      {
        code: 'TIME_LIMITER_OUTSIDE_THROTTLE',
        message:
          "TimeLimiter 'pg' is outside AdaptiveThrottle 'search': a time-out ends the call above the throttle, so the throttle never counts it as a request " +
          'the backend failed to accept (it counts whatever the abandoned call does later, if anything).',
        fix: "Call withThrottle(…) before withTimeLimiter(…), so that the order reads AdaptiveThrottle 'search' → TimeLimiter 'pg': each time-out then raises the reject ratio.",
      },
    ]);
  });

  it('a fallback that handles every error, inside the adaptive limiter or the throttle, hides the overload from it', () => {
    expect(
      decorate()
        .withAdaptiveLimiter(adaptive)
        .withFallback(() => 0).warnings,
    ).toEqual([
      {
        code: 'FALLBACK_INSIDE_ADAPTIVE_LIMITER',
        message:
          "Fallback 'fallback' is inside AdaptiveLimiter 'pg' and handles every error: the limiter sees each drop it turns into a value as a success, so it never lowers its limit.",
        fix: "Call withFallback(…) before withAdaptiveLimiter(…), so that the order reads Fallback 'fallback' → AdaptiveLimiter 'pg'; or give the fallback an 'on' list of the errors it is meant to absorb.",
      },
    ]);
    expect(
      decorate()
        .withThrottle(throttle)
        .withFallback(() => 0).warnings,
    ).toEqual([
      {
        code: 'FALLBACK_INSIDE_THROTTLE',
        message:
          "Fallback 'fallback' is inside AdaptiveThrottle 'search' and handles every error: the throttle counts each failure it turns into a value as accepted, so it never throttles.",
        fix: "Call withFallback(…) before withThrottle(…), so that the order reads Fallback 'fallback' → AdaptiveThrottle 'search'; or give the fallback an 'on' list of the errors it is meant to absorb.",
      },
    ]);
  });

  it('one warning per offending pair, outermost pair first', () => {
    const p = decorate().withTimeLimiter(timeLimiter).withCircuitBreaker(breaker).withRetry(retry);
    expect(codes(p)).toEqual(['TIME_LIMITER_OUTSIDE_CIRCUIT_BREAKER', 'CIRCUIT_BREAKER_OUTSIDE_RETRY']);
    const twoBreakers = decorate()
      .withTimeLimiter(timeLimiter)
      .withCircuitBreaker(recorder('circuitBreaker', 'a', []))
      .withCircuitBreaker(recorder('circuitBreaker', 'b', []));
    expect(twoBreakers.warnings.map((w) => w.message.split(':')[0])).toEqual([
      "TimeLimiter 'pg' is outside CircuitBreaker 'a'",
      "TimeLimiter 'pg' is outside CircuitBreaker 'b'",
    ]);
    const everything = decorate()
      .withTimeLimiter(timeLimiter)
      .withCircuitBreaker(breaker)
      .withBulkhead(bulkhead)
      .withRateLimiter(limiter)
      .withRetry(retry)
      .withFallback(() => 0);
    expect(codes(everything)).toEqual([
      'TIME_LIMITER_OUTSIDE_CIRCUIT_BREAKER',
      'CIRCUIT_BREAKER_OUTSIDE_RETRY',
      'FALLBACK_INSIDE_CIRCUIT_BREAKER',
      'RETRY_INSIDE_BULKHEAD',
      'RETRY_INSIDE_RATE_LIMITER',
      'FALLBACK_INSIDE_RETRY',
    ]);
    expect(codes(decorate().withRateLimiter(limiter).withCircuitBreaker(breaker).withRetry(retry))).toEqual([
      'RATE_LIMITER_OUTSIDE_CIRCUIT_BREAKER',
      'RETRY_INSIDE_RATE_LIMITER',
      'CIRCUIT_BREAKER_OUTSIDE_RETRY',
    ]);
  });

  it('the kind decides, however the policy was added (with(), a nested pipeline)', () => {
    expect(codes(decorate().with(timeLimiter).with(breaker))).toEqual(['TIME_LIMITER_OUTSIDE_CIRCUIT_BREAKER']);
    const inner = decorate().withRetry(retry);
    expect(codes(decorate().withCircuitBreaker(breaker).with(inner))).toEqual(['CIRCUIT_BREAKER_OUTSIDE_RETRY']);
  });

  it.each<[string, () => Pipeline<unknown>]>([
    ['no layer', () => decorate()],
    ['the payment order of docs/decorators.md', () => decorate().withRetry(retry).withCircuitBreaker(breaker).withTimeLimiter(timeLimiter)],
    [
      'retry outside a bulkhead and a rate limiter',
      () => decorate().withRetry(retry).withBulkhead(bulkhead).withCircuitBreaker(breaker).withRateLimiter(limiter).withTimeLimiter(timeLimiter),
    ],
    [
      "Resilience4j's Spring aspect order",
      () => decorate().withRetry(retry).withCircuitBreaker(breaker).withRateLimiter(limiter).withTimeLimiter(timeLimiter).withBulkhead(bulkhead),
    ],
    [
      'a catch-all fallback outermost',
      () =>
        decorate()
          .withFallback(() => 0)
          .withRetry(retry)
          .withCircuitBreaker(breaker)
          .withTimeLimiter(timeLimiter),
    ],
    [
      'a fallback with `on` inside the breaker and the retry',
      () =>
        decorate()
          .withRetry(retry)
          .withCircuitBreaker(breaker)
          .withFallback(() => 0, { on: [TimeoutError] }),
    ],
    [
      'a fallback with a predicate inside the breaker',
      () =>
        decorate()
          .withCircuitBreaker(breaker)
          .withFallback(() => 0, { on: () => false }),
    ],
    ['a bulkhead inside the breaker, a time limiter inside both', () => decorate().withCircuitBreaker(breaker).withBulkhead(pool).withTimeLimiter(timeLimiter)],
    ['a time limiter outside a retry with no breaker', () => decorate().withTimeLimiter(timeLimiter).withRetry(retry)],
    [
      'a custom kind anywhere',
      () =>
        decorate()
          .with(recorder('hedge', 'h', []))
          .withRetry(retry)
          .with(recorder('hedge', 'h2', []))
          .withCircuitBreaker(breaker),
    ],
    ['a bulkhead inside the retry', () => decorate().withRetry(retry).withBulkhead(bulkhead)],
    [
      'every kind in the order of warnings.ts',
      () =>
        decorate()
          .withFallback(() => 0)
          .withThrottle(throttle)
          .withRetry(retry)
          .withBulkhead(bulkhead)
          .withAdaptiveLimiter(adaptive, { partition: 'critical' })
          .withCircuitBreaker(breaker)
          .withRateLimiter(limiter)
          .withTimeLimiter(timeLimiter),
    ],
    [
      'an adaptive limiter and a throttle beside the bulkhead, the breaker and the rate limiter, either way round',
      () => decorate().withCircuitBreaker(breaker).withAdaptiveLimiter(adaptive).withBulkhead(pool).withRateLimiter(limiter).withAdaptiveLimiter(adaptive),
    ],
    [
      'a fallback with `on` inside the adaptive limiter and the throttle',
      () =>
        decorate()
          .withThrottle(throttle)
          .withAdaptiveLimiter(adaptive)
          .withFallback(() => 0, { on: [TimeoutError] }),
    ],
  ])('none for %s', (_name, build) => {
    expect(build().warnings).toEqual([]);
  });

  it('a custom policy of kind fallback is not assumed to handle every error', () => {
    const custom: Policy = recorder('fallback', 'mine', []);
    expect(codes(decorate().withCircuitBreaker(breaker).with(custom))).toEqual([]);
  });

  it('are computed once, when the pipeline is built', () => {
    const p = decorate().withTimeLimiter(timeLimiter).withCircuitBreaker(breaker);
    expect(p.warnings).toBe(p.warnings);
    expect(Object.isFrozen(p.warnings)).toBe(true);
  });
});
