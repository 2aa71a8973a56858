import { AdaptiveLimiter, AdaptiveLimiterRegistry, AdaptiveThrottle, AdaptiveThrottleRegistry } from '@breakwater/adaptive';
import { Bulkhead, BulkheadRegistry, PoolBulkhead, PoolBulkheadRegistry } from '@breakwater/bulkhead';
import { FaultInjection } from '@breakwater/chaos';
import { CircuitBreaker, CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import { TimeoutError } from '@breakwater/core';
import { RateLimiter, RateLimiterRegistry } from '@breakwater/rate-limiter';
import { Hedge, HedgeRegistry, Retry, RetryRegistry } from '@breakwater/retry';
import { deferred, flush, track } from '@breakwater/test-support';
import { TimeLimiter, TimeLimiterRegistry } from '@breakwater/time-limiter';
import { expect } from 'vitest';
import { newClock } from './clock.js';

/**
 * Retry `pg` (2 attempts, 100 ms apart), given to `add`: one call succeeds at once, one on its
 * second attempt, one fails both: retry's counts are 1, 1, 0 and 1 (without retry first).
 */
export async function retryFourOutcomes(add: (retry: Retry) => unknown): Promise<void> {
  const clock = newClock();
  const retry = new Retry('pg', { maxAttempts: 2, waitDuration: 100, clock });
  add(retry);
  await retry.execute(async () => 'first time');
  let calls = 0;
  const second = track(retry.execute(async () => (++calls < 2 ? Promise.reject(new Error('down')) : 'second time')));
  await clock.advance(100);
  await flush();
  expect(second.value).toBe('second time');
  const failing = track(retry.execute(async () => Promise.reject(new Error('down'))));
  await clock.advance(100);
  await flush();
  expect(failing.state).toBe('rejected');
}

/** Time limiter `inventory` (100 ms), given to `add`: one call succeeds, one fails, one times out. */
export async function timeLimiterThreeOutcomes(add: (limiter: TimeLimiter) => unknown): Promise<void> {
  const clock = newClock();
  const limiter = new TimeLimiter('inventory', { timeoutDuration: 100, clock });
  add(limiter);
  await limiter.execute(async () => 'ok');
  await expect(limiter.execute(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  const slow = track(limiter.execute(() => new Promise(() => {})));
  await clock.advance(100);
  await flush();
  expect(slow.error).toBeInstanceOf(TimeoutError);
}

/**
 * Bulkhead `db` (3 concurrent calls), given to `add`, with one call holding a slot;
 * `release()` lets the call end.
 */
export function bulkheadHoldingOneOfThree(add: (bulkhead: Bulkhead) => unknown): { release: () => Promise<void> } {
  const bulkhead = new Bulkhead('db', { maxConcurrentCalls: 3, clock: newClock() });
  add(bulkhead);
  const hold = deferred<void>();
  const call = bulkhead.execute(() => hold.promise);
  return {
    release: async () => {
      hold.resolve();
      await call;
    },
  };
}

/**
 * Pool bulkhead `cpu` (core 1, max 2, queue 5), given to `add`, with one call running and one
 * queued; `finish()` lets both end and closes the pool.
 */
export function poolBulkheadOneRunningOneQueued(add: (pool: PoolBulkhead) => unknown): { finish: () => Promise<void> } {
  const pool = new PoolBulkhead('cpu', { coreThreadPoolSize: 1, maxThreadPoolSize: 2, queueCapacity: 5, clock: newClock() });
  add(pool);
  const hold = deferred<void>();
  const calls = [pool.execute(() => hold.promise), pool.execute(() => hold.promise)];
  return {
    finish: async () => {
      hold.resolve();
      await Promise.all(calls);
      await pool.close();
    },
  };
}

/**
 * Rate limiter `api` (2 permits a second, 5 s time-out), given to `add`: both permits taken and
 * one caller waiting (available -1); `refresh()` moves to the next cycle, which grants the waiter.
 */
export async function rateLimiterWithOneWaiter(add: (limiter: RateLimiter) => unknown): Promise<{ refresh: () => Promise<void> }> {
  const clock = newClock();
  const limiter = new RateLimiter('api', { limitForPeriod: 2, limitRefreshPeriod: 1000, timeoutDuration: 5000, clock });
  add(limiter);
  await limiter.acquirePermission(2);
  const waiting = track(limiter.acquirePermission());
  return {
    refresh: async () => {
      await clock.advance(1000);
      await flush();
      expect(waiting.state).toBe('fulfilled');
    },
  };
}

/** A registry of every kind, on one clock. */
export type AnyRegistry = CircuitBreakerRegistry | RetryRegistry | TimeLimiterRegistry | BulkheadRegistry | PoolBulkheadRegistry | RateLimiterRegistry;

/**
 * A registry of each kind, each given to `add` and holding one instance `name`. Returns the
 * breakers (to move one) and the pools (the caller closes `pools.get(name)`).
 */
export function everyRegistryWithOne(
  add: (registry: AnyRegistry) => unknown,
  name = 'backendA',
): { breakers: CircuitBreakerRegistry; pools: PoolBulkheadRegistry } {
  const clock = newClock();
  const breakers = new CircuitBreakerRegistry({ defaultConfig: { clock } });
  const pools = new PoolBulkheadRegistry({ defaultConfig: { clock } });
  for (const r of [
    breakers,
    new RetryRegistry({ defaultConfig: { clock } }),
    new TimeLimiterRegistry({ defaultConfig: { clock } }),
    new BulkheadRegistry({ defaultConfig: { clock } }),
    pools,
    new RateLimiterRegistry({ defaultConfig: { clock } }),
  ]) {
    add(r);
    r.get(name);
  }
  return { breakers, pools };
}

/**
 * One real component of each kind (a PoolBulkhead aside: it would need closing) and every
 * registry, the adaptive ones and the hedges' included, none of them used (a chaos layer: a
 * FaultInjection; the four strategies share one shape).
 */
export function oneOfEachKindAndRegistry(): (
  | CircuitBreaker
  | Retry
  | TimeLimiter
  | Bulkhead
  | RateLimiter
  | AdaptiveLimiter
  | AdaptiveThrottle
  | AnyRegistry
  | AdaptiveLimiterRegistry
  | AdaptiveThrottleRegistry
  | Hedge
  | HedgeRegistry
  | FaultInjection
)[] {
  const clock = newClock();
  return [
    new CircuitBreaker('a', { clock }),
    new Retry('a', { clock }),
    new TimeLimiter('a', { clock }),
    new Bulkhead('a', { clock }),
    new RateLimiter('a', { clock }),
    new AdaptiveLimiter('a', { clock }),
    new AdaptiveThrottle('a', { clock }),
    new CircuitBreakerRegistry(),
    new RetryRegistry(),
    new TimeLimiterRegistry(),
    new BulkheadRegistry(),
    new PoolBulkheadRegistry(),
    new RateLimiterRegistry(),
    new AdaptiveLimiterRegistry(),
    new AdaptiveThrottleRegistry(),
    new Hedge('a', { clock }),
    new HedgeRegistry(),
    new FaultInjection('a', { fault: new Error('a'), clock }),
  ];
}
