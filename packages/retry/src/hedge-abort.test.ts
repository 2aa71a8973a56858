import { getEventListeners } from 'node:events';
import { VirtualClock } from '@breakwater/core';
import { track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Hedge, RetryBudget } from './index.js';
import { manualAttempts } from '../test/hedge-support.js';

// The caller's signal and the budget (contract: docs/hedging.md).

let clock: VirtualClock;
let caller: AbortController;

beforeEach(() => {
  clock = new VirtualClock();
  caller = new AbortController();
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
  expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
});

describe("Hedge: the caller's signal", () => {
  it('rejects without any attempt when the signal has already aborted', async () => {
    const hedge = new Hedge('search', { clock });
    caller.abort('gone');
    const { fn, attempts } = manualAttempts(clock);
    await expect(hedge.execute(fn, { signal: caller.signal })).rejects.toBe('gone');
    expect(attempts).toHaveLength(0);
    expect(hedge.metrics.numberOfFailedCalls).toBe(0); // never entered: not a call
  });

  it("rejects at once with the reason, aborts every attempt's signal with it, clears the timer and starts nothing more", async () => {
    const hedge = new Hedge('search', { clock, delay: 100, maxHedgedAttempts: 3 });
    const errors: unknown[] = [];
    hedge.on('error', (e) => errors.push([e.attempts, e.error]));
    const { fn, attempts } = manualAttempts(clock); // they ignore their signals
    const call = track(hedge.execute(fn, { signal: caller.signal }));
    await clock.advance(150);
    expect(attempts).toHaveLength(2);
    const reason = new Error('client left');
    caller.abort(reason);
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(0);
    expect(call.error).toBe(reason);
    expect(attempts.map((a) => [a.ctx.signal.aborted, a.ctx.signal.reason])).toEqual([
      [true, reason],
      [true, reason],
    ]);
    await clock.advance(1000);
    expect(attempts).toHaveLength(2);
    attempts[0]!.reject(reason); // late outcomes are swallowed (no unhandled rejection)
    attempts[1]!.resolve('late');
    await clock.advance(0);
    expect(errors).toEqual([[2, reason]]);
    expect(hedge.metrics).toEqual({
      numberOfSuccessfulCalls: 0,
      numberOfFailedCalls: 1,
      numberOfHedgedAttempts: 1,
      numberOfHedgesRefusedByBudget: 0,
      winsByAttempt: [0, 0, 0, 0],
    });
  });

  it('rejects at once even when a winner is known and the call waits for a loser', async () => {
    const hedge = new Hedge('search', { clock, delay: 0 });
    const { fn, attempts } = manualAttempts(clock);
    const call = track(hedge.execute(fn, { signal: caller.signal }));
    attempts[1]!.resolve('won');
    await clock.advance(0);
    expect(call.settled).toBe(false); // the primary ignores its abort
    caller.abort('stop');
    await clock.advance(0);
    expect(call.error).toBe('stop');
    attempts[0]!.resolve('late');
    await clock.advance(0);
    expect(hedge.metrics.numberOfFailedCalls).toBe(1);
    expect(hedge.metrics.winsByAttempt).toEqual([0, 0]);
  });

  it('removes its abort listener when the call ends normally', async () => {
    const hedge = new Hedge('search', { clock, delay: 100 });
    const { fn, attempts } = manualAttempts(clock);
    const call = track(hedge.execute(fn, { signal: caller.signal }));
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    attempts[0]!.resolve('ok');
    await clock.advance(0);
    expect(call.value).toBe('ok');
  });

  it('adds one listener to a signal shared by many calls', async () => {
    const hedge = new Hedge('search', { clock, delay: 0 });
    const { fn, attempts } = manualAttempts(clock);
    const calls = [1, 2, 3].map(() => track(hedge.execute(fn, { signal: caller.signal })));
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    for (const a of attempts) a.resolve('ok');
    await clock.advance(0);
    expect(calls.map((c) => c.value)).toEqual(['ok', 'ok', 'ok']);
  });

  it('rejects bad options without throwing synchronously', async () => {
    const hedge = new Hedge('search', { clock });
    await expect(hedge.execute(() => 1, { signal: {} as AbortSignal })).rejects.toThrow(TypeError);
  });
});

describe('Hedge: the budget', () => {
  it('counts each call and takes a retry per hedge; a refusal starts nothing more, and the running attempts go on', async () => {
    // A reserve of one retry and no ratio: the budget allows exactly one hedge in its window.
    const budget = new RetryBudget({ ratio: 0, minRetriesPerSecond: 1, ttl: '1s', clock });
    const hedge = new Hedge('search', { clock, delay: 100, maxHedgedAttempts: 3, budget });
    const refused: unknown[] = [];
    hedge.on('hedgeRefused', (e) => refused.push([e.attempt, e.at]));
    const { fn, attempts } = manualAttempts(clock);
    const call = track(hedge.execute(fn));
    await clock.advance(100);
    expect(attempts).toHaveLength(2);
    await clock.advance(100);
    expect(attempts).toHaveLength(2);
    expect(refused).toEqual([[3, 200]]);
    expect(clock.pendingTimers).toBe(0);
    expect(attempts.map((a) => a.ctx.signal.aborted)).toEqual([false, false]);
    attempts[1]!.reject(new Error('second'));
    await clock.advance(0);
    expect(attempts).toHaveLength(2); // no hedge after a failure either
    attempts[0]!.resolve('primary');
    await clock.advance(0);
    expect(call.value).toBe('primary');
    expect(budget.metrics).toMatchObject({ retriesAllowed: 1, retriesRefused: 1, callsInWindow: 1 });
    expect(hedge.metrics).toEqual({
      numberOfSuccessfulCalls: 1,
      numberOfFailedCalls: 0,
      numberOfHedgedAttempts: 1,
      numberOfHedgesRefusedByBudget: 1,
      winsByAttempt: [1, 0, 0, 0],
    });
  });

  it('ends with the primary’s failure when the budget refuses the hedge after it failed', async () => {
    const budget = new RetryBudget({ ratio: 0, minRetriesPerSecond: 0, clock });
    const hedge = new Hedge('search', { clock, delay: -1, budget });
    const { fn, attempts } = manualAttempts(clock);
    const call = track(hedge.execute(fn));
    attempts[0]!.reject('down');
    await clock.advance(0);
    expect(call.error).toBe('down');
    expect(attempts).toHaveLength(1);
    expect(hedge.metrics.numberOfHedgesRefusedByBudget).toBe(1);
  });

  it('rejects the call when the budget’s clock throws as the call is counted', async () => {
    let broken = false;
    const bad = {
      now: (): number => {
        if (broken) throw new Error('clock broke');
        return 0;
      },
      setTimeout: clock.setTimeout.bind(clock),
      clearTimeout: clock.clearTimeout.bind(clock),
    };
    const budget = new RetryBudget({ clock: bad });
    broken = true;
    const hedge = new Hedge('search', { clock, budget });
    await expect(hedge.execute(() => 1)).rejects.toThrow('clock broke');
  });
});
