import { AdaptiveLimiter, AdaptiveThrottle } from '@breakwater/adaptive';
import { Bulkhead } from '@breakwater/bulkhead';
import { FaultInjection } from '@breakwater/chaos';
import { BulkheadFullError, RequestNotPermittedError, TimeoutError } from '@breakwater/core';
import { decorate } from '@breakwater/decorators';
import { RateLimiter } from '@breakwater/rate-limiter';
import { Retry } from '@breakwater/retry';
import { deferred, track } from '@breakwater/test-support';
import { TimeLimiter } from '@breakwater/time-limiter';
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

/** A function that settles only when its attempt is aborted (as a fetch given `ctx.signal` does). */
const untilAborted = (ctx: { readonly signal: AbortSignal }) =>
  new Promise<never>((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }));

describe('traceResilience: time-outs, waits and refusals (contract: docs/observability.md)', () => {
  it('time-outs on the real clock: each of two concurrent calls gets its own timeout event, on its own span', async () => {
    // The real clock is what is tested: a time limiter's timer is Node's, which carries the
    // call's context to the moment it fires. Bounded: 20 ms and 30 ms.
    const fast = new TimeLimiter('fast', { timeoutDuration: 20 });
    const slow = new TimeLimiter('slow', { timeoutDuration: 30 });
    const a = traceResilience(decorate('a').withTimeLimiter(fast), { tracer: otel.tracer });
    const b = traceResilience(decorate('b').withTimeLimiter(slow), { tracer: otel.tracer });
    const first = requestSpan(otel.tracer, 'first');
    const second = requestSpan(otel.tracer, 'second');
    const calls = [context.with(first.ctx, () => a.execute(untilAborted)), context.with(second.ctx, () => b.execute(untilAborted))];
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).constructor : o.status))).toEqual([TimeoutError, TimeoutError]);
    first.span.end();
    second.span.end();
    const spans = otel.spans();
    const [[name1, attrs1]] = events(spanNamed(spans, 'first')) as [[string, Record<string, unknown>]];
    const [[name2, attrs2]] = events(spanNamed(spans, 'second')) as [[string, Record<string, unknown>]];
    expect(events(spanNamed(spans, 'first'))).toHaveLength(1);
    expect(events(spanNamed(spans, 'second'))).toHaveLength(1);
    expect([name1, { ...attrs1, 'breakwater.elapsed_ms': 'real' }]).toEqual([
      'timeout',
      { 'breakwater.policy': 'timeLimiter', 'breakwater.name': 'fast', 'breakwater.timeout_ms': 20, 'breakwater.elapsed_ms': 'real' },
    ]);
    expect([name2, { ...attrs2, 'breakwater.elapsed_ms': 'real' }]).toEqual([
      'timeout',
      { 'breakwater.policy': 'timeLimiter', 'breakwater.name': 'slow', 'breakwater.timeout_ms': 30, 'breakwater.elapsed_ms': 'real' },
    ]);
    expect(attrs1['breakwater.elapsed_ms']).toBeGreaterThanOrEqual(20);
    expect(attrs2['breakwater.elapsed_ms']).toBeGreaterThanOrEqual(30);
    a.close();
    b.close();
  });

  it("a rate limiter's wait, when it ends, with its length, and its refusal; a permit given at once is no event", async () => {
    const clock = newClock();
    const limiter = new RateLimiter('api', { limitForPeriod: 1, limitRefreshPeriod: 1000, timeoutDuration: 1000, clock });
    const api = traceResilience(decorate('api').withRateLimiter(limiter), { tracer: otel.tracer });
    const { span, ctx } = requestSpan(otel.tracer, 'limited');
    // The wait ends on the waiter's own timer. Node's timers carry the call's context (the
    // time-out test above); a VirtualClock's fire in the context of whoever advances it: here,
    // the request's code, as a real timer would.
    await context.with(ctx, async () => {
      const calls = [api.execute(() => 1), api.execute(() => 2), api.execute(() => 3)].map(track);
      await clock.advance(1000);
      expect(calls.map((c) => c.value ?? (c.error as Error).constructor)).toEqual([1, 2, RequestNotPermittedError]);
    });
    span.end();
    expect(events(spanNamed(otel.spans(), 'limited'))).toEqual([
      ['notPermitted', { 'breakwater.policy': 'rateLimiter', 'breakwater.name': 'api', 'breakwater.permits': 1, 'breakwater.wait_ms': 2000 }],
      ['wait', { 'breakwater.policy': 'rateLimiter', 'breakwater.name': 'api', 'breakwater.wait_ms': 1000, 'breakwater.permits': 1 }],
    ]);
    api.close();
  });

  it("a bulkhead's refusal and an adaptive limiter's, with its limit and calls in flight", async () => {
    const clock = newClock();
    const bulkhead = new Bulkhead('db', { maxConcurrentCalls: 1, maxWaitDuration: 0, clock });
    const limiter = new AdaptiveLimiter('pg', { initialLimit: 1, minLimit: 1, maxLimit: 1, maxWaitDuration: 0, window: false, clock });
    const db = traceResilience(decorate('db').withBulkhead(bulkhead), { tracer: otel.tracer });
    const pg = traceResilience(decorate('pg').withAdaptiveLimiter(limiter), { tracer: otel.tracer });
    const held = deferred<string>();
    const running = [db.execute(() => held.promise), pg.execute(() => held.promise)]; // outside any span: no event, no span of its own for the test
    const { span, ctx } = requestSpan(otel.tracer, 'full');
    await context.with(ctx, async () => {
      await expect(db.execute(() => 'x')).rejects.toBeInstanceOf(BulkheadFullError);
      await expect(pg.execute(() => 'x')).rejects.toBeInstanceOf(RequestNotPermittedError);
    });
    span.end();
    held.resolve('done');
    expect(await Promise.all(running)).toEqual(['done', 'done']);
    expect(events(spanNamed(otel.spans(), 'full'))).toEqual([
      ['notPermitted', { 'breakwater.policy': 'bulkhead', 'breakwater.name': 'db' }],
      ['notPermitted', { 'breakwater.policy': 'adaptiveLimiter', 'breakwater.name': 'pg', 'breakwater.limit': 1, 'breakwater.in_flight': 1 }],
    ]);
    db.close();
    pg.close();
  });

  it("a throttle's refusal with its reject ratio, a partition's refusal, and chaos injections with their attempts inside a retry", async () => {
    const clock = newClock();
    const throttle = new AdaptiveThrottle('search', { random: () => 0, clock });
    const limiter = new AdaptiveLimiter('pg', {
      initialLimit: 1,
      minLimit: 1,
      maxLimit: 1,
      maxWaitDuration: 0,
      window: false,
      partitions: { critical: 1 },
      clock,
    });
    const faults = new FaultInjection('pg', { fault: new Error('injected'), enabled: true, rate: 1, clock });
    const retry = new Retry('pg', { maxAttempts: 2, waitDuration: 100, clock });
    const search = traceResilience(decorate('search').withThrottle(throttle), { tracer: otel.tracer });
    const pg = traceResilience(decorate('pg').withAdaptiveLimiter(limiter, { partition: 'critical' }), { tracer: otel.tracer });
    const chaos = traceResilience(decorate('chaos').withRetry(retry).withChaos(faults), { tracer: otel.tracer });
    // Two failures in three requests: the throttle refuses the next (its draw is 0).
    await search.execute(() => 'ok');
    for (let i = 0; i < 2; i++) await expect(search.execute(() => Promise.reject(new Error('503')))).rejects.toThrow('503');
    const held = deferred<string>();
    const running = pg.execute(() => held.promise);
    const { span, ctx } = requestSpan(otel.tracer, 'mixed');
    await context.with(ctx, async () => {
      await expect(search.execute(() => 'not sent')).rejects.toBeInstanceOf(RequestNotPermittedError);
      await expect(pg.execute(() => 'x')).rejects.toBeInstanceOf(RequestNotPermittedError);
      const injected = track(chaos.execute(() => 'never'));
      await clock.advance(100);
      expect((injected.error as Error).message).toBe('injected');
    });
    span.end();
    held.resolve('done');
    expect(await running).toBe('done');
    expect(events(spanNamed(otel.spans(), 'mixed'))).toEqual([
      ['notPermitted', { 'breakwater.policy': 'throttle', 'breakwater.name': 'search', 'breakwater.reject_ratio': 0.25 }],
      [
        'notPermitted',
        {
          'breakwater.policy': 'adaptiveLimiter',
          'breakwater.name': 'pg',
          'breakwater.limit': 1,
          'breakwater.in_flight': 1,
          'breakwater.partition': 'critical',
        },
      ],
      ['injected', { 'breakwater.policy': 'chaos', 'breakwater.name': 'pg', 'breakwater.attempt': 1, 'breakwater.strategy': 'fault' }],
      ['retry', { 'breakwater.policy': 'retry', 'breakwater.name': 'pg', 'breakwater.attempt': 1, 'breakwater.wait_ms': 100, 'error.type': 'Error' }],
      ['injected', { 'breakwater.policy': 'chaos', 'breakwater.name': 'pg', 'breakwater.attempt': 2, 'breakwater.strategy': 'fault' }],
    ]);
    for (const traced of [search, pg, chaos]) traced.close();
  });
});
