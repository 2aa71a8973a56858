import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { CallNotPermittedError } from '@breakwater/core';
import { decorate } from '@breakwater/decorators';
import { Hedge, Retry, RetryBudget } from '@breakwater/retry';
import { track } from '@breakwater/test-support';
import { context } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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

describe('traceResilience: events of the active span (contract: docs/observability.md)', () => {
  it('a retried call: its span has exactly one retry event per failed attempt, with the attempt and its wait', async () => {
    const clock = newClock();
    const retry = new Retry('pg', { maxAttempts: 3, waitDuration: 500, clock });
    const pay = traceResilience(decorate('pay').withRetry(retry), { tracer: otel.tracer });
    const { span, ctx } = requestSpan(otel.tracer, 'retried');
    let calls = 0;
    const call = track(context.with(ctx, () => pay.execute(() => (++calls < 3 ? Promise.reject(new TypeError('reset')) : 'paid'))));
    // The clock is driven from outside the span: the events follow the call, not the driver.
    await clock.advance(500);
    await clock.advance(500);
    expect(call.value).toBe('paid');
    span.end();
    expect(events(spanNamed(otel.spans(), 'retried'))).toEqual([
      ['retry', { 'breakwater.policy': 'retry', 'breakwater.name': 'pg', 'breakwater.attempt': 1, 'breakwater.wait_ms': 500, 'error.type': 'TypeError' }],
      ['retry', { 'breakwater.policy': 'retry', 'breakwater.name': 'pg', 'breakwater.attempt': 2, 'breakwater.wait_ms': 500, 'error.type': 'TypeError' }],
    ]);
    pay.close();
  });

  it('two retried calls at once: each span has its own attempts, whoever drives the clock', async () => {
    const clock = newClock();
    const retry = new Retry('pg', { maxAttempts: 3, waitDuration: 100, clock });
    const pay = traceResilience(decorate('pay').withRetry(retry), { tracer: otel.tracer });
    const a = requestSpan(otel.tracer, 'a');
    const b = requestSpan(otel.tracer, 'b');
    const failures = { a: 0, b: 1 }; // a fails twice, b once
    const run = (name: 'a' | 'b') => () => (failures[name]++ < 2 ? Promise.reject(new RangeError(name)) : name);
    const calls = [track(context.with(a.ctx, () => pay.execute(run('a')))), track(context.with(b.ctx, () => pay.execute(run('b'))))];
    await clock.advance(100);
    await clock.advance(100);
    expect(calls.map((c) => c.value)).toEqual(['a', 'b']);
    a.span.end();
    b.span.end();
    const retried = (attempt: number) => [
      'retry',
      { 'breakwater.policy': 'retry', 'breakwater.name': 'pg', 'breakwater.attempt': attempt, 'breakwater.wait_ms': 100, 'error.type': 'RangeError' },
    ];
    expect(events(spanNamed(otel.spans(), 'a'))).toEqual([retried(1), retried(2)]);
    expect(events(spanNamed(otel.spans(), 'b'))).toEqual([retried(1)]);
    pay.close();
  });

  it('a call refused by an open breaker: notPermitted, with the state', async () => {
    const clock = newClock();
    const breaker = CircuitBreaker.of('pg', { clock });
    const pay = traceResilience(decorate('pay').withCircuitBreaker(breaker), { tracer: otel.tracer });
    breaker.transitionToOpenState();
    const { span, ctx } = requestSpan(otel.tracer, 'refused');
    await expect(context.with(ctx, () => pay.execute(() => 'never'))).rejects.toBeInstanceOf(CallNotPermittedError);
    span.end();
    expect(events(spanNamed(otel.spans(), 'refused'))).toEqual([
      ['notPermitted', { 'breakwater.policy': 'circuitBreaker', 'breakwater.name': 'pg', 'breakwater.state': 'OPEN' }],
    ]);
    pay.close();
  });

  it('a retry around a breaker: each attempt refused is a notPermitted, each retry its wait', async () => {
    const clock = newClock();
    const breaker = CircuitBreaker.of('pg', { clock });
    const retry = new Retry('pg', { maxAttempts: 2, waitDuration: 100, retryCallNotPermitted: true, clock });
    const pay = traceResilience(decorate('pay').withRetry(retry).withCircuitBreaker(breaker), { tracer: otel.tracer });
    breaker.transitionToOpenState();
    const { span, ctx } = requestSpan(otel.tracer, 'both');
    const call = track(context.with(ctx, () => pay.execute(() => 'never')));
    await clock.advance(100);
    expect(call.error).toBeInstanceOf(CallNotPermittedError);
    span.end();
    const refusal = ['notPermitted', { 'breakwater.policy': 'circuitBreaker', 'breakwater.name': 'pg', 'breakwater.state': 'OPEN' }];
    expect(events(spanNamed(otel.spans(), 'both'))).toEqual([
      refusal,
      [
        'retry',
        { 'breakwater.policy': 'retry', 'breakwater.name': 'pg', 'breakwater.attempt': 1, 'breakwater.wait_ms': 100, 'error.type': 'CallNotPermittedError' },
      ],
      refusal,
    ]);
    pay.close();
  });

  it('a hedge after a failure, and the next one refused by the budget: hedge and hedgeRefused with their attempts', async () => {
    const clock = newClock();
    const budget = new RetryBudget({ ratio: 0, minRetriesPerSecond: 1, ttl: '1s', clock });
    const hedge = new Hedge('search', { clock, delay: -1, maxHedgedAttempts: 2, budget });
    const search = traceResilience(decorate('search').withHedge(hedge), { tracer: otel.tracer });
    const { span, ctx } = requestSpan(otel.tracer, 'hedged');
    let attempt = 0;
    const call = track(context.with(ctx, () => search.execute(() => Promise.reject(new RangeError(`attempt ${++attempt}`)))));
    await clock.advance(0);
    expect((call.error as Error).message).toBe('attempt 1');
    span.end();
    expect(events(spanNamed(otel.spans(), 'hedged'))).toEqual([
      [
        'hedge',
        { 'breakwater.policy': 'hedge', 'breakwater.name': 'search', 'breakwater.attempt': 2, 'breakwater.delay_ms': 0, 'breakwater.reason': 'failure' },
      ],
      ['hedgeRefused', { 'breakwater.policy': 'hedge', 'breakwater.name': 'search', 'breakwater.attempt': 3 }],
    ]);
    search.close();
    await clock.advance(1000); // the budget's window
  });

  it('two hedged calls at once, each hedged by its delay on the hedge’s one timer: each span has its own hedge', async () => {
    const clock = newClock();
    const hedge = new Hedge('search', { clock, delay: 100 });
    const search = traceResilience(decorate('search').withHedge(hedge), { tracer: otel.tracer });
    const a = requestSpan(otel.tracer, 'hedged a');
    const b = requestSpan(otel.tracer, 'hedged b');
    const slowThenFast = (name: string) => (ctx: { attempt: number }) =>
      new Promise<string>((resolve) => clock.setTimeout(() => resolve(`${name} ${ctx.attempt}`), ctx.attempt === 1 ? 1000 : 10));
    const first = track(context.with(a.ctx, () => search.execute(slowThenFast('a'))));
    await clock.advance(40); // b's delay runs on the timer a's call set
    const second = track(context.with(b.ctx, () => search.execute(slowThenFast('b'))));
    await clock.advance(1000);
    expect([first.value, second.value]).toEqual(['a 2', 'b 2']);
    a.span.end();
    b.span.end();
    const hedged = [
      'hedge',
      { 'breakwater.policy': 'hedge', 'breakwater.name': 'search', 'breakwater.attempt': 2, 'breakwater.delay_ms': 100, 'breakwater.reason': 'delay' },
    ];
    expect(events(spanNamed(otel.spans(), 'hedged a'))).toEqual([hedged]);
    expect(events(spanNamed(otel.spans(), 'hedged b'))).toEqual([hedged]);
    search.close();
  });
});
