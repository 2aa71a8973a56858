import { CircuitBreaker, CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import { decorate } from '@breakwater/decorators';
import { Retry } from '@breakwater/retry';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { RESILIENT_FETCH_OPTIONS, resilientFetch, type FetchFunction, type FetchPipeline, type OriginBreakers } from './index.js';

// Bad arguments are refused when resilientFetch is called, naming the option, the value and what it
// must be (contract: docs/conventions.md, docs/fetch.md).
describe('resilientFetch: its arguments', () => {
  const pipeline = decorate();

  it('the pipeline must be a Policy', () => {
    expect(() => resilientFetch(undefined as never)).toThrow(/^resilientFetch: pipeline must be a Policy .*got undefined$/);
    expect(() => resilientFetch({} as never)).toThrow(/pipeline must be a Policy .*got an object/);
    expect(() => resilientFetch((() => {}) as never)).toThrow(TypeError);
  });

  it('unknown options are refused, with a suggestion', () => {
    expect(() => resilientFetch(pipeline, { respectRetryAftr: true } as never)).toThrow(
      /^resilientFetch: unknown option 'respectRetryAftr' \(did you mean 'respectRetryAfter'\?\) \(known options: fetch, retryOn, retryNonIdempotent, respectRetryAfter, perOrigin\)$/,
    );
    expect(() => resilientFetch(pipeline, 'fast' as never)).toThrow(/config must be a plain object of options, got 'fast'/);
  });

  it('each option is checked', () => {
    expect(() => resilientFetch(pipeline, { fetch: 'fetch' as never })).toThrow(/^resilientFetch: fetch must be a function, got 'fetch'$/);
    expect(() => resilientFetch(pipeline, { retryOn: true as never })).toThrow(/retryOn must be a function, got true/);
    expect(() => resilientFetch(pipeline, { retryNonIdempotent: 'yes' as never })).toThrow(/retryNonIdempotent must be true or false, got 'yes'/);
    expect(() => resilientFetch(pipeline, { respectRetryAfter: 1 as never })).toThrow(/respectRetryAfter must be true or false, got 1/);
    expect(() => resilientFetch(pipeline, { perOrigin: new CircuitBreaker('x') as never })).toThrow(
      /perOrigin must be a CircuitBreakerRegistry \(an object with get\(name\)\), got a CircuitBreaker/,
    );
    expect(() => resilientFetch(pipeline, { retryOn: () => true, retryNonIdempotent: true })).toThrow(
      /^resilientFetch: give retryOn or retryNonIdempotent, not both$/,
    );
  });

  it('a URL the Request constructor refuses rejects the call (never a sync throw)', async () => {
    const f = resilientFetch(pipeline);
    let call: Promise<Response> | undefined;
    expect(() => {
      call = f('not a url');
    }).not.toThrow();
    await expect(call).rejects.toBeInstanceOf(TypeError);
  });

  it('types: a fetch comes back; a pipeline with a Response fallback, a Retry and a registry fit', () => {
    expectTypeOf(resilientFetch(pipeline)).toEqualTypeOf<FetchFunction>();
    expectTypeOf(resilientFetch(pipeline)).toExtend<typeof globalThis.fetch>();
    expectTypeOf(pipeline.withFallback(() => new Response('cached'))).toExtend<FetchPipeline>();
    expectTypeOf(new Retry('r')).toExtend<FetchPipeline>();
    expectTypeOf(new CircuitBreakerRegistry()).toExtend<OriginBreakers>();
    expect(RESILIENT_FETCH_OPTIONS).toEqual(['fetch', 'retryOn', 'retryNonIdempotent', 'respectRetryAfter', 'perOrigin']);
  });

  it('fetch: an injected fetch sends every attempt', async () => {
    const sent: string[] = [];
    const injected: FetchFunction = async (input, init) => {
      const request = input as Request;
      sent.push(`${request.method} ${request.url} ${init?.signal instanceof AbortSignal}`);
      return new Response(sent.length === 1 ? null : 'second', { status: sent.length === 1 ? 502 : 200 });
    };
    const f = resilientFetch(decorate().withRetry(new Retry('r', { waitDuration: 0 })), { fetch: injected });
    expect(await (await f('https://api.example.com/x')).text()).toBe('second');
    expect(sent).toEqual(['GET https://api.example.com/x true', 'GET https://api.example.com/x true']);
  });
});
