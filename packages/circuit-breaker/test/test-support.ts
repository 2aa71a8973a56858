import { VirtualClock } from '@breakwater/core';
import { expect } from 'vitest';
import { CircuitBreaker } from '../src/circuit-breaker.js';
import type { CircuitBreakerConfig } from '../src/config.js';
import type { CircuitBreakerMetrics } from '../src/metrics.js';

const clocks: VirtualClock[] = [];

/**
 * For `afterEach`: every clock a test made has no timer left (no leaked timer), and is forgotten.
 * A test that leaves a timer on purpose must clear it (move the breaker out of its state) first.
 */
export function expectNoLeakedTimers(): void {
  const leaks = clocks.map((c) => c.pendingTimers);
  clocks.length = 0;
  expect(leaks.filter((n) => n > 0)).toEqual([]);
}

/** A fresh VirtualClock at `start` that {@link expectNoLeakedTimers} checks. */
export function trackedClock(start = 0): VirtualClock {
  const clock = new VirtualClock(start);
  clocks.push(clock);
  return clock;
}

/** A breaker on a fresh VirtualClock, and every event it publishes, in order. */
export function breakerOnClock(config: CircuitBreakerConfig = {}, name = 'test') {
  const clock = trackedClock();
  const breaker = new CircuitBreaker(name, { ...config, clock });
  const events: string[] = [];
  breaker.on('*', (e) => {
    const detail =
      e.type === 'stateTransition'
        ? ` ${e.from}->${e.to}`
        : e.type === 'failureRateExceeded'
          ? ` ${e.failureRate}`
          : e.type === 'slowCallRateExceeded'
            ? ` ${e.slowCallRate}`
            : '';
    events.push(`${e.type}${detail}`);
  });
  return { clock, breaker, events };
}

/** The counts of a metrics snapshot that tests compare most often. */
export function counts(m: CircuitBreakerMetrics) {
  return {
    failureRate: m.failureRate,
    successful: m.numberOfSuccessfulCalls,
    buffered: m.numberOfBufferedCalls,
    failed: m.numberOfFailedCalls,
    notPermitted: m.numberOfNotPermittedCalls,
  };
}

export class BoomError extends Error {
  override name = 'BoomError';
}
export class IgnoredError extends Error {
  override name = 'IgnoredError';
}

/**
 * The configuration of Resilience4j's CircuitBreakerStateMachineTest, in our words: a 5 s time
 * window with a minimum of 5 calls, 4 half-open permits, a 4 s slow threshold.
 */
export const conformance = {
  failureRateThreshold: 50,
  permittedNumberOfCallsInHalfOpenState: 4,
  slowCallDurationThreshold: 4000,
  slowCallRateThreshold: 50,
  slidingWindowType: 'TIME_BASED',
  slidingWindowSize: 5,
  minimumNumberOfCalls: 5,
  waitDurationInOpenState: 5000,
  ignoreExceptions: [IgnoredError],
} as const;

/** What {@link counts} gives for fresh metrics. */
export const emptyCounts = { failureRate: -1, successful: 0, buffered: 0, failed: 0, notPermitted: 0 };
