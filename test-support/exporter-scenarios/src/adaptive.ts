import {
  AdaptiveLimiter,
  AdaptiveLimiterRegistry,
  AdaptiveThrottle,
  AdaptiveThrottleRegistry,
  type LimitAlgorithm,
  type LimitSample,
} from '@breakwater/adaptive';
import { RequestNotPermittedError, TimeoutError } from '@breakwater/core';
import { deferred, flush, track } from '@breakwater/test-support';
import { expect } from 'vitest';
import { newClock } from './clock.js';

/** A limit of 2 that falls to 1 on the first drop: the limit gauge reads the limit in force. */
function twoThenOneOnADrop(): LimitAlgorithm {
  return {
    name: 'two-then-one',
    limit: 2,
    onSample(sample: LimitSample): number {
      if (sample.didDrop) (this as { limit: number }).limit = 1;
      return this.limit;
    },
  };
}

/**
 * Adaptive limiter `pg` (limit 2, falling to 1 on a drop; every call sampled, no window; one
 * caller may wait, for up to 1 s), given to `add`: calls A and B hold the two places, C waits, D
 * is refused (the queue is full). So: limit 2, in flight 2, waiting 1, rejected 1.
 * `finish()` then plays: A succeeds at 20 ms (a sample of 20 ms; C takes its place), B fails at
 * 60 ms with an error that is not a drop (no sample), C times out 50 ms after it started (a drop
 * of 50 ms: the limit falls to 1). So: limit 1, nothing in flight or waiting, round trips 20 and 50 ms.
 */
export async function adaptiveLimiterTwoRunningOneWaiting(add: (limiter: AdaptiveLimiter) => unknown): Promise<{ finish: () => Promise<void> }> {
  const clock = newClock();
  const limiter = new AdaptiveLimiter('pg', { algorithm: twoThenOneOnADrop(), window: false, maxWaitDuration: 1000, maxQueue: 1, clock });
  add(limiter);
  const a = deferred<string>();
  const b = deferred<string>();
  const c = deferred<string>();
  const calls = [track(limiter.execute(() => a.promise)), track(limiter.execute(() => b.promise)), track(limiter.execute(() => c.promise))];
  await expect(limiter.execute(async () => 'D')).rejects.toBeInstanceOf(RequestNotPermittedError);
  return {
    finish: async () => {
      await clock.advance(20);
      a.resolve('A');
      await flush();
      expect(limiter.inFlight).toBe(2); // C has A's place
      await clock.advance(40);
      b.reject(new Error('bad request'));
      await flush();
      await clock.advance(10);
      c.reject(new TimeoutError('pg', 50));
      await flush();
      expect(calls.map((call) => call.state)).toEqual(['fulfilled', 'rejected', 'rejected']);
      expect(limiter.limit).toBe(1);
    },
  };
}

/**
 * Adaptive throttle `search` (k 2, a 2-minute window; its draw always 0, so any reject ratio
 * above 0 rejects), given to `add`: one call succeeds, two fail, the fourth is rejected locally
 * (ratio (3 − 2·1)/(3 + 1) = 0.25 before it). So: requests 4, accepts 1, reject ratio
 * (4 − 2)/(4 + 1) = 0.4. `windowSlides()` moves the clock 2 minutes: every count back to 0.
 */
export async function throttleRejectingOneOfFour(add: (throttle: AdaptiveThrottle) => unknown): Promise<{ windowSlides: () => Promise<void> }> {
  const clock = newClock();
  const throttle = new AdaptiveThrottle('search', { random: () => 0, clock });
  add(throttle);
  await throttle.execute(async () => 'ok');
  for (let i = 0; i < 2; i++) await expect(throttle.execute(async () => Promise.reject(new Error('503')))).rejects.toThrow('503');
  await expect(throttle.execute(async () => 'not sent')).rejects.toBeInstanceOf(RequestNotPermittedError);
  return {
    windowSlides: async () => {
      await clock.advance(120_000);
    },
  };
}

/** A registry of each adaptive kind, on one clock, each given to `add` and holding one instance `name`. */
export function everyAdaptiveRegistryWithOne(add: (registry: AdaptiveLimiterRegistry | AdaptiveThrottleRegistry) => unknown, name = 'backendA'): void {
  const clock = newClock();
  for (const r of [new AdaptiveLimiterRegistry({ defaultConfig: { clock } }), new AdaptiveThrottleRegistry({ defaultConfig: { clock } })]) {
    add(r);
    r.get(name);
  }
}
