import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { isRefusal, libraryPipeline } from '../test/model-support.js';
import { parseScenario } from './parse-scenario.js';
import { buildPipeline, type BuiltLayer } from './pipeline.js';
import { runConfiguration } from './simulate.js';

// The engine against the library itself: the same pipeline run by decorate() on a VirtualClock,
// promise by promise, with a backend that answers as the scenario's phases say. Both must agree
// on every state change (time, states, cause) and every count.
const TRAFFIC = `
traffic:
  phases:
    - { name: failing, duration: 2s, rate: 10, arrivals: constant, errorRatio: 1, latency: 10ms }
    - { name: hanging, duration: 2s, rate: 10, arrivals: constant, errorRatio: 0, hangRatio: 1 }
    - { name: healthy, duration: 3s, rate: 10, arrivals: constant, hangRatio: 0, latency: 50ms }
`;
const LAYERS = {
  retry: '- retry: { maxAttempts: 3, waitDuration: 100ms }',
  breaker:
    '- circuitBreaker: { slidingWindowSize: 4, minimumNumberOfCalls: 4, failureRateThreshold: 50, waitDurationInOpenState: 1s, permittedNumberOfCallsInHalfOpenState: 2 }',
  limiter: '- timeLimiter: { timeoutDuration: 250ms }',
  limiterNoCancel: '- timeLimiter: { timeoutDuration: 250ms, cancelRunningFuture: false }',
  // 333 ms: no cycle boundary falls on an arrival, a time-out or a backend answer (at one instant the two may order events apart)
  rateLimiter: '- rateLimiter: { limitForPeriod: 4, limitRefreshPeriod: 333ms, timeoutDuration: 300ms }',
  rateLimiterNoWait: '- rateLimiter: { limitForPeriod: 3, limitRefreshPeriod: 333ms, timeoutDuration: 0 }',
  bulkhead: '- bulkhead: { maxConcurrentCalls: 2, maxWaitDuration: 150ms }',
  bulkheadNoWait: '- bulkhead: { maxConcurrentCalls: 1, maxWaitDuration: 0 }',
};
type Order = readonly (keyof typeof LAYERS)[];

/** What the backend does for a call started at `t` (the phase it starts in). */
function backend(t: number): 'error' | 'hang' | 'ok' {
  return t < 2000 ? 'error' : t < 4000 ? 'hang' : 'ok';
}

async function library(layers: readonly BuiltLayer[], clock: VirtualClock) {
  const { pipeline, transitions } = libraryPipeline(layers);
  let backendCalls = 0;
  const counts = { succeeded: 0, failed: 0, rejected: 0 };
  const call = (ctx: { signal: AbortSignal }) =>
    new Promise<string>((resolve, reject) => {
      backendCalls++;
      const what = backend(clock.now());
      // The listener goes when the call answers: without a time limiter every call shares one
      // never-aborted signal, which would otherwise collect a listener per call (the test's own leak).
      const aborted = () => {
        if (timer !== undefined) clock.clearTimeout(timer);
        reject(ctx.signal.reason);
      };
      const answer = () => {
        ctx.signal.removeEventListener('abort', aborted);
        if (what === 'ok') resolve('ok');
        else reject(new Error('503'));
      };
      const timer = what === 'hang' ? undefined : clock.setTimeout(answer, what === 'ok' ? 50 : 10);
      ctx.signal.addEventListener('abort', aborted);
    });
  const calls: Promise<void>[] = [];
  for (let t = 0; t < 7000; t += 100) {
    clock.setTimeout(() => {
      calls.push(
        pipeline.execute(call).then(
          () => void counts.succeeded++,
          (e: unknown) => void (isRefusal(e) ? counts.rejected++ : counts.failed++),
        ),
      );
    }, t);
  }
  await clock.advanceTo(7000);
  await clock.runAll();
  await Promise.all(calls);
  return { transitions, backendCalls, ...counts };
}

describe.each<[string, Order]>([
  ['Retry → CircuitBreaker → TimeLimiter', ['retry', 'breaker', 'limiter']],
  ['TimeLimiter → Retry → CircuitBreaker (a time-out cancels the retry; the breaker ignores the aborted call)', ['limiter', 'retry', 'breaker']],
  ['CircuitBreaker → Retry → TimeLimiter', ['breaker', 'retry', 'limiter']],
  ['TimeLimiter without cancelRunningFuture → Retry → CircuitBreaker (the retry goes on after the time-out)', ['limiterNoCancel', 'retry', 'breaker']],
  ['Retry → CircuitBreaker → RateLimiter → TimeLimiter → Bulkhead (Resilience4j’s aspect order)', ['retry', 'breaker', 'rateLimiter', 'limiter', 'bulkhead']],
  ['Bulkhead → Retry → CircuitBreaker → TimeLimiter (a retry’s wait holds the slot)', ['bulkhead', 'retry', 'breaker', 'limiter']],
  [
    'TimeLimiter → Bulkhead → Retry → CircuitBreaker (a time-out takes a waiter out of the queue, frees a running call’s slot)',
    ['limiter', 'bulkhead', 'retry', 'breaker'],
  ],
  [
    'TimeLimiter without cancelRunningFuture → Bulkhead → CircuitBreaker (the slot is held until the hanging call… never ends)',
    ['limiterNoCancel', 'bulkhead', 'breaker'],
  ],
  ['RateLimiter → Retry → CircuitBreaker → TimeLimiter (one permit per request, retries included)', ['rateLimiter', 'retry', 'breaker', 'limiter']],
  [
    'Retry → RateLimiter without wait → CircuitBreaker → Bulkhead without wait → TimeLimiter (refusals retried)',
    ['retry', 'rateLimiterNoWait', 'breaker', 'bulkheadNoWait', 'limiter'],
  ],
  [
    'TimeLimiter → RateLimiter → Retry → CircuitBreaker (a time-out aborts a waiter: its permit is handed back)',
    ['limiter', 'rateLimiter', 'retry', 'breaker'],
  ],
  ['TimeLimiter → RateLimiter without wait → Retry → CircuitBreaker', ['limiter', 'rateLimiterNoWait', 'retry', 'breaker']],
])('the engine and decorate() agree: %s', (_, order) => {
  it('on every state change and every count', async () => {
    const scenario = parseScenario(`pipelines:\n  p:\n${order.map((k) => `    ${LAYERS[k]}`).join('\n')}\n${TRAFFIC}`);
    let engineBackendCalls = 0;
    const engine = runConfiguration(scenario, scenario.pipelines[0]!, {
      observer: () => ({ finished: (view) => void (engineBackendCalls = view.backendCalls) }),
    });
    const clock = new VirtualClock();
    const real = await library(buildPipeline(scenario.pipelines[0]!, clock, Math.random), clock);
    expect(engine.transitions).toEqual(real.transitions);
    expect(real.transitions.length).toBeGreaterThan(1);
    expect(real.rejected).toBeGreaterThan(0);
    expect({ succeeded: engine.totals.succeeded, failed: engine.totals.failed, rejected: engine.totals.rejected }).toEqual({
      succeeded: real.succeeded,
      failed: real.failed,
      rejected: real.rejected,
    });
    expect(engineBackendCalls).toBe(real.backendCalls);
  });
});
