import { VirtualClock } from '@breakwater/core';
import { track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MaxRetriesExceededError, Retry, RetryBudget } from './index.js';
import { scripted } from '../test/test-support.js';

let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

function deposits(budget: RetryBudget, n: number): void {
  for (let i = 0; i < n; i++) budget.recordCall();
}

function withdrawals(budget: RetryBudget, n: number): boolean[] {
  return Array.from({ length: n }, () => budget.tryRetry());
}

describe('RetryBudget: the rule retries + 1 <= ratio × calls + minRetriesPerSecond × ttl / 1000', () => {
  it('always allows the floor, minRetriesPerSecond × ttl in seconds, with no traffic at all', () => {
    const budget = new RetryBudget({ clock, ratio: 0, minRetriesPerSecond: 1, ttl: 10_000 });
    expect(withdrawals(budget, 11)).toEqual([...Array(10).fill(true), false]);
    expect(budget.metrics).toEqual({ retriesAllowed: 10, retriesRefused: 1, callsInWindow: 0, retriesInWindow: 10, availableRetries: 0 });
  });

  it('allows ratio × calls on top of the floor', () => {
    const budget = new RetryBudget({ clock, ratio: 0.2, minRetriesPerSecond: 0 });
    deposits(budget, 10);
    expect(budget.metrics.availableRetries).toBe(2);
    expect(withdrawals(budget, 3)).toEqual([true, true, false]);
    deposits(budget, 5);
    expect(withdrawals(budget, 2)).toEqual([true, false]);
  });

  it('counts 10 % of 10 calls as exactly one retry (no floating-point loss)', () => {
    const budget = new RetryBudget({ clock, ratio: 0.1, minRetriesPerSecond: 0 });
    deposits(budget, 10);
    expect(withdrawals(budget, 2)).toEqual([true, false]);
  });

  it('with ratio 0 and no floor never allows a retry', () => {
    const budget = new RetryBudget({ clock, ratio: 0, minRetriesPerSecond: 0 });
    deposits(budget, 1000);
    expect(budget.tryRetry()).toBe(false);
  });

  it('forgets calls and retries after ttl, in tenths of it', async () => {
    const budget = new RetryBudget({ clock, ratio: 1, minRetriesPerSecond: 0, ttl: 10_000 });
    deposits(budget, 3); // slice [0, 1000)
    await clock.advance(999);
    deposits(budget, 1); // still slice 0
    expect(withdrawals(budget, 5)).toEqual([true, true, true, true, false]);
    await clock.advance(9_000); // t = 9999: slice 9, slice 0 still in the window
    expect(budget.metrics).toMatchObject({ callsInWindow: 4, retriesInWindow: 4 });
    expect(budget.tryRetry()).toBe(false);
    await clock.advance(1); // t = 10 000: slice 0 has left
    expect(budget.metrics).toMatchObject({ callsInWindow: 0, retriesInWindow: 0, availableRetries: 0 });
    deposits(budget, 1);
    expect(withdrawals(budget, 2)).toEqual([true, false]);
  });

  it('is shared: the retries of one Retry use up the budget of another', async () => {
    const budget = new RetryBudget({ clock, ratio: 0, minRetriesPerSecond: 0.1, ttl: 10_000 }); // one retry per 10 s
    const pg = new Retry('pg', { clock, budget, waitDuration: 0, maxAttempts: 3 });
    const cache = new Retry('cache', { clock, budget, waitDuration: 0, maxAttempts: 3 });
    const first = scripted(clock, [{ reject: 'pg down' }, { value: 'pg ok' }]);
    await expect(pg.execute(first.fn)).resolves.toBe('pg ok');
    const second = scripted(clock, [{ reject: 'cache down' }, { value: 'never' }]);
    await expect(cache.execute(second.fn)).rejects.toBe('cache down');
    expect(second.starts).toHaveLength(1);
    expect(budget.metrics).toMatchObject({ retriesAllowed: 1, retriesRefused: 1, callsInWindow: 2 });
  });
});

describe('Retry with a budget', () => {
  it('rethrows the last error at once when the budget refuses: no wait, no timer, an error event', async () => {
    const budget = new RetryBudget({ clock, ratio: 0, minRetriesPerSecond: 0 });
    const r = new Retry('pg', { clock, budget, waitDuration: 1000, maxAttempts: 5 });
    const events: string[] = [];
    r.on('*', (e) => events.push(e.type));
    const boom = new Error('down');
    const { fn, starts } = scripted(clock, [{ reject: boom }]);
    const call = r.execute(fn);
    await expect(call).rejects.toBe(boom);
    expect(starts).toEqual([0]);
    expect(events).toEqual(['error']);
    expect(r.metrics.numberOfFailedCallsWithoutRetryAttempt).toBe(1);
    expect(budget.metrics).toMatchObject({ retriesAllowed: 0, retriesRefused: 1, callsInWindow: 1 });
  });

  it('stops in the middle of a call when the budget runs out', async () => {
    const budget = new RetryBudget({ clock, ratio: 0, minRetriesPerSecond: 0.2, ttl: 10_000 }); // two retries
    const r = new Retry('pg', { clock, budget, waitDuration: 100, maxAttempts: 10 });
    const { fn, starts } = scripted(clock, [{ reject: 'e1' }, { reject: 'e2' }, { reject: 'e3' }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call.error).toBe('e3');
    expect(starts).toEqual([0, 100, 200]);
    expect(r.metrics.numberOfFailedCallsWithRetryAttempt).toBe(1);
  });

  it('counts one call per execute, retried or not', async () => {
    const budget = new RetryBudget({ clock });
    const r = new Retry('pg', { clock, budget, waitDuration: 0 });
    await r.execute(() => 1);
    await r.execute(scripted(clock, [{ reject: 'x' }, { value: 2 }]).fn);
    expect(budget.metrics).toMatchObject({ callsInWindow: 2, retriesInWindow: 1 });
  });

  it('takes nothing from the budget for an error that is not retried anyway', async () => {
    const budget = new RetryBudget({ clock });
    const r = new Retry('pg', { clock, budget, waitDuration: 0, retryOnException: () => false });
    await expect(r.execute(scripted(clock, [{ reject: 'x' }]).fn)).rejects.toBe('x');
    expect(budget.metrics).toMatchObject({ retriesAllowed: 0, retriesRefused: 0 });
  });

  it('ends a value retry refused by the budget like an exhausted one', async () => {
    const budget = new RetryBudget({ clock, ratio: 0, minRetriesPerSecond: 0 });
    const lenient = new Retry('pg', { clock, budget, retryOnResult: (v) => v === 'busy' });
    await expect(lenient.execute(() => 'busy')).resolves.toBe('busy');
    const strict = new Retry('pg', { clock, budget, retryOnResult: (v) => v === 'busy', failAfterMaxAttempts: true });
    const error = await strict.execute(() => 'busy').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MaxRetriesExceededError);
    expect((error as MaxRetriesExceededError).attempts).toBe(1);
  });
});
