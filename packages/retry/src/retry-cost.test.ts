import { VirtualClock } from '@breakwater/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { scripted } from '../test/test-support.js';

// What keeps a call cheap, asserted through the adapter's one way into p-retry
// (`runAttemptsAfterFirst`) and its options builder (`loopOptions`), both spied on and otherwise
// unchanged: the success path never enters p-retry, a retried call enters it once, after its
// first attempt failed, and p-retry's options are built once per Retry.
const actual = vi.hoisted(() => ({ adapter: undefined as unknown as typeof import('./p-retry.js') }));
vi.mock('./p-retry.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('./p-retry.js')>();
  actual.adapter = original;
  return {
    ...original,
    runAttemptsAfterFirst: vi.fn(original.runAttemptsAfterFirst),
    loopOptions: vi.fn(original.loopOptions),
  };
});

const adapter = await import('./p-retry.js');
const { Retry } = await import('./index.js');
const enterPRetry = vi.mocked(adapter.runAttemptsAfterFirst);
const buildOptions = vi.mocked(adapter.loopOptions);

let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
  enterPRetry.mockClear();
  buildOptions.mockClear();
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

describe('Retry: cost of the success path', () => {
  it('runs a call that succeeds at once without entering p-retry', async () => {
    const retry = new Retry('pg', { clock, retryOnResult: (v) => v === 'busy' });
    for (let i = 0; i < 5; i++) await expect(retry.execute(() => 'ok')).resolves.toBe('ok');
    expect(enterPRetry).not.toHaveBeenCalled();
  });

  it('enters p-retry once per call that needs a retry, once its first attempt has failed, for the attempts after the first', async () => {
    const retry = new Retry('pg', { clock, waitDuration: 0, maxAttempts: 4 });
    const { fn, starts } = scripted(clock, [{ reject: 'a' }, { reject: 'b' }, { value: 'c' }]);
    const attemptsBeforeEntering: number[] = [];
    enterPRetry.mockImplementationOnce((call, options) => {
      attemptsBeforeEntering.push(starts.length);
      return actual.adapter.runAttemptsAfterFirst(call, options);
    });
    await expect(retry.execute(fn)).resolves.toBe('c');
    expect(starts).toHaveLength(3);
    expect(enterPRetry).toHaveBeenCalledTimes(1);
    expect(attemptsBeforeEntering).toEqual([1]);
  });

  it('does not enter p-retry when the first failure is not to be retried or maxAttempts is 1', async () => {
    const ignoring = new Retry('pg', { clock, retryOnException: () => false });
    await expect(ignoring.execute(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    const once = new Retry('pg', { clock, maxAttempts: 1 });
    await expect(once.execute(() => Promise.reject(new Error('y')))).rejects.toThrow('y');
    expect(enterPRetry).not.toHaveBeenCalled();
  });

  it('builds the p-retry options once, at construction, not per call', async () => {
    const retry = new Retry('pg', { clock, waitDuration: 0 });
    expect(buildOptions).toHaveBeenCalledTimes(1);
    expect(buildOptions).toHaveBeenCalledWith(3);
    for (let i = 0; i < 2; i++) await expect(retry.execute(scripted(clock, [{ reject: 'a' }, { value: 'b' }]).fn)).resolves.toBe('b');
    expect(enterPRetry).toHaveBeenCalledTimes(2);
    expect(buildOptions).toHaveBeenCalledTimes(1);
  });

  it("p-retry's loop makes exactly the attempts after the first, and adds no delay nor real timer of its own", async () => {
    // What the options given to p-retry must say: retries = maxAttempts − 2 (its first attempt
    // is the call's second), a delay of 0 (p-retry sets no timer for it), no randomisation.
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    try {
      for (const maxAttempts of [2, 3, 5]) {
        const retry = new Retry('pg', { clock, waitDuration: 0, maxAttempts });
        const { fn, starts } = scripted(clock, [{ reject: 'a' }]);
        await expect(retry.execute(fn)).rejects.toBe('a');
        expect(starts).toHaveLength(maxAttempts);
      }
      expect(setTimeoutSpy).not.toHaveBeenCalled();
    } finally {
      setTimeoutSpy.mockRestore();
    }
    const waiting = new Retry('pg', { clock, waitDuration: 100, maxAttempts: 3 });
    const { fn, starts } = scripted(clock, [{ reject: 'a' }, { reject: 'b' }, { value: 'c' }]);
    const call = waiting.execute(fn);
    await clock.advance(200);
    await expect(call).resolves.toBe('c');
    expect(starts).toEqual([0, 100, 200]);
  });
});
