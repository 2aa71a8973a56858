import { types } from 'node:util';
import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { CallNotPermittedError, VirtualClock, type CallContext } from '@breakwater/core';
import { withoutStack } from '@breakwater/core/internal';
import { track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Retry, type RetryConfig } from './index.js';

let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

/** Retry outside, breaker inside: each attempt is one breaker call. */
function pipeline(retry: Retry, breaker: CircuitBreaker) {
  return <T>(fn: (ctx: CallContext) => T | PromiseLike<T>) => retry.execute((ctx) => breaker.execute(fn, ctx));
}

function breakerOf(config: ConstructorParameters<typeof CircuitBreaker>[1] = {}): CircuitBreaker {
  return new CircuitBreaker('pg', { clock, slidingWindowSize: 10, minimumNumberOfCalls: 10, waitDurationInOpenState: 1000, ...config });
}

function retryOf(config: RetryConfig = {}): Retry {
  return new Retry('pg', { clock, maxAttempts: 3, waitDuration: 100, ...config });
}

function retry(config: RetryConfig = {}): Retry {
  return new Retry('pg', { clock, ...config });
}

const NO_CALLS = {
  numberOfSuccessfulCallsWithoutRetryAttempt: 0,
  numberOfSuccessfulCallsWithRetryAttempt: 0,
  numberOfFailedCallsWithoutRetryAttempt: 0,
  numberOfFailedCallsWithRetryAttempt: 0,
};

describe('Retry × CircuitBreaker', () => {
  it('with the retry outside, the breaker records every attempt', async () => {
    const breaker = breakerOf();
    const retry = retryOf();
    const run = pipeline(retry, breaker);
    let attempts = 0;
    const call = track(
      run(() => {
        attempts++;
        return attempts < 3 ? Promise.reject(new Error(`down ${attempts}`)) : Promise.resolve('paid');
      }),
    );
    await clock.runAll();
    expect(call.value).toBe('paid');
    expect(breaker.metrics).toMatchObject({ numberOfBufferedCalls: 3, numberOfFailedCalls: 2, numberOfSuccessfulCalls: 1 });
    expect(retry.metrics.numberOfSuccessfulCallsWithRetryAttempt).toBe(1);
  });

  it('gives up at once when the breaker is OPEN: one refused attempt, no wait, the CallNotPermittedError', async () => {
    const breaker = breakerOf();
    breaker.transitionToOpenState();
    const retry = retryOf();
    const events: string[] = [];
    retry.on('*', (e) => events.push(e.type));
    let ran = 0;
    const call = pipeline(
      retry,
      breaker,
    )(() => {
      ran++;
      return 'never';
    });
    expect(clock.pendingTimers).toBe(0);
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallNotPermittedError);
    expect((error as CallNotPermittedError).state).toBe('OPEN');
    expect(ran).toBe(0);
    expect(clock.now()).toBe(0);
    expect(breaker.metrics.numberOfNotPermittedCalls).toBe(1);
    expect(events).toEqual(['ignoredError']);
    expect(retry.metrics.numberOfFailedCallsWithoutRetryAttempt).toBe(1);
  });

  it('stops retrying the moment its own failures open the breaker', async () => {
    const breaker = breakerOf({ slidingWindowSize: 2, minimumNumberOfCalls: 2, failureRateThreshold: 50 });
    const retry = retryOf({ maxAttempts: 5 });
    let ran = 0;
    const call = track(
      pipeline(
        retry,
        breaker,
      )(() => {
        ran++;
        return Promise.reject(new Error('down'));
      }),
    );
    await clock.runAll();
    // Attempts 1 and 2 fail and open the breaker; attempt 3 is refused and ends the call.
    expect(ran).toBe(2);
    expect(call.error).toBeInstanceOf(CallNotPermittedError);
    expect(breaker.state).toBe('OPEN');
    expect(breaker.metrics.numberOfNotPermittedCalls).toBe(1);
    expect(retry.metrics.numberOfFailedCallsWithRetryAttempt).toBe(1);
  });

  it('with retryCallNotPermitted, rides out the open state when the waits outlast it', async () => {
    const breaker = breakerOf({ slidingWindowSize: 1, minimumNumberOfCalls: 1, permittedNumberOfCallsInHalfOpenState: 1, waitDurationInOpenState: 1000 });
    const retry = retryOf({ maxAttempts: 4, waitDuration: 600, retryCallNotPermitted: true });
    let ran = 0;
    const starts: number[] = [];
    const call = track(
      pipeline(
        retry,
        breaker,
      )(() => {
        ran++;
        starts.push(clock.now());
        return ran === 1 ? Promise.reject(new Error('down')) : Promise.resolve('back');
      }),
    );
    await clock.runAll();
    // t = 0 fails and opens; t = 600 refused (OPEN until after 1000); t = 1200 goes HALF_OPEN and succeeds.
    expect(call.value).toBe('back');
    expect(starts).toEqual([0, 1200]);
    expect(breaker.state).toBe('CLOSED');
    expect(breaker.metrics.numberOfBufferedCalls).toBe(0);
  });

  it('passes its attempt number and the caller signal through the breaker', async () => {
    const breaker = breakerOf();
    const retry = retryOf({ waitDuration: 0 });
    const caller = new AbortController();
    const seen: CallContext[] = [];
    await retry.execute(
      (ctx) =>
        breaker.execute((inner) => {
          seen.push(inner);
          return inner.attempt < 2 ? Promise.reject(new Error('x')) : 'ok';
        }, ctx),
      { signal: caller.signal },
    );
    expect(seen.map((c) => c.attempt)).toEqual([1, 2]);
    expect(seen.every((c) => c.signal === caller.signal)).toBe(true);
  });
});

describe('Retry × CircuitBreaker: the error behind a refused attempt stays reachable', () => {
  function pipeline(r: Retry, breaker: CircuitBreaker) {
    return <T>(fn: (ctx: CallContext) => T | PromiseLike<T>) => r.execute((ctx) => breaker.execute(fn, ctx));
  }

  it.each([true, false])(
    'the CallNotPermittedError the caller gets has cause = the gateway’s error (writableStackTraceEnabled %s)',
    async (writableStackTraceEnabled) => {
      const breaker = new CircuitBreaker('pg', {
        clock,
        slidingWindowSize: 1,
        minimumNumberOfCalls: 1,
        waitDurationInOpenState: 10_000,
        writableStackTraceEnabled,
      });
      const r = retry({ maxAttempts: 3, waitDuration: 100 });
      const ignored: unknown[] = [];
      r.on('ignoredError', (e) => ignored.push(e.error));
      const gateway = new Error('502 from the gateway');
      let ran = 0;
      const call = track(
        pipeline(
          r,
          breaker,
        )(() => {
          ran++;
          return Promise.reject(gateway);
        }),
      );
      await clock.runAll();
      expect(ran).toBe(1);
      const error = call.error as CallNotPermittedError;
      expect(error).toBeInstanceOf(CallNotPermittedError);
      expect(types.isNativeError(error)).toBe(true);
      expect(error.name).toBe('CallNotPermittedError');
      expect(error.message).toBe("CircuitBreaker 'pg' is OPEN and does not permit further calls");
      expect([error.circuitBreakerName, error.state]).toEqual(['pg', 'OPEN']);
      expect(error.cause).toBe(gateway);
      expect(Object.getOwnPropertyDescriptor(error, 'cause')?.enumerable).toBe(false);
      if (!writableStackTraceEnabled) expect(error.stack).toBe("CallNotPermittedError: CircuitBreaker 'pg' is OPEN and does not permit further calls");
      expect(ignored).toEqual([error]);
      expect(ignored[0]).toBe(error);
      expect(r.metrics).toEqual({ ...NO_CALLS, numberOfFailedCallsWithRetryAttempt: 1 });
    },
  );

  it('never mutates the refusal it was given (it may be shared), and keeps a cause already set', async () => {
    const shared = Object.freeze(withoutStack(() => new CallNotPermittedError('pg', 'FORCED_OPEN')));
    const withCause = new CallNotPermittedError('pg', 'OPEN');
    Object.defineProperty(withCause, 'cause', { value: 'its own cause' });
    for (const refusal of [shared, withCause]) {
      const r = retry({ waitDuration: 0 });
      let ran = 0;
      const error = await r
        .execute(() => {
          ran++;
          return ran === 1 ? Promise.reject(new Error('first')) : Promise.reject(refusal);
        })
        .catch((e: unknown) => e as CallNotPermittedError);
      expect(ran).toBe(2);
      if (refusal === shared) {
        expect(error).not.toBe(shared);
        expect(error.cause).toEqual(new Error('first'));
        expect(error.state).toBe('FORCED_OPEN');
        expect(error.stack).toBe(shared.stack);
        expect('cause' in shared).toBe(false);
      } else {
        expect(error).toBe(withCause);
        expect(error.cause).toBe('its own cause');
      }
    }
  });

  it('with retryCallNotPermitted, exhausted on refusals: the cause is the last error that was not a refusal', async () => {
    const r = retry({ maxAttempts: 3, waitDuration: 0, retryCallNotPermitted: true });
    const down = new Error('down');
    const refusals = [new CallNotPermittedError('pg', 'OPEN'), new CallNotPermittedError('pg', 'OPEN')];
    let ran = 0;
    const error = await r
      .execute(() => {
        ran++;
        return Promise.reject(ran === 1 ? down : refusals[ran - 2]);
      })
      .catch((e: unknown) => e as CallNotPermittedError);
    expect(ran).toBe(3);
    expect(error).toBeInstanceOf(CallNotPermittedError);
    expect(error.cause).toBe(down);
  });

  it('a refusal at the first attempt has nothing behind it and is rethrown as it is', async () => {
    const refusal = new CallNotPermittedError('pg', 'OPEN');
    await expect(retry().execute(() => Promise.reject(refusal))).rejects.toBe(refusal);
  });
});
