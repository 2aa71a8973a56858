import { readFileSync } from 'node:fs';
import * as adaptive from '@breakwater/adaptive';
import * as bulkhead from '@breakwater/bulkhead';
import * as chaos from '@breakwater/chaos';
import * as circuitBreaker from '@breakwater/circuit-breaker';
import * as core from '@breakwater/core';
import * as decorators from '@breakwater/decorators';
import * as observe from '@breakwater/observe';
import * as rateLimiter from '@breakwater/rate-limiter';
import * as retry from '@breakwater/retry';
import * as springConfig from '@breakwater/spring-config';
import * as timeLimiter from '@breakwater/time-limiter';
import { describe, expect, it } from 'vitest';
import * as breakwater from './index.js';
import * as testing from './testing.js';

describe('the breakwater umbrella', () => {
  it('exports every package from one import', () => {
    for (const name of [
      'decorate',
      'Pipeline',
      'Fallback',
      'CircuitBreaker',
      'CircuitBreakerRegistry',
      'TimeLimiter',
      'TimeLimiterRegistry',
      'Retry',
      'RetryRegistry',
      'RetryBudget',
      'IntervalFunction',
      'Bulkhead',
      'PoolBulkhead',
      'BulkheadRegistry',
      'PoolBulkheadRegistry',
      'RateLimiter',
      'RateLimiterRegistry',
      'VirtualClock',
      'systemClock',
      'Registry',
      'CallNotPermittedError',
      'TimeoutError',
      'BulkheadFullError',
      'RequestNotPermittedError',
      'MaxRetriesExceededError',
      'IllegalStateTransitionError',
      'BreakwaterError',
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

  it('exports the written list of its README, values and types (src/index.ts = "What breakwater exports")', () => {
    const source = readFileSync(new URL('index.ts', import.meta.url), 'utf8');
    const listed = [...source.matchAll(/export\s*\{([^}]*)\}\s*from/g)].flatMap((m) =>
      m[1]!
        .split(',')
        .map((n) => n.trim().replace(/^type\s+/, ''))
        .filter(Boolean),
    );
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('### What `breakwater` exports'), readme.indexOf('### The test helpers'));
    const documented = [...table.matchAll(/^\| [^|]+ \| (.+) \|$/gm)].flatMap((m) => [...m[1]!.matchAll(/`(\w+)`/g)].map((n) => n[1]!));
    expect(documented.length).toBeGreaterThan(100);
    expect([...documented].sort()).toEqual([...listed].sort());
    expect(new Set(listed).size).toBe(listed.length); // no name twice (no clash patched by hand)
    // Every value the umbrella exports is in the written list (nothing comes in by `export *`).
    for (const name of Object.keys(breakwater)) expect(listed, name).toContain(name);
  });

  it('re-exports each value from its package (the same object, not a copy)', () => {
    const packages = [core, observe, circuitBreaker, timeLimiter, retry, bulkhead, rateLimiter, adaptive, chaos, decorators, springConfig] as Record<
      string,
      unknown
    >[];
    for (const [name, value] of Object.entries(breakwater)) {
      expect(
        packages.some((pkg) => pkg[name] === value),
        name,
      ).toBe(true);
    }
  });

  it('leaves the plumbing out: what a policy author builds with stays in its package', () => {
    for (const name of [
      'enterCall',
      'invoke',
      'raceAbort',
      'holdProcess',
      'WaitQueue',
      'LinkedQueue',
      'ObservedComponents',
      'warnOnce',
      'ConfigReader',
      'EventPublisher',
      'CountWindow',
      'TimeWindow',
      'Outcome',
      'admit',
      'nextState',
      'initialState',
      'checkPermits',
      'weightedPolicy',
      'DrainOnResult',
      'CIRCUIT_BREAKER_OPTIONS',
      'RETRY_OPTIONS',
    ]) {
      expect(breakwater, name).not.toHaveProperty(name);
    }
  });

  it('keeps the test helpers (and fast-check) at breakwater/testing', () => {
    expect(testing).toHaveProperty('scriptedBackend');
    expect(testing).toHaveProperty('trafficArb');
    expect(breakwater).not.toHaveProperty('trafficArb');
  });
});
