import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { decorate } from '@breakwater/decorators';
import { Retry } from '@breakwater/retry';
import { TimeLimiter } from '@breakwater/time-limiter';
import { context, trace } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { traceResilience } from './index.js';
import { expectNoLeakedTimers, newClock } from '../test/test-support.js';
import { events, spanNamed, tracing } from '../test/tracing-support.js';

let otel: ReturnType<typeof tracing>;
beforeAll(() => {
  otel = tracing();
  trace.setGlobalTracerProvider(otel.provider);
});
afterAll(async () => {
  trace.disable();
  await otel.stop();
});
afterEach(expectNoLeakedTimers);

describe('README, Tracing', () => {
  it("the example: a time-out, then the retry's decision, on the request's span, through the global tracer", async () => {
    const clock = newClock();
    const retry = new Retry('pg', { maxAttempts: 2, waitDuration: 500, clock });
    const breaker = CircuitBreaker.of('pg', { clock });
    const timeLimiter = new TimeLimiter('pg', { timeoutDuration: 600, clock });
    let attempts = 0;
    const pg = {
      requestPayment: (_req: unknown, { signal }: { signal: AbortSignal }) =>
        ++attempts === 1
          ? new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))
          : Promise.resolve('receipt'),
    };
    const req = { amount: 10 };
    // The README's code:
    const pay = traceResilience(decorate('pay').withRetry(retry).withCircuitBreaker(breaker).withTimeLimiter(timeLimiter), {
      tracer: trace.getTracer('payments'),
    });
    const server = trace.getTracer('http').startSpan('POST /pay');
    const receipt = await context.with(trace.setSpan(context.active(), server), async () => {
      const call = pay.execute((ctx) => pg.requestPayment(req, { signal: ctx.signal }));
      await clock.advance(600); // the handler's context drives the VirtualClock (Node's timers carry it on their own)
      await clock.advance(500);
      return call;
    });
    server.end();
    expect(receipt).toBe('receipt');
    expect(events(spanNamed(otel.spans(), 'POST /pay'))).toEqual([
      ['timeout', { 'breakwater.policy': 'timeLimiter', 'breakwater.name': 'pg', 'breakwater.timeout_ms': 600, 'breakwater.elapsed_ms': 600 }],
      ['retry', { 'breakwater.policy': 'retry', 'breakwater.name': 'pg', 'breakwater.attempt': 1, 'breakwater.wait_ms': 500, 'error.type': 'TimeoutError' }],
    ]);
    expect(otel.spans().map((s) => s.name)).toEqual(['POST /pay']); // the call had a span: none of its own
    pay.close();
  });
});
