import * as springConfig from '@breakwater/spring-config';
import { describe, expect, it } from 'vitest';
import * as breakwater from './index.js';
import * as testing from './testing.js';

describe('the breakwater umbrella', () => {
  it('exports every package from one import', () => {
    for (const name of [
      'decorate', 'Pipeline', 'Fallback',
      'CircuitBreaker', 'CircuitBreakerRegistry',
      'TimeLimiter', 'TimeLimiterRegistry',
      'Retry', 'RetryRegistry', 'RetryBudget', 'IntervalFunction',
      'Bulkhead', 'PoolBulkhead', 'BulkheadRegistry', 'PoolBulkheadRegistry',
      'RateLimiter', 'RateLimiterRegistry',
      'VirtualClock', 'systemClock', 'Registry',
      'CallNotPermittedError', 'TimeoutError', 'BulkheadFullError', 'RequestNotPermittedError', 'MaxRetriesExceededError', 'IllegalStateTransitionError', 'BreakwaterError',
      'fromConfig',
    ]) {
      expect(breakwater, name).toHaveProperty(name);
    }
  });

  it('re-exports fromConfig from @breakwater/spring-config (one function, not a copy)', () => {
    expect(breakwater.fromConfig).toBe(springConfig.fromConfig);
  });

  it('composes the packages end to end', async () => {
    const { decorate, Retry, CircuitBreaker, TimeLimiter, VirtualClock } = breakwater;
    const clock = new VirtualClock();
    const breaker = new CircuitBreaker('pg', { clock, minimumNumberOfCalls: 2, slidingWindowSize: 2 });
    const pay = decorate()
      .withRetry(new Retry('pg', { maxAttempts: 3, waitDuration: 0, clock }))
      .withCircuitBreaker(breaker)
      .withTimeLimiter(new TimeLimiter('pg', { timeoutDuration: 100, clock }));
    expect(pay.warnings).toEqual([]);
    let calls = 0;
    const result = await pay.execute(() => {
      calls++;
      if (calls < 2) throw new Error('flaky');
      return 'paid';
    });
    expect(result).toBe('paid');
    expect(breaker.metrics.numberOfBufferedCalls).toBe(2); // each attempt is its own breaker call
    expect(clock.pendingTimers).toBe(0);
  });

  it('keeps the test helpers (and fast-check) at breakwater/testing', () => {
    expect(testing).toHaveProperty('scriptedBackend');
    expect(testing).toHaveProperty('trafficArb');
    expect(breakwater).not.toHaveProperty('trafficArb');
  });
});
