// The hedge and chaos layers (@breakwater/retry's real Hedge, @breakwater/chaos's real strategies):
// how they print, what a breaker inside a hedge sees (each attempt) against one outside it (the
// hedged call), a time limiter outside a hedge bounding the whole, and chaos innermost, met by
// every layer as the backend's own failure.
import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { FaultInjection, LatencyInjection, OutcomeInjection } from '@breakwater/chaos';
import { TimeoutError, VirtualClock, type CallContext } from '@breakwater/core';
import { Hedge, Retry } from '@breakwater/retry';
import { TimeLimiter } from '@breakwater/time-limiter';
import { afterEach, describe, expect, it } from 'vitest';
import { decorate } from './index.js';
import { after, watch } from '../test/test-support.js';

let clock = new VirtualClock();
afterEach(() => {
  const pending = clock.pendingTimers;
  clock = new VirtualClock();
  expect(pending).toBe(0);
});

const hedge = (delay = 100) => new Hedge('search', { delay, clock });
const breaker = () => new CircuitBreaker('pg', { clock, minimumNumberOfCalls: 100 });

/** Attempt 1 fails after 10 ms, every later attempt answers after 20 ms (each honours its signal). */
function firstFails(seen: CallContext[]): (ctx: CallContext) => Promise<string> {
  return (ctx) => {
    seen.push(ctx);
    if (ctx.attempt !== 1) return Promise.resolve(after(clock, 20, `answer ${ctx.attempt}`)(ctx));
    return Promise.resolve(after(clock, 10, 'unused')(ctx)).then(() => Promise.reject(new Error('primary failed')));
  };
}

describe('withHedge', () => {
  it('prints as Hedge; a breaker inside it records each attempt', async () => {
    const h = hedge();
    const cb = breaker();
    const pipeline = decorate().withHedge(h).withCircuitBreaker(cb);
    expect(pipeline.describe()).toBe("Hedge 'search' → CircuitBreaker 'pg' → fn");
    expect(pipeline.warnings).toEqual([]);
    const seen: CallContext[] = [];
    const call = watch(pipeline.execute(firstFails(seen)));
    await clock.advance(30);
    expect(call.outcomes).toEqual([['value', 'answer 2']]);
    expect(seen.map((ctx) => ctx.attempt)).toEqual([1, 2]);
    expect([cb.metrics.numberOfFailedCalls, cb.metrics.numberOfSuccessfulCalls]).toEqual([1, 1]);
    expect(h.metrics).toMatchObject({ numberOfSuccessfulCalls: 1, numberOfHedgedAttempts: 1, winsByAttempt: [0, 1] });
  });

  it('a breaker outside it records the hedged call once, and the warning says so', async () => {
    const h = hedge();
    const cb = breaker();
    const pipeline = decorate().withCircuitBreaker(cb).withHedge(h);
    expect(pipeline.warnings.map((w) => w.code)).toEqual(['CIRCUIT_BREAKER_OUTSIDE_HEDGE']);
    const call = watch(pipeline.execute(firstFails([])));
    await clock.advance(30);
    expect(call.outcomes).toEqual([['value', 'answer 2']]);
    expect([cb.metrics.numberOfFailedCalls, cb.metrics.numberOfSuccessfulCalls]).toEqual([0, 1]);
  });

  it('a time limiter outside it bounds the whole hedged call: every attempt is aborted at the time-out', async () => {
    const h = hedge(100);
    const pipeline = decorate()
      .withTimeLimiter(new TimeLimiter('pg', { timeoutDuration: 250, clock }))
      .withHedge(h);
    const seen: CallContext[] = [];
    const call = watch(
      pipeline.execute((ctx) => {
        seen.push(ctx);
        return after(clock, 1000, 'late')(ctx);
      }),
    );
    await clock.advance(249);
    expect(seen.map((ctx) => [ctx.attempt, ctx.signal.aborted])).toEqual([
      [1, false],
      [2, false],
    ]);
    await clock.advance(1);
    expect(call.outcomes).toEqual([['error', expect.any(TimeoutError)]]);
    expect(seen.map((ctx) => ctx.signal.aborted)).toEqual([true, true]);
    await clock.advance(0);
  });
});

describe('withChaos', () => {
  it('prints each strategy by its class; innermost, the layers outside meet the injected fault as the backend’s', async () => {
    const injected = new Error('injected');
    const faults = new FaultInjection('pg', { enabled: true, rate: 1, fault: injected, clock });
    const retry = new Retry('pg', { maxAttempts: 2, waitDuration: 0, clock });
    const cb = breaker();
    const pipeline = decorate().withRetry(retry).withCircuitBreaker(cb).withChaos(faults);
    expect(pipeline.describe()).toBe("Retry 'pg' → CircuitBreaker 'pg' → FaultInjection 'pg' → fn");
    expect(pipeline.warnings).toEqual([]);
    let called = 0;
    await expect(pipeline.execute(() => ++called)).rejects.toBe(injected);
    expect(called).toBe(0);
    expect(cb.metrics.numberOfFailedCalls).toBe(2);
    expect(retry.metrics.numberOfFailedCallsWithRetryAttempt).toBe(1);
    expect(faults.metrics).toEqual({ numberOfInjectedCalls: 2, numberOfCallsNotInjected: 0 });
  });

  it('disabled, it passes every call through and counts it as not injected', async () => {
    const outcome = new OutcomeInjection('cache', { enabled: false, rate: 1, outcome: 'fake' });
    const pipeline = decorate().withChaos(outcome);
    expect(pipeline.describe()).toBe("OutcomeInjection 'cache' → fn");
    await expect(pipeline.execute(() => 'real')).resolves.toBe('real');
    expect(outcome.metrics).toEqual({ numberOfInjectedCalls: 0, numberOfCallsNotInjected: 1 });
  });

  it('warns when chaos is not innermost; several chaos layers together are fine', () => {
    const faults = new FaultInjection('pg', { fault: new Error('x') });
    const latency = new LatencyInjection('pg', { latency: '1s' });
    const cb = breaker();
    expect(decorate().withCircuitBreaker(cb).withChaos(latency).withChaos(faults).warnings).toEqual([]);
    const wrong = decorate().withChaos(latency).withCircuitBreaker(cb);
    expect(wrong.warnings).toEqual([
      {
        code: 'CHAOS_NOT_INNERMOST',
        message:
          "LatencyInjection 'pg' is outside CircuitBreaker 'pg': what it injects never passes through CircuitBreaker 'pg', so the experiment " +
          "does not rehearse what CircuitBreaker 'pg' does when the backend fails or slows down.",
        fix: "Call withChaos(…) last, so that LatencyInjection 'pg' is innermost, just around fn: every layer then meets what it injects as it would meet the backend's own failure.",
      },
    ]);
  });
});
