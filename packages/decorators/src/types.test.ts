// Type-level tests: run by vitest twice, as runtime tests and under tsc in its typecheck mode (see
// vitest.workspace.ts: a wrong expectTypeOf or an unused @ts-expect-error fails the run), and by `pnpm typecheck`.
import { AdaptiveLimiter, AdaptiveThrottle } from '@breakwater/adaptive';
import { FaultInjection, LatencyInjection } from '@breakwater/chaos';
import { Hedge, Retry } from '@breakwater/retry';
import { toContext, type CallContext, type ExecuteOptions, type Policy, type PolicyFn } from '@breakwater/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { decorate, Fallback, type AdaptiveLimiterLike, type Pipeline, type WithAdaptiveLimiterOptions } from './index.js';
import { fakeRetry, recorder } from '../test/test-support.js';

interface PaymentRequest {
  readonly orderId: string;
  readonly amount: number;
}
interface PaymentResult {
  readonly status: 'PAID' | 'DECLINED';
}

/** A class shaped like the real policy packages: `readonly kind = '…'` keeps the literal type. */
class FakeBreaker implements Policy {
  readonly kind = 'circuitBreaker';
  constructor(readonly name: string) {}
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T> {
    return Promise.resolve(fn(toContext(options)));
  }
}
class LooseKind implements Policy {
  kind: string = 'circuitBreaker';
  constructor(readonly name: string) {}
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T> {
    return Promise.resolve(fn(toContext(options)));
  }
}
class TypedLimiter implements Policy {
  readonly kind = 'rateLimiter';
  constructor(readonly name: string) {}
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T> {
    return Promise.resolve(fn(toContext(options)));
  }
  withPermits(permits: number): { execute: Policy['execute']; permits: number } {
    return { execute: (fn, o) => this.execute(fn, o), permits };
  }
}

describe('types', () => {
  const pay = decorate().withRetry(fakeRetry('pg', 1)).withCircuitBreaker(new FakeBreaker('pg'));

  it('wrap keeps the parameters after the context', async () => {
    const requestPayment = pay.wrap((ctx, req: PaymentRequest): Promise<PaymentResult> => {
      expectTypeOf(ctx).toEqualTypeOf<CallContext>();
      return Promise.resolve({ status: req.amount > 0 ? 'PAID' : 'DECLINED' });
    });
    expectTypeOf(requestPayment).toEqualTypeOf<(req: PaymentRequest) => Promise<PaymentResult>>();
    expectTypeOf(pay.wrap(() => 1)).toEqualTypeOf<() => Promise<number>>();
    expectTypeOf(pay.wrap((_ctx, a: string, b?: number) => `${a}${b ?? ''}`)).toEqualTypeOf<(a: string, b?: number) => Promise<string>>();
    expectTypeOf(pay.wrap((_ctx, ...ids: number[]) => ids.length)).toEqualTypeOf<(...ids: number[]) => Promise<number>>();
    await expect(requestPayment({ orderId: 'o1', amount: 5 })).resolves.toEqual({ status: 'PAID' });
    // @ts-expect-error the wrapped function takes a PaymentRequest
    void requestPayment('o1').catch(() => {});
  });

  it('execute resolves to what fn returns', () => {
    expectTypeOf(pay.execute(() => 1)).toEqualTypeOf<Promise<number>>();
    expectTypeOf(pay.execute(async () => 'x')).toEqualTypeOf<Promise<string>>();
  });

  it('a fallback adds its values to the result type', () => {
    const withZero = decorate()
      .withFallback(() => 0 as const)
      .withRetry(fakeRetry('pg', 1));
    expectTypeOf(withZero).toEqualTypeOf<Pipeline<0>>();
    expectTypeOf(withZero.wrap((_ctx, id: string) => id)).toEqualTypeOf<(id: string) => Promise<string | 0>>();
    expectTypeOf(withZero.execute(() => true)).toEqualTypeOf<Promise<boolean | 0>>();
    const two = withZero.with(new Fallback('null', async () => null));
    expectTypeOf(two.execute(() => 'x')).toEqualTypeOf<Promise<string | 0 | null>>();
    // a handler may annotate the arguments of the function it stands in for
    decorate().withFallback((_error, req: PaymentRequest) => ({ status: 'DECLINED', orderId: req.orderId }) as const);
  });

  it('with(pipeline) keeps the fallback types of both', () => {
    const inner = decorate().withFallback(() => 'cached' as const);
    expectTypeOf(
      decorate()
        .withFallback(() => -1 as const)
        .with(inner),
    ).toEqualTypeOf<Pipeline<-1 | 'cached'>>();
  });

  it('a pipeline without fallback is a Policy', () => {
    expectTypeOf(pay).toExtend<Policy>();
    expectTypeOf(decorate().withFallback(() => 1)).not.toExtend<Policy>();
  });

  it('the with-methods take only their kind, structurally', () => {
    const retry = fakeRetry('pg', 1);
    expect(() =>
      // @ts-expect-error a retry is not a circuit breaker
      decorate().withCircuitBreaker(retry),
    ).toThrow(TypeError);
    // @ts-expect-error a class whose kind is typed `string` could be anything
    decorate().withCircuitBreaker(new LooseKind('pg'));
    // @ts-expect-error a breaker is not a bulkhead
    expect(() => decorate().withBulkhead(new FakeBreaker('pg'))).toThrow(TypeError);
    decorate().withBulkhead(recorder('poolBulkhead', 'cpu', []));
    decorate().withRateLimiter(new TypedLimiter('api'), 3);
  });

  it('the adaptive layers take the real AdaptiveLimiter (and its partition views) and AdaptiveThrottle, and nothing else', () => {
    const limiter = new AdaptiveLimiter('pg', { partitions: { critical: 0.7, batch: 0.3 } });
    const throttle = new AdaptiveThrottle('search');
    expectTypeOf(limiter).toExtend<AdaptiveLimiterLike>();
    expectTypeOf(decorate().withAdaptiveLimiter(limiter, { partition: 'critical' })).toEqualTypeOf<Pipeline>();
    decorate().withAdaptiveLimiter(limiter.inPartition('batch'));
    decorate().withThrottle(throttle).withAdaptiveLimiter(limiter);
    expectTypeOf<WithAdaptiveLimiterOptions>().toEqualTypeOf<{ readonly partition?: string | undefined }>();
    expect(() =>
      // @ts-expect-error a throttle is not an adaptive limiter
      decorate().withAdaptiveLimiter(throttle),
    ).toThrow(TypeError);
    expect(() =>
      // @ts-expect-error an adaptive limiter is not a throttle
      decorate().withThrottle(limiter),
    ).toThrow(TypeError);
    // @ts-expect-error a partition is a string
    expect(() => decorate().withAdaptiveLimiter(limiter, { partition: 1 })).toThrow(TypeError);
    // @ts-expect-error the only option is partition
    expect(() => decorate().withAdaptiveLimiter(limiter, { lane: 'batch' })).toThrow(TypeError);
    // @ts-expect-error an adaptive limiter is not a bulkhead, whatever it has in common with one
    expect(() => decorate().withBulkhead(limiter)).toThrow(TypeError);
  });

  it('withHedge takes a Hedge and withChaos any chaos strategy, and nothing else', () => {
    const hedge = new Hedge('search');
    const faults = new FaultInjection('pg', { fault: new Error('injected') });
    const latency = new LatencyInjection('pg', { latency: '1s' });
    expectTypeOf(decorate().withHedge(hedge).withChaos(faults).withChaos(latency)).toEqualTypeOf<Pipeline>();
    expect(() =>
      // @ts-expect-error a retry is not a hedge, though both live in @breakwater/retry
      decorate().withHedge(new Retry('pg')),
    ).toThrow(TypeError);
    expect(() =>
      // @ts-expect-error a hedge is not a retry
      decorate().withRetry(hedge),
    ).toThrow(TypeError);
    expect(() =>
      // @ts-expect-error a hedge is not chaos
      decorate().withChaos(hedge),
    ).toThrow(TypeError);
  });
});
