// `health()` (@breakwater/observe) on the real components of the workspace packages (dev dependencies of this
// one): it reads them by shape, so this holds the shapes it assumes against the real ones.
import { deferred } from '@breakwater/test-support';
import { VirtualClock } from '@breakwater/core';
import { health } from '@breakwater/observe';
import { Bulkhead, PoolBulkhead } from '@breakwater/bulkhead';
import { CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import { RateLimiter } from '@breakwater/rate-limiter';
import { Retry } from '@breakwater/retry';
import { TimeLimiter } from '@breakwater/time-limiter';
import { describe, expect, it } from 'vitest';
import { Fallback } from './index.js';

describe('health() of real components', () => {
  it('an exact, JSON-safe snapshot after scripted calls: one breaker open → DEGRADED, every breaker open → still DEGRADED (never DOWN without allowHealthIndicatorToFail)', async () => {
    const clock = new VirtualClock();
    const breakers = new CircuitBreakerRegistry({ defaultConfig: { slidingWindowSize: 4, minimumNumberOfCalls: 4, clock } });
    const pg = breakers.get('pg');
    const redis = breakers.get('redis');
    const db = new Bulkhead('db', { maxConcurrentCalls: 1, clock });
    const cpu = new PoolBulkhead('cpu', { maxThreadPoolSize: 1, coreThreadPoolSize: 1, queueCapacity: 1, clock });
    const api = new RateLimiter('api', { limitForPeriod: 2, limitRefreshPeriod: 1000, timeoutDuration: 5000, clock });
    const retry = new Retry('pg', { maxAttempts: 2, waitDuration: 100, clock });
    const timeLimiter = new TimeLimiter('pg', { timeoutDuration: 50, clock });
    const fallback = new Fallback('cache', () => 'cached');

    // pg: 3 failures in 4 calls (75 % ≥ 50 %) opens it; the next call is not permitted.
    for (const ok of [false, true, false, false]) {
      await pg.execute(() => (ok ? 'ok' : Promise.reject(new Error('down')))).catch(() => undefined);
    }
    await pg.execute(() => 'refused').catch(() => undefined);
    await redis.execute(() => 'ok');
    // db: its one slot taken; cpu: its one worker busy and its one queue place taken.
    expect(db.tryAcquirePermission()).toBe(true);
    const running = deferred<string>();
    const queued = deferred<string>();
    const calls = [cpu.submit(() => running.promise), cpu.submit(() => queued.promise)];
    // api: two permits used, a third caller waits for the next cycle.
    await api.acquirePermission();
    await api.acquirePermission();
    const waiting = api.acquirePermission();
    // retry: a call that succeeds on its second attempt; time limiter: a call that times out.
    let attempts = 0;
    const retried = retry.execute(() => (++attempts === 1 ? Promise.reject(new Error('once')) : 'ok'));
    const timedOut = timeLimiter
      .execute((ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))))
      .catch((e: unknown) => e);
    await clock.advance(100);
    await expect(retried).resolves.toBe('ok');
    expect(await timedOut).toBeInstanceOf(Error);

    const snapshot = health(breakers, db, cpu, api, retry, timeLimiter, fallback, pg);
    expect(snapshot).toEqual({
      status: 'DEGRADED',
      components: {
        circuitBreakers: {
          pg: {
            status: 'CIRCUIT_OPEN',
            state: 'OPEN',
            failureRate: 75,
            slowCallRate: 0,
            bufferedCalls: 4,
            failedCalls: 3,
            slowCalls: 0,
            slowFailedCalls: 0,
            notPermittedCalls: 1,
            failureRateThreshold: 50,
            slowCallRateThreshold: 100,
          },
          redis: {
            status: 'UP',
            state: 'CLOSED',
            failureRate: -1,
            slowCallRate: -1,
            bufferedCalls: 1,
            failedCalls: 0,
            slowCalls: 0,
            slowFailedCalls: 0,
            notPermittedCalls: 0,
            failureRateThreshold: 50,
            slowCallRateThreshold: 100,
          },
        },
        bulkheads: { db: { status: 'UNKNOWN', availableConcurrentCalls: 0, maxAllowedConcurrentCalls: 1, waitingCalls: 0 } },
        threadPoolBulkheads: {
          cpu: {
            status: 'UNKNOWN',
            coreThreadPoolSize: 1,
            threadPoolSize: 1,
            maximumThreadPoolSize: 1,
            activeCount: 1,
            queueDepth: 1,
            queueCapacity: 1,
            remainingQueueCapacity: 0,
          },
        },
        rateLimiters: { api: { status: 'UNKNOWN', availablePermissions: -1, numberOfWaitingCalls: 1 } },
        retries: {
          pg: {
            status: 'UP',
            numberOfSuccessfulCallsWithoutRetryAttempt: 0,
            numberOfSuccessfulCallsWithRetryAttempt: 1,
            numberOfFailedCallsWithoutRetryAttempt: 0,
            numberOfFailedCallsWithRetryAttempt: 0,
          },
        },
        timeLimiters: { pg: { status: 'UP', numberOfSuccessfulCalls: 0, numberOfFailedCalls: 0, numberOfTimeouts: 1 } },
        others: { cache: { kind: 'fallback', metrics: { numberOfSuccessfulCalls: 0, numberOfFallbackCalls: 0, numberOfIgnoredErrors: 0 } } },
      },
    });
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);

    // Every breaker open → still DEGRADED: a readiness probe must not pull the instance for it.
    redis.transitionToForcedOpenState();
    expect(health(breakers, db, api).status).toBe('DEGRADED');
    expect(health(breakers).components.circuitBreakers['redis']!.status).toBe('CIRCUIT_OPEN');

    // Everything given back and closed again → UP.
    db.onComplete();
    running.resolve('a');
    queued.resolve('b');
    await expect(Promise.all(calls)).resolves.toEqual(['a', 'b']);
    await clock.advance(1000);
    await waiting;
    pg.transitionToClosedState();
    redis.transitionToClosedState();
    const after = health(breakers, db, cpu, api, retry, timeLimiter);
    expect(after.status).toBe('UP');
    expect(JSON.parse(JSON.stringify(after))).toEqual(after);
    expect(clock.pendingTimers).toBe(0);
  });

  it("a breaker that opted in with allowHealthIndicatorToFail: true makes the whole DOWN when it opens (Resilience4j's switch)", () => {
    const clock = new VirtualClock();
    const breakers = new CircuitBreakerRegistry({ defaultConfig: { clock }, configs: { critical: { allowHealthIndicatorToFail: true } } });
    const pg = breakers.get('pg', 'critical');
    const cache = breakers.get('cache');
    cache.transitionToOpenState();
    expect(health(breakers).status).toBe('DEGRADED');
    pg.transitionToOpenState();
    const snapshot = health(breakers);
    expect(snapshot.status).toBe('DOWN');
    expect(snapshot.components.circuitBreakers['pg']!.status).toBe('DOWN');
    expect(snapshot.components.circuitBreakers['cache']!.status).toBe('CIRCUIT_OPEN');
    pg.transitionToHalfOpenState();
    expect(health(breakers).status).toBe('DEGRADED');
    expect(clock.pendingTimers).toBe(0);
  });
});
