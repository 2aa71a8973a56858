import { AdaptiveLimiter } from '@breakwater/adaptive';
import { Bulkhead, PoolBulkhead } from '@breakwater/bulkhead';
import { decorate } from '@breakwater/decorators';
import { deferred, track } from '@breakwater/test-support';
import { context, trace } from '@opentelemetry/api';
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

/** The id of the span active now (what a call's own code sees), or `undefined`. */
const activeSpanId = (): string | undefined => trace.getActiveSpan()?.spanContext().spanId;

// Two calls, one slot: the second waits for the first's. The slot is handed over by the first
// call as it ends, in its async context; the waiter publishes `callPermitted` itself, in its own,
// so the wait lands on the waiting call's span, and the first's span gets nothing.
describe("traceResilience: a bulkhead's and an adaptive limiter's wait, on the waiting call's span (contract: docs/observability.md)", () => {
  for (const fairCallHandlingEnabled of [true, false]) {
    it(`a semaphore bulkhead (fair: ${fairCallHandlingEnabled}): the second call's wait, with its length; nothing on the first's`, async () => {
      const clock = newClock();
      const bulkhead = new Bulkhead('db', { maxConcurrentCalls: 1, maxWaitDuration: 1000, fairCallHandlingEnabled, clock });
      const db = traceResilience(decorate('db').withBulkhead(bulkhead), { tracer: otel.tracer });
      const first = requestSpan(otel.tracer, `holds the slot (fair: ${fairCallHandlingEnabled})`);
      const second = requestSpan(otel.tracer, `waits for it (fair: ${fairCallHandlingEnabled})`);
      const held = deferred<string>();
      const one = track(context.with(first.ctx, () => db.execute(() => held.promise)));
      let sawSpan: string | undefined;
      const two = track(
        context.with(second.ctx, () =>
          db.execute(() => {
            sawSpan = activeSpanId();
            return 'two';
          }),
        ),
      );
      await clock.advance(250);
      held.resolve('one'); // outside any span: the first call's end runs in its own context
      await clock.advance(0);
      expect([one.value, two.value]).toEqual(['one', 'two']);
      expect(sawSpan).toBe(second.span.spanContext().spanId);
      first.span.end();
      second.span.end();
      const spans = otel.spans();
      expect(events(spanNamed(spans, `holds the slot (fair: ${fairCallHandlingEnabled})`))).toEqual([]);
      expect(events(spanNamed(spans, `waits for it (fair: ${fairCallHandlingEnabled})`))).toEqual([
        ['wait', { 'breakwater.policy': 'bulkhead', 'breakwater.name': 'db', 'breakwater.wait_ms': 250 }],
      ]);
      db.close();
    });
  }

  it("a pool bulkhead: the queued call's wait, and the call itself, run in the queued call's context", async () => {
    const clock = newClock();
    const pool = new PoolBulkhead('pdf', { maxThreadPoolSize: 1, coreThreadPoolSize: 1, queueCapacity: 1, clock });
    const pdf = traceResilience(decorate('pdf').withBulkhead(pool), { tracer: otel.tracer });
    const first = requestSpan(otel.tracer, 'runs in the pool');
    const second = requestSpan(otel.tracer, 'queued in the pool');
    const held = deferred<string>();
    const one = track(context.with(first.ctx, () => pdf.execute(() => held.promise)));
    let sawSpan: string | undefined;
    const two = track(
      context.with(second.ctx, () =>
        pdf.execute(() => {
          sawSpan = activeSpanId();
          return 'two';
        }),
      ),
    );
    await clock.advance(40);
    held.resolve('one');
    await clock.advance(0);
    expect([one.value, two.value]).toEqual(['one', 'two']);
    expect(sawSpan).toBe(second.span.spanContext().spanId);
    first.span.end();
    second.span.end();
    expect(events(spanNamed(otel.spans(), 'runs in the pool'))).toEqual([]);
    expect(events(spanNamed(otel.spans(), 'queued in the pool'))).toEqual([
      ['wait', { 'breakwater.policy': 'poolBulkhead', 'breakwater.name': 'pdf', 'breakwater.wait_ms': 40 }],
    ]);
    pdf.close();
    await pool.close();
  });

  it("an adaptive limiter: the second call's wait in its partition, with its length; nothing on the first's", async () => {
    const clock = newClock();
    const limiter = new AdaptiveLimiter('pg', {
      initialLimit: 1,
      minLimit: 1,
      maxLimit: 1,
      maxWaitDuration: 1000,
      window: false,
      partitions: { critical: 1 },
      clock,
    });
    const pg = traceResilience(decorate('pg').withAdaptiveLimiter(limiter, { partition: 'critical' }), { tracer: otel.tracer });
    const first = requestSpan(otel.tracer, 'holds the limit');
    const second = requestSpan(otel.tracer, 'waits under the limit');
    const held = deferred<string>();
    const one = track(context.with(first.ctx, () => pg.execute(() => held.promise)));
    const two = track(context.with(second.ctx, () => pg.execute(() => 'two')));
    await clock.advance(75);
    held.resolve('one');
    await clock.advance(0);
    expect([one.value, two.value]).toEqual(['one', 'two']);
    first.span.end();
    second.span.end();
    expect(events(spanNamed(otel.spans(), 'holds the limit'))).toEqual([]);
    expect(events(spanNamed(otel.spans(), 'waits under the limit'))).toEqual([
      ['wait', { 'breakwater.policy': 'adaptiveLimiter', 'breakwater.name': 'pg', 'breakwater.wait_ms': 75, 'breakwater.partition': 'critical' }],
    ]);
    pg.close();
  });

  it('a slot taken at once is no event (a bulkhead, a pool, an adaptive limiter)', async () => {
    const clock = newClock();
    const db = traceResilience(decorate('db').withBulkhead(new Bulkhead('db', { clock })), { tracer: otel.tracer });
    const pool = new PoolBulkhead('pdf', { clock });
    const pdf = traceResilience(decorate('pdf').withBulkhead(pool), { tracer: otel.tracer });
    const pg = traceResilience(decorate('pg').withAdaptiveLimiter(new AdaptiveLimiter('pg', { clock })), { tracer: otel.tracer });
    const { span, ctx } = requestSpan(otel.tracer, 'admitted at once');
    await context.with(ctx, async () => {
      expect(await Promise.all([db.execute(() => 1), pdf.execute(() => 2), pg.execute(() => 3)])).toEqual([1, 2, 3]);
    });
    span.end();
    expect(events(spanNamed(otel.spans(), 'admitted at once'))).toEqual([]);
    for (const traced of [db, pdf, pg]) traced.close();
    await pool.close();
  });
});
