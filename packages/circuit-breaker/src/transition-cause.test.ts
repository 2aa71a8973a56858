import { afterEach, describe, expect, it } from 'vitest';
import type { CircuitBreaker } from './circuit-breaker.js';
import { BoomError, breakerOnClock, expectNoLeakedTimers } from './test-support.js';

afterEach(expectNoLeakedTimers);

/** Every `stateTransition` of `breaker`, as `FROM->TO cause`. */
function transitions(breaker: CircuitBreaker): string[] {
  const seen: string[] = [];
  breaker.on('stateTransition', (e) => seen.push(`${e.from}->${e.to} ${e.cause}`));
  return seen;
}

const small = { slidingWindowSize: 4, minimumNumberOfCalls: 4, permittedNumberOfCallsInHalfOpenState: 2, waitDurationInOpenState: 1000 } as const;

describe('CircuitBreaker stateTransition cause', () => {
  it('CLOSED → OPEN on the failure rate, OPEN → HALF_OPEN after the wait, HALF_OPEN → CLOSED after the trial', async () => {
    const { clock, breaker } = breakerOnClock(small);
    const seen = transitions(breaker);
    for (let i = 0; i < 4; i++) breaker.onError(0, new BoomError());
    await clock.advance(1001);
    expect(breaker.tryAcquirePermission()).toBe(true);
    breaker.onSuccess(0);
    breaker.acquirePermission();
    breaker.onSuccess(0);
    expect(seen).toEqual(['CLOSED->OPEN failure_rate', 'OPEN->HALF_OPEN wait_elapsed', 'HALF_OPEN->CLOSED half_open_trial']);
  });
});
