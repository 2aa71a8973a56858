import { CircuitBreaker, CircuitBreakerRegistry, type CircuitBreakerConfig } from '@breakwater/circuit-breaker';
import type { VirtualClock } from '@breakwater/core';
import { deferred, flush, track } from '@breakwater/test-support';
import { expect, vi, type Mock, type MockInstance } from 'vitest';
import { newClock } from './clock.js';

/** Four calls decide; slow means over 100 ms; both rates at 50 %. */
export const smallBreakerConfig: CircuitBreakerConfig = {
  slidingWindowSize: 4,
  minimumNumberOfCalls: 4,
  permittedNumberOfCallsInHalfOpenState: 1,
  waitDurationInOpenState: 1000,
  slowCallDurationThreshold: 100,
  slowCallRateThreshold: 50,
  failureRateThreshold: 50,
};

/** A breaker (`pg` unless told) with {@link smallBreakerConfig} and `config` on a new clock. */
export function breakerOnClock(name = 'pg', config: CircuitBreakerConfig = {}): { clock: VirtualClock; breaker: CircuitBreaker } {
  const clock = newClock();
  return { clock, breaker: new CircuitBreaker(name, { ...smallBreakerConfig, ...config, clock }) };
}

/**
 * Breaker `pg`, given to `add`, after three calls: one answered after 50 ms through `execute`,
 * one of 20 ms recorded as a success and one of 200 ms (slow) as a failure. Still CLOSED.
 */
export async function breakerThreeCalls(add: (breaker: CircuitBreaker) => unknown): Promise<void> {
  const { clock, breaker } = breakerOnClock();
  add(breaker);
  const answer = deferred<string>();
  const call = track(breaker.execute(() => answer.promise));
  await clock.advance(50);
  expect(call.settled).toBe(false);
  answer.resolve('ok');
  await flush();
  expect(call.value).toBe('ok');
  breaker.onSuccess(20);
  breaker.onError(200, new Error('boom'));
}

/**
 * Breaker `pg`, given to `add`, OPEN by its failure rate (3 of 4 failed: 75 %) and one call refused.
 * Then `throughEveryCause()`: HALF_OPEN once the wait is over, CLOSED by the trial, OPEN by the
 * slow-call rate, FORCED_OPEN and back to CLOSED by hand; and `forcedOpenByFleet()`, as
 * RedisBreakerSync does.
 */
export async function breakerOpenedByFailureRate(
  add: (breaker: CircuitBreaker) => unknown,
): Promise<{ throughEveryCause: () => Promise<void>; forcedOpenByFleet: () => void }> {
  const { clock, breaker } = breakerOnClock();
  add(breaker);
  for (let i = 0; i < 3; i++) breaker.onError(10, new Error('boom'));
  breaker.onSuccess(10); // 3 of 4 failed: 75 % → OPEN by the failure rate
  await expect(breaker.execute(async () => 'no')).rejects.toThrow(/does not permit/);
  return {
    throughEveryCause: async () => {
      await clock.advance(1001); // the wait is over once more than waitDurationInOpenState has passed
      await breaker.execute(async () => 'trial'); // OPEN → HALF_OPEN (wait elapsed), then → CLOSED (the trial)
      for (let i = 0; i < 2; i++) breaker.onSuccess(500);
      for (let i = 0; i < 2; i++) breaker.onSuccess(10); // 2 of 4 slow: OPEN by the slow-call rate
      breaker.transitionToForcedOpenState();
      breaker.reset();
    },
    forcedOpenByFleet: () => breaker.transitionToForcedOpenState({ cause: 'fleet' }),
  };
}

/**
 * Breaker `pg`, given to `add`: six calls permitted while CLOSED and still running; four of them
 * settle (3 failures of 4: 75 %) and open it. `lateCallsSucceed()` then lets the other two
 * succeed: they are recorded in the window OPEN keeps (as Resilience4j does), so the breaker,
 * still OPEN, shows a failure rate of 25 %. `exceeded` holds the rates the `failureRateExceeded`
 * events carried, `causes` the transitions' causes.
 */
export async function breakerOpenThenLateCalls(
  add: (breaker: CircuitBreaker) => unknown,
): Promise<{ breaker: CircuitBreaker; exceeded: number[]; causes: string[]; lateCallsSucceed: () => Promise<void> }> {
  const { breaker } = breakerOnClock();
  add(breaker);
  const exceeded: number[] = [];
  const causes: string[] = [];
  breaker.on('failureRateExceeded', (e) => exceeded.push(e.failureRate));
  breaker.on('stateTransition', (e) => causes.push(`${e.from} → ${e.to}: ${e.cause}`));
  const answers = Array.from({ length: 6 }, () => deferred<string>());
  const calls = answers.map((answer) => track(breaker.execute(() => answer.promise)));
  for (const [i, ok] of [false, false, true, false].entries()) {
    if (ok) answers[i]!.resolve('ok');
    else answers[i]!.reject(new Error('boom'));
  }
  await flush();
  expect(breaker.state).toBe('OPEN');
  expect(calls.filter((c) => c.settled)).toHaveLength(4);
  return {
    breaker,
    exceeded,
    causes,
    lateCallsSucceed: async () => {
      answers[4]!.resolve('late');
      answers[5]!.resolve('late');
      await flush();
      expect(calls.every((c) => c.settled)).toBe(true);
    },
  };
}

/**
 * A breaker registry (at most 2 instances, {@link smallBreakerConfig}) holding `a`, given to `add`
 * (`stop` is what `add` returned), then `b` got. `replaceD()` gets `d`, replaces it with a new
 * breaker, records a failure on the old one and a success on the new one, and returns the new one.
 */
export function breakerRegistryOfTwo(add: (registry: CircuitBreakerRegistry) => () => void): {
  breakers: CircuitBreakerRegistry;
  a: CircuitBreaker;
  stop: () => void;
  replaceD: () => CircuitBreaker;
} {
  const clock = newClock();
  const breakers = new CircuitBreakerRegistry({ defaultConfig: { ...smallBreakerConfig, clock }, maxSize: 2 });
  const a = breakers.get('a');
  const stop = add(breakers);
  breakers.get('b');
  const replaceD = (): CircuitBreaker => {
    const d = breakers.get('d');
    const replacement = new CircuitBreaker('d', { ...smallBreakerConfig, clock });
    breakers.replace('d', replacement);
    d.onError(10, new Error('old one'));
    replacement.onSuccess(10);
    return replacement;
  };
  return { breakers, a, stop, replaceD };
}

/** A breaker and the spies of {@link spiedBreaker}. */
export interface SpiedBreaker {
  breaker: CircuitBreaker;
  /** The `metrics` getter. */
  readMetrics: MockInstance<() => CircuitBreaker['metrics']>;
  /** `on`: which events are listened to. */
  on: MockInstance<CircuitBreaker['on']>;
  /** The stop function of each `observeCalls` binding, in order. */
  stops: Mock<() => void>[];
}

/**
 * Breaker `pg` with spies on what an exporter may touch: its `metrics` getter, `on`, and the stop
 * function of each `observeCalls` binding (in `stops`, in order).
 */
export function spiedBreaker(): SpiedBreaker {
  const { breaker } = breakerOnClock();
  const readMetrics = vi.spyOn(breaker, 'metrics', 'get');
  const on = vi.spyOn(breaker, 'on');
  const stops: Mock<() => void>[] = [];
  const observeCalls = breaker.observeCalls.bind(breaker);
  vi.spyOn(breaker, 'observeCalls').mockImplementation((observer) => {
    const stop = vi.fn(observeCalls(observer));
    stops.push(stop);
    return stop;
  });
  return { breaker, readMetrics, on, stops };
}

/** 100 calls through `breaker.execute`, one after the other, each succeeding at once. */
export async function hundredCalls(breaker: CircuitBreaker): Promise<void> {
  for (let i = 0; i < 100; i++) await breaker.execute(async () => i);
}
