import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { CallNotPermittedError, type Policy } from '@breakwater/core';
import { decorate } from '@breakwater/decorators';
import { Retry } from '@breakwater/retry';
import { context, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { traceResilience } from './index.js';
import { expectNoLeakedTimers, newClock } from '../test/test-support.js';
import { events, requestSpan, spanNamed, tracing } from '../test/tracing-support.js';

let otel: ReturnType<typeof tracing>;
beforeAll(() => {
  otel = tracing();
});
afterAll(async () => {
  await otel.stop();
});
afterEach(expectNoLeakedTimers);

const refusal = { 'breakwater.policy': 'circuitBreaker', 'breakwater.name': 'pg', 'breakwater.state': 'OPEN' };

/** A user's own policy of kind 'retry' (a real one to the pipeline), counting who listens to it. */
function listenedRetry(): Policy & { readonly kind: 'retry'; on(type: string, l: (e: never) => void): () => void; readonly listening: string[] } {
  const listening: string[] = [];
  return {
    name: 'mine',
    kind: 'retry',
    listening,
    execute: (fn) => Promise.resolve().then(() => fn({ signal: new AbortController().signal, attempt: 1 })),
    on(type) {
      listening.push(type);
      return () => listening.splice(listening.indexOf(type), 1);
    },
  };
}

describe('traceResilience: spans, switching off, sharing (contract: docs/observability.md)', () => {
  it('a call with no active span gets a span of its own, named after the pipeline; a rejection sets its status', async () => {
    const clock = newClock();
    const breaker = CircuitBreaker.of('pg', { clock });
    const pay = traceResilience(decorate('pay').withCircuitBreaker(breaker), { tracer: otel.tracer });
    expect(await pay.execute(() => 'paid')).toBe('paid');
    breaker.transitionToOpenState();
    await expect(pay.execute(() => 'never')).rejects.toBeInstanceOf(CallNotPermittedError);
    const [ok, refused] = otel.spans().filter((s) => s.name === 'pay');
    expect([ok!.attributes, ok!.status, events(ok!)]).toEqual([
      { 'breakwater.policy': 'pipeline', 'breakwater.name': 'pay' },
      { code: SpanStatusCode.UNSET },
      [],
    ]);
    expect([refused!.attributes, refused!.status.code, events(refused!)]).toEqual([
      { 'breakwater.policy': 'pipeline', 'breakwater.name': 'pay', 'error.type': 'CallNotPermittedError' },
      SpanStatusCode.ERROR,
      [['notPermitted', refusal]],
    ]);
    expect(refused!.status.message).toMatch(/^CircuitBreaker 'pg' is OPEN/);
    pay.close();
  });

  it('wrap: each call of the wrapped function is traced, its arguments kept', async () => {
    const breaker = CircuitBreaker.of('pg', { clock: newClock() });
    const pay = traceResilience(decorate('wrapped').withCircuitBreaker(breaker), { tracer: otel.tracer });
    const double = pay.wrap((_ctx, n: number) => n * 2);
    expect(await double(21)).toBe(42);
    breaker.transitionToOpenState();
    await expect(double(1)).rejects.toBeInstanceOf(CallNotPermittedError);
    const spans = otel.spans().filter((s) => s.name === 'wrapped');
    expect(spans.map(events)).toEqual([[], [['notPermitted', refusal]]]);
    pay.close();
  });

  it('without a tracer nothing is subscribed, no span is started, and execute is the pipeline’s own', async () => {
    const mine = listenedRetry();
    const pipeline = decorate('plain').with(mine);
    const plain = traceResilience(pipeline, { tracer: undefined });
    expect(mine.listening).toEqual([]);
    expect([plain.pipeline, plain.name, plain.kind]).toEqual([pipeline, 'plain', 'pipeline']);
    expect(await plain.execute(() => 'ok')).toBe('ok');
    expect(traceResilience(pipeline).pipeline).toBe(pipeline);
    expect(otel.spans().filter((s) => s.name === 'plain')).toEqual([]);
    const traced = traceResilience(pipeline, { tracer: otel.tracer });
    expect(mine.listening).toEqual(['retry']);
    traced.close();
    traced.close();
    expect(mine.listening).toEqual([]);
  });

  it('a component shared by two traced pipelines is listened to once: one event per decision; close leaves the other traced', async () => {
    const breaker = CircuitBreaker.of('pg', { clock: newClock() });
    const retry = new Retry('r', { maxAttempts: 1, clock: newClock() });
    const one = traceResilience(decorate('one').withCircuitBreaker(breaker), { tracer: otel.tracer });
    const two = traceResilience(decorate('two').withRetry(retry).withCircuitBreaker(breaker), { tracer: otel.tracer });
    breaker.transitionToOpenState();
    const run = async (name: string) => {
      const { span, ctx } = requestSpan(otel.tracer, name);
      expect(await context.with(ctx, () => one.execute(() => 'never').catch((e: unknown) => e))).toBeInstanceOf(CallNotPermittedError);
      span.end();
      return events(spanNamed(otel.spans(), name));
    };
    expect(await run('shared')).toEqual([['notPermitted', refusal]]);
    one.close();
    expect(await run('other-still-traced')).toEqual([['notPermitted', refusal]]);
    two.close();
    expect(await run('none')).toEqual([]);
  });

  it("keeps the pipeline's types: a fallback's values in execute's and wrap's results, wrap's parameters", async () => {
    const breaker = CircuitBreaker.of('pg', { clock: newClock() });
    const quote = traceResilience(
      decorate('quote')
        .withFallback(() => 'cached' as const)
        .withCircuitBreaker(breaker),
      { tracer: otel.tracer },
    );
    breaker.transitionToOpenState();
    const price = quote.execute(() => 42);
    expectTypeOf(price).toEqualTypeOf<Promise<number | 'cached'>>();
    expect(await price).toBe('cached');
    const bySymbol = quote.wrap((_ctx, symbol: string) => symbol.length);
    expectTypeOf(bySymbol).toEqualTypeOf<(symbol: string) => Promise<number | 'cached'>>();
    expect(await bySymbol('ACME')).toBe('cached');
    expect(
      otel
        .spans()
        .filter((s) => s.name === 'quote')
        .map(events),
    ).toEqual([[['notPermitted', refusal]], [['notPermitted', refusal]]]);
    quote.close();
  });

  it('a single policy is traced as a pipeline of one', async () => {
    const breaker = CircuitBreaker.of('pg', { clock: newClock() });
    const traced = traceResilience(breaker, { tracer: otel.tracer });
    breaker.transitionToOpenState();
    await expect(traced.execute(() => 'never')).rejects.toBeInstanceOf(CallNotPermittedError);
    expect(events(spanNamed(otel.spans(), 'pg'))).toEqual([['notPermitted', refusal]]);
    expect(traced.wrap).toBeUndefined();
    traced.close();
  });

  it('an active span that does not record (not sampled) gets nothing, and the call no span of its own', async () => {
    const breaker = CircuitBreaker.of('pg', { clock: newClock() });
    const pay = traceResilience(decorate('unsampled').withCircuitBreaker(breaker), { tracer: otel.tracer });
    breaker.transitionToOpenState();
    const unsampled = trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.NONE });
    await context.with(trace.setSpan(context.active(), unsampled), () => expect(pay.execute(() => 'never')).rejects.toBeInstanceOf(CallNotPermittedError));
    expect(otel.spans().filter((s) => s.name === 'unsampled')).toEqual([]);
    pay.close();
  });

  it('bad input: a clear TypeError at once', () => {
    const pipeline = decorate('p');
    expect(() => traceResilience({} as never, { tracer: otel.tracer })).toThrow(
      new TypeError('traceResilience: pipeline must be a Policy (a Pipeline of decorate(), or one policy), got an object'),
    );
    expect(() => traceResilience(pipeline, { tracr: otel.tracer } as never)).toThrow(
      new TypeError("traceResilience: unknown option 'tracr' (did you mean 'tracer'?) (known options: tracer)"),
    );
    expect(() => traceResilience(pipeline, { tracer: 'otel' } as never)).toThrow(
      new TypeError("traceResilience: option tracer must be an OpenTelemetry Tracer (trace.getTracer(name)) or undefined, got 'otel'"),
    );
    expect(() => traceResilience(pipeline, 'tracer' as never)).toThrow(
      new TypeError("traceResilience: options must be a plain object ({ tracer }), got 'tracer'"),
    );
  });
});
