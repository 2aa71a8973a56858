import { afterEach, describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';
import { CircuitBreakerRegistry } from './registry.js';
import { BoomError, breakerOnClock, expectNoLeakedTimers } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

const fail = (b: CircuitBreaker, n = 1) => {
  for (let i = 0; i < n; i++) b.onError(0, new BoomError());
};
const succeed = (b: CircuitBreaker, n = 1) => {
  for (let i = 0; i < n; i++) b.onSuccess(0);
};

// The worked cases of the source documents (shared/DOCUMENTS.md §1, §2 and §4).
describe('the documents’ worked cases', () => {
  it('§2: with minimumNumberOfCalls 10, nine failures stay CLOSED and the tenth opens', () => {
    const { breaker } = breakerOnClock({ slidingWindowSize: 10, minimumNumberOfCalls: 10 });
    fail(breaker, 9);
    expect(breaker.state).toBe('CLOSED');
    expect(breaker.metrics.failureRate).toBe(-1);
    fail(breaker);
    expect(breaker.state).toBe('OPEN');
    expect(breaker.metrics.failureRate).toBe(100);
  });

  it('§2: TIME_BASED (2 s) forgets three failures after 2.5 s; COUNT_BASED (10) still holds them', async () => {
    const time = breakerOnClock({ slidingWindowType: 'TIME_BASED', slidingWindowSize: 2, minimumNumberOfCalls: 10 });
    const count = breakerOnClock({ slidingWindowType: 'COUNT_BASED', slidingWindowSize: 10, minimumNumberOfCalls: 10 });
    for (const { breaker } of [time, count]) fail(breaker, 3);
    await time.clock.advance(2500);
    await count.clock.advance(2500);
    expect(time.breaker.metrics.numberOfFailedCalls).toBe(0);
    expect(count.breaker.metrics.numberOfFailedCalls).toBe(3);
  });

  it('§2: the rate is judged from the minimum on, before the window is full', () => {
    const { breaker } = breakerOnClock({ slidingWindowSize: 100, minimumNumberOfCalls: 10 });
    succeed(breaker, 5);
    fail(breaker, 4);
    expect(breaker.state).toBe('CLOSED');
    fail(breaker); // 5 of 10, window 10% full
    expect(breaker.state).toBe('OPEN');
  });

  it('§2: after HALF_OPEN → CLOSED the window starts empty', async () => {
    const { breaker, clock } = breakerOnClock({
      slidingWindowSize: 10,
      minimumNumberOfCalls: 10,
      permittedNumberOfCallsInHalfOpenState: 3,
      waitDurationInOpenState: 1000,
    });
    fail(breaker, 10);
    await clock.advance(1001);
    for (let i = 0; i < 3; i++) {
      expect(breaker.tryAcquirePermission()).toBe(true);
      breaker.onSuccess(0);
    }
    expect(breaker.state).toBe('CLOSED');
    expect(breaker.metrics.numberOfBufferedCalls).toBe(0);
    fail(breaker, 9); // nine new failures are below the minimum again
    expect(breaker.state).toBe('CLOSED');
  });

  it('§4: below the minimum a 60% failure rate stays CLOSED, and the next call decides', () => {
    const { breaker } = breakerOnClock({ slidingWindowSize: 10, minimumNumberOfCalls: 6, failureRateThreshold: 50 });
    fail(breaker, 3);
    succeed(breaker, 2); // 3 of 5 = 60%, but below 6 calls
    expect(breaker.state).toBe('CLOSED');
    expect(breaker.metrics.failureRate).toBe(-1);
    succeed(breaker); // 3 of 6 = 50% ≥ 50%
    expect(breaker.state).toBe('OPEN');
  });

  it('§4: 50% at a 50% threshold opens (>=), 49.x% does not', () => {
    const opens = breakerOnClock({ slidingWindowSize: 4, minimumNumberOfCalls: 4, failureRateThreshold: 50 }).breaker;
    fail(opens, 2);
    succeed(opens, 2);
    expect(opens.state).toBe('OPEN');
    const stays = breakerOnClock({ slidingWindowSize: 4, minimumNumberOfCalls: 4, failureRateThreshold: 50.5 }).breaker;
    fail(stays, 2);
    succeed(stays, 2);
    expect(stays.state).toBe('CLOSED');
  });

  it('§4: only the last N calls count', () => {
    const { breaker } = breakerOnClock({ slidingWindowSize: 5, minimumNumberOfCalls: 5, failureRateThreshold: 60 });
    fail(breaker, 2);
    succeed(breaker, 3); // 40%
    succeed(breaker, 2); // the two failures fell out: 0%
    fail(breaker, 2); // 2 of the last 5 = 40%
    expect(breaker.state).toBe('CLOSED');
    expect(breaker.metrics.failureRate).toBe(40);
    fail(breaker); // 3 of 5
    expect(breaker.state).toBe('OPEN');
  });

  it('§4: HALF_OPEN decides within its permitted calls, or fewer if the minimum is smaller', async () => {
    const big = breakerOnClock({ minimumNumberOfCalls: 10, slidingWindowSize: 10, permittedNumberOfCallsInHalfOpenState: 5, waitDurationInOpenState: 10 });
    big.breaker.transitionToOpenState();
    await big.clock.advance(11);
    for (let i = 0; i < 4; i++) {
      big.breaker.tryAcquirePermission();
      big.breaker.onSuccess(0);
    }
    expect(big.breaker.state).toBe('HALF_OPEN');
    big.breaker.tryAcquirePermission();
    big.breaker.onSuccess(0);
    expect(big.breaker.state).toBe('CLOSED'); // decided at 5 = permitted

    const small = breakerOnClock({ minimumNumberOfCalls: 2, slidingWindowSize: 10, permittedNumberOfCallsInHalfOpenState: 5, waitDurationInOpenState: 10 });
    small.breaker.transitionToOpenState();
    await small.clock.advance(11);
    small.breaker.tryAcquirePermission();
    small.breaker.onError(0, new BoomError());
    small.breaker.tryAcquirePermission();
    small.breaker.onError(0, new BoomError());
    expect(small.breaker.state).toBe('OPEN'); // decided at 2 = the minimum
  });

  it('§4: a half-open breaker that waits too long goes back to OPEN', async () => {
    const { breaker, clock } = breakerOnClock({
      permittedNumberOfCallsInHalfOpenState: 5,
      maxWaitDurationInHalfOpenState: 3000,
      waitDurationInOpenState: 1000,
    });
    breaker.transitionToOpenState();
    await clock.advance(1001);
    breaker.tryAcquirePermission(); // one trial call that never comes back
    await clock.advance(3000);
    expect(breaker.state).toBe('OPEN');
    await clock.advance(1000);
    expect(breaker.tryAcquirePermission()).toBe(false); // a fresh wait, from the forced opening
    await clock.advance(1);
    expect(breaker.tryAcquirePermission()).toBe(true);
    breaker.transitionToClosedState();
    expect(clock.pendingTimers).toBe(0);
  });

  it('§4: DISABLED lets everything through and FORCED_OPEN nothing, until told otherwise', () => {
    const { breaker } = breakerOnClock({ slidingWindowSize: 2, minimumNumberOfCalls: 2 });
    breaker.transitionToDisabledState();
    fail(breaker, 100);
    expect(breaker.tryAcquirePermission()).toBe(true);
    breaker.transitionToForcedOpenState();
    expect(breaker.tryAcquirePermission()).toBe(false);
    breaker.transitionToClosedState();
    expect(breaker.tryAcquirePermission()).toBe(true);
  });

  it('§1: an emptied TIME_BASED window does not close an OPEN breaker; only the wait and trials do', async () => {
    const { breaker, clock } = breakerOnClock({
      slidingWindowType: 'TIME_BASED',
      slidingWindowSize: 2,
      minimumNumberOfCalls: 2,
      waitDurationInOpenState: 60_000,
    });
    fail(breaker, 2);
    expect(breaker.state).toBe('OPEN');
    await clock.advance(10_000);
    expect(breaker.metrics.numberOfBufferedCalls).toBe(0);
    expect(breaker.tryAcquirePermission()).toBe(false);
    expect(breaker.state).toBe('OPEN');
  });

  it('§1: a config changes at run time by replacing the breaker in the registry', () => {
    const registry = new CircuitBreakerRegistry({
      defaultConfig: { slidingWindowSize: 20, minimumNumberOfCalls: 20 },
      configs: { night: { slidingWindowSize: 200, minimumNumberOfCalls: 50 } },
    });
    const day = registry.get('pg');
    expect(day.config.slidingWindowSize).toBe(20);
    const night = new CircuitBreaker('pg', registry.configuration('night'));
    expect(registry.replace('pg', night)).toBe(day);
    expect(registry.get('pg')).toBe(night);
    expect(registry.get('pg').config.minimumNumberOfCalls).toBe(50);
  });
});
