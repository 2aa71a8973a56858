import { VirtualClock } from '@breakwater/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { scripted } from './test-helpers.js';

// Count p-retry's calls, keeping its behaviour.
const calls = vi.hoisted(() => ({ pRetry: 0, options: [] as unknown[] }));
vi.mock('p-retry', async (importOriginal) => {
  const original = await importOriginal<typeof import('p-retry')>();
  return {
    ...original,
    default: (...args: Parameters<typeof original.default>) => {
      calls.pRetry++;
      calls.options.push(args[1]);
      return original.default(...args);
    },
  };
});

const { Retry } = await import('./index.js');

let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
  calls.pRetry = 0;
  calls.options = [];
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

describe('Retry: cost of the success path', () => {
  it('runs a call that succeeds at once without entering p-retry', async () => {
    const retry = new Retry('pg', { clock, retryOnResult: (v) => v === 'busy' });
    for (let i = 0; i < 5; i++) await retry.execute(() => 'ok');
    expect(calls.pRetry).toBe(0);
  });

  it('enters p-retry once per call that needs a retry, for the attempts after the first', async () => {
    const retry = new Retry('pg', { clock, waitDuration: 0, maxAttempts: 4 });
    const { fn, starts } = scripted(clock, [{ reject: 'a' }, { reject: 'b' }, { value: 'c' }]);
    await expect(retry.execute(fn)).resolves.toBe('c');
    expect(starts).toHaveLength(3);
    expect(calls.pRetry).toBe(1);
  });

  it('does not enter p-retry when the first failure is not to be retried or maxAttempts is 1', async () => {
    const ignoring = new Retry('pg', { clock, retryOnException: () => false });
    await expect(ignoring.execute(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    const once = new Retry('pg', { clock, maxAttempts: 1 });
    await expect(once.execute(() => Promise.reject(new Error('y')))).rejects.toThrow('y');
    expect(calls.pRetry).toBe(0);
  });

  it('builds the p-retry options once, at construction', async () => {
    const retry = new Retry('pg', { clock, waitDuration: 0 });
    for (let i = 0; i < 2; i++) await retry.execute(scripted(clock, [{ reject: 'a' }, { value: 'b' }]).fn);
    expect(calls.pRetry).toBe(2);
    expect(calls.options[0]).toBeDefined();
    expect(calls.options[1]).toBe(calls.options[0]);
    expect(calls.options[0]).toMatchObject({ retries: 1, minTimeout: 0, maxTimeout: 0, randomize: false });
  });
});
