import { MaxRetriesExceededError, VirtualClock } from '@breakwater/core';
import { track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Retry, type RetryConfig } from './index.js';
import { scripted } from '../test/test-support.js';

let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

function retry(config: RetryConfig = {}): Retry {
  return new Retry('pg', { clock, ...config });
}

const NO_CALLS = {
  numberOfSuccessfulCallsWithoutRetryAttempt: 0,
  numberOfSuccessfulCallsWithRetryAttempt: 0,
  numberOfFailedCallsWithoutRetryAttempt: 0,
  numberOfFailedCallsWithRetryAttempt: 0,
};

describe('Retry: results', () => {
  it('retries a value retryOnResult accepts and returns the first one it does not', async () => {
    const r = retry({ waitDuration: 200, retryOnResult: (res: { status: number }) => res.status === 503 });
    const { fn, starts } = scripted(clock, [{ value: { status: 503 } }, { value: { status: 200 } }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call.value).toEqual({ status: 200 });
    expect(starts).toEqual([0, 200]);
    expect(r.metrics).toEqual({ ...NO_CALLS, numberOfSuccessfulCallsWithRetryAttempt: 1 });
  });

  it('returns the last value when it is still to be retried after the last attempt (counted as failed)', async () => {
    const r = retry({ maxAttempts: 3, waitDuration: 0, retryOnResult: (v: string) => v === 'busy' });
    const errors: unknown[] = [];
    r.on('error', (e) => errors.push(e));
    const { fn, starts } = scripted(clock, [{ value: 'busy' }]);
    await expect(r.execute(fn)).resolves.toBe('busy');
    expect(starts).toHaveLength(3);
    expect(r.metrics).toEqual({ ...NO_CALLS, numberOfFailedCallsWithRetryAttempt: 1 });
    expect(errors).toHaveLength(1);
    const error = (errors[0] as { error: MaxRetriesExceededError }).error;
    expect(error).toBeInstanceOf(MaxRetriesExceededError);
    expect(error.lastResult).toBe('busy');
  });

  it('exhausted on a value after an earlier attempt threw: the error event still carries a MaxRetriesExceededError with the value (Resilience4j: the exception thrown)', async () => {
    const r = retry({ maxAttempts: 3, waitDuration: 0, retryOnResult: (v: string) => v === 'busy' });
    const errors: unknown[] = [];
    r.on('error', (e) => errors.push(e.error));
    const { fn } = scripted(clock, [{ reject: new Error('down') }, { value: 'busy' }]);
    await expect(r.execute(fn)).resolves.toBe('busy');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(MaxRetriesExceededError);
    expect((errors[0] as MaxRetriesExceededError).lastResult).toBe('busy');
  });

  it('asks retryOnResult about undefined and null too, as Resilience4j’s RetryImpl does (unlike a breaker’s recordResult)', async () => {
    const asked: unknown[] = [];
    const r = retry({ maxAttempts: 3, waitDuration: 0, retryOnResult: (v: unknown) => (asked.push(v), v == null) });
    const { fn, starts } = scripted(clock, [{ value: undefined }, { value: null }, { value: 'ok' }]);
    await expect(r.execute(fn)).resolves.toBe('ok');
    expect([starts.length, asked]).toEqual([3, [undefined, null, 'ok']]);
  });

  it('with failAfterMaxAttempts rejects with MaxRetriesExceededError {retryName, attempts, lastResult}', async () => {
    const r = retry({ maxAttempts: 3, waitDuration: 0, retryOnResult: (v: string) => v === 'busy', failAfterMaxAttempts: true });
    const { fn } = scripted(clock, [{ value: 'busy' }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    const error = call.error as MaxRetriesExceededError;
    expect(error).toBeInstanceOf(MaxRetriesExceededError);
    expect(error.name).toBe('MaxRetriesExceededError');
    expect(error.retryName).toBe('pg');
    expect(error.attempts).toBe(3);
    expect(error.lastResult).toBe('busy');
    expect(error.message).toBe("Retry 'pg' has exhausted its 3 attempts and the result is still to be retried");
  });

  it('calls consumeResultBeforeRetryAttempt with each retried value before its wait, not after the last attempt', async () => {
    const consumed: [number, unknown, number][] = [];
    const r = retry({
      maxAttempts: 3,
      waitDuration: 100,
      retryOnResult: (v: string) => v.startsWith('busy'),
      consumeResultBeforeRetryAttempt: (attempt, value) => consumed.push([attempt, value, clock.now()]),
    });
    const { fn } = scripted(clock, [{ value: 'busy 1' }, { value: 'busy 2' }, { value: 'busy 3' }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call.value).toBe('busy 3');
    expect(consumed).toEqual([
      [1, 'busy 1', 0],
      [2, 'busy 2', 100],
    ]);
  });

  it('mixes errors and retried values in one call', async () => {
    const r = retry({ maxAttempts: 4, waitDuration: 10, retryOnResult: (v) => v === 'busy' });
    const { fn, starts } = scripted(clock, [{ reject: new Error('down') }, { value: 'busy' }, { throw: 'oops' }, { value: 'done' }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call.value).toBe('done');
    expect(starts).toEqual([0, 10, 20, 30]);
  });
});

// Throwing callbacks (predicates, consumer, interval functions) are contained: retry-hardening.test.ts.
