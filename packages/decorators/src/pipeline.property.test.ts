import { toContext, TimeoutError, type Policy, type PolicyFn } from '@breakwater/core';
import { invoke } from '@breakwater/core/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decorate, Fallback, type Pipeline, type PipelineWarningCode } from './index.js';

type Kind =
  | 'retry'
  | 'circuitBreaker'
  | 'timeLimiter'
  | 'bulkhead'
  | 'poolBulkhead'
  | 'rateLimiter'
  | 'adaptiveLimiter'
  | 'throttle'
  | 'hedge'
  | 'chaos'
  | 'fallback'
  | 'fallbackOn';
const KINDS: readonly Kind[] = [
  'retry',
  'circuitBreaker',
  'timeLimiter',
  'bulkhead',
  'poolBulkhead',
  'rateLimiter',
  'adaptiveLimiter',
  'throttle',
  'hedge',
  'chaos',
  'fallback',
  'fallbackOn',
];

/** Adds `policy` through the with-method of its kind (a fallback kind adds a real Fallback instead). */
function add(p: Pipeline<unknown>, kind: Kind, policy: Policy, i: number): Pipeline<unknown> {
  switch (kind) {
    case 'retry':
      return p.withRetry(policy as Policy & { kind: 'retry' });
    case 'circuitBreaker':
      return p.withCircuitBreaker(policy as Policy & { kind: 'circuitBreaker' });
    case 'timeLimiter':
      return p.withTimeLimiter(policy as Policy & { kind: 'timeLimiter' });
    case 'bulkhead':
    case 'poolBulkhead':
      return p.withBulkhead(policy as Policy & { kind: 'bulkhead' });
    case 'rateLimiter':
      return p.withRateLimiter(policy as Policy & { kind: 'rateLimiter' });
    case 'adaptiveLimiter':
      return p.withAdaptiveLimiter(policy as Policy & { kind: 'adaptiveLimiter' });
    case 'throttle':
      return p.withThrottle(policy as Policy & { kind: 'throttle' });
    case 'hedge':
      return p.withHedge(policy as Policy & { kind: 'hedge' });
    case 'chaos':
      return p.withChaos(policy as Policy & { kind: 'chaos' });
    case 'fallback':
      return p.with(new Fallback(`f${i}`, () => 'fallback'));
    case 'fallbackOn':
      return p.withFallback(() => 'fallback', { on: [TimeoutError], name: `f${i}` });
    default:
      return p.with(policy);
  }
}

describe('nesting, for any list of layers', () => {
  it('each call enters the layers in the order written and leaves them in reverse, even with concurrent calls interleaved', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...KINDS), { maxLength: 8 }), fc.integer({ min: 1, max: 4 }), fc.scheduler(), async (kinds, calls, s) => {
        const log: Array<readonly [number, string]> = [];
        const callOf = new WeakMap<AbortSignal, number>();
        const recording = (kind: string, i: number): Policy => ({
          name: `l${i}`,
          kind,
          async execute<T>(fn: PolicyFn<T>, options?: Parameters<Policy['execute']>[1]): Promise<T> {
            const ctx = toContext(options);
            const call = callOf.get(ctx.signal)!;
            log.push([call, `>${i}`]);
            await s.schedule(Promise.resolve(), `enter ${i} of call ${call}`);
            try {
              return await invoke(fn, ctx);
            } finally {
              log.push([call, `<${i}`]);
            }
          },
        });
        let pipeline: Pipeline<unknown> = decorate();
        const recorded: number[] = [];
        kinds.forEach((kind, i) => {
          pipeline = add(pipeline, kind, recording(kind, i), i);
          if (kind !== 'fallback' && kind !== 'fallbackOn') recorded.push(i);
        });
        const results = Array.from({ length: calls }, (_, call) => {
          const controller = new AbortController();
          callOf.set(controller.signal, call);
          return pipeline.execute(
            async (ctx) => {
              log.push([callOf.get(ctx.signal)!, 'fn']);
              await s.schedule(Promise.resolve(), `fn of call ${call}`);
              return call;
            },
            { signal: controller.signal },
          );
        });
        await s.waitAll();
        await expect(Promise.all(results)).resolves.toEqual(Array.from({ length: calls }, (_, c) => c));
        const expected = [...recorded.map((i) => `>${i}`), 'fn', ...[...recorded].reverse().map((i) => `<${i}`)];
        for (let call = 0; call < calls; call++) {
          expect(log.filter(([c]) => c === call).map(([, e]) => e)).toEqual(expected);
        }
        expect(pipeline.describe().split(' → ')).toHaveLength(kinds.length + 1);
      }),
      { numRuns: 150 },
    );
  });
});

describe('warnings, for any list of layers', () => {
  // The model: which kinds must come before (outside) which, and the code of each broken rule.
  const MUST_PRECEDE: ReadonlyArray<readonly [outer: Kind, inner: Kind, code: PipelineWarningCode]> = [
    ['circuitBreaker', 'timeLimiter', 'TIME_LIMITER_OUTSIDE_CIRCUIT_BREAKER'],
    ['retry', 'circuitBreaker', 'CIRCUIT_BREAKER_OUTSIDE_RETRY'],
    ['retry', 'bulkhead', 'RETRY_INSIDE_BULKHEAD'],
    ['retry', 'poolBulkhead', 'RETRY_INSIDE_BULKHEAD'],
    ['retry', 'rateLimiter', 'RETRY_INSIDE_RATE_LIMITER'],
    ['circuitBreaker', 'rateLimiter', 'RATE_LIMITER_OUTSIDE_CIRCUIT_BREAKER'],
    ['fallback', 'circuitBreaker', 'FALLBACK_INSIDE_CIRCUIT_BREAKER'],
    ['fallback', 'retry', 'FALLBACK_INSIDE_RETRY'],
    ['adaptiveLimiter', 'timeLimiter', 'TIME_LIMITER_OUTSIDE_ADAPTIVE_LIMITER'],
    ['retry', 'adaptiveLimiter', 'RETRY_INSIDE_ADAPTIVE_LIMITER'],
    ['fallback', 'adaptiveLimiter', 'FALLBACK_INSIDE_ADAPTIVE_LIMITER'],
    ['throttle', 'retry', 'THROTTLE_INSIDE_RETRY'],
    ['throttle', 'circuitBreaker', 'THROTTLE_INSIDE_CIRCUIT_BREAKER'],
    ['throttle', 'timeLimiter', 'TIME_LIMITER_OUTSIDE_THROTTLE'],
    ['fallback', 'throttle', 'FALLBACK_INSIDE_THROTTLE'],
    ['hedge', 'circuitBreaker', 'CIRCUIT_BREAKER_OUTSIDE_HEDGE'],
    ['hedge', 'bulkhead', 'HEDGE_INSIDE_BULKHEAD'],
    ['hedge', 'poolBulkhead', 'HEDGE_INSIDE_BULKHEAD'],
    ['hedge', 'rateLimiter', 'HEDGE_INSIDE_RATE_LIMITER'],
    ['hedge', 'adaptiveLimiter', 'HEDGE_INSIDE_ADAPTIVE_LIMITER'],
    ['fallback', 'hedge', 'FALLBACK_INSIDE_HEDGE'],
    // Chaos is innermost: every other kind must come before it.
    ...KINDS.filter((k) => k !== 'chaos').map((k) => [k, 'chaos', 'CHAOS_NOT_INNERMOST'] as const),
  ];
  const build = (kinds: readonly Kind[]): Pipeline<unknown> =>
    kinds.reduce<Pipeline<unknown>>(
      (p, kind, i) => add(p, kind, { name: `l${i}`, kind, execute: (fn, o) => invoke(fn, toContext(o)) } as Policy, i),
      decorate(),
    );
  const RANK: Readonly<Record<Kind, number>> = {
    fallback: 0,
    throttle: 0.5,
    retry: 1,
    bulkhead: 2,
    poolBulkhead: 2,
    adaptiveLimiter: 2.5,
    circuitBreaker: 3,
    rateLimiter: 3.5,
    timeLimiter: 4,
    hedge: 1.5,
    chaos: 5,
    fallbackOn: 3,
  };

  it('one warning for each pair written against a must-precede rule', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...KINDS), { maxLength: 10 }), (kinds) => {
        const expected: PipelineWarningCode[] = [];
        for (let o = 0; o < kinds.length; o++) {
          for (let i = o + 1; i < kinds.length; i++) {
            for (const [mustBeOuter, mustBeInner, code] of MUST_PRECEDE) {
              if (kinds[i] === mustBeOuter && kinds[o] === mustBeInner) expected.push(code);
            }
          }
        }
        expect(
          build(kinds)
            .warnings.map((w) => w.code)
            .sort(),
        ).toEqual(expected.sort());
      }),
      { numRuns: 300 },
    );
  });

  it('the recommended order (fallback → throttle → retry → hedge → bulkhead → adaptive limiter → breaker → rate limiter → time limiter → chaos) has none', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...KINDS), { maxLength: 10 }), (kinds) => {
        const sorted = [...kinds].sort((a, b) => RANK[a] - RANK[b]);
        expect(build(sorted).warnings).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
