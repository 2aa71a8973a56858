import { type CallContext, VirtualClock } from '@breakwater/core';
import { deferred, track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Hedge, type HedgeConfig, type HedgeMetrics } from './index.js';
import { manualAttempts } from '../test/hedge-support.js';

// Polly's HedgingResilienceStrategyTests, in our own words (contract: docs/hedging.md).

let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

function hedgeOf(config: HedgeConfig = {}): Hedge {
  return new Hedge('search', { clock, ...config });
}

function metrics(m: Partial<HedgeMetrics> & { winsByAttempt: number[] }): HedgeMetrics {
  return { numberOfSuccessfulCalls: 0, numberOfFailedCalls: 0, numberOfHedgedAttempts: 0, numberOfHedgesRefusedByBudget: 0, ...m };
}

describe('Hedge: the delay', () => {
  it('starts the second attempt when the delay elapses without an answer, with its own signal and attempt 2', async () => {
    const hedge = hedgeOf({ delay: 100 });
    const { fn, attempts } = manualAttempts(clock);
    const call = track(hedge.execute(fn));
    await clock.advance(99);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.ctx.attempt).toBe(1);
    await clock.advance(1);
    expect(attempts.map((a) => [a.ctx.attempt, a.startedAt])).toEqual([
      [1, 0],
      [2, 100],
    ]);
    expect(attempts[1]!.ctx.signal).not.toBe(attempts[0]!.ctx.signal);
    expect(clock.pendingTimers).toBe(0); // maxHedgedAttempts 1: nothing more to start
    attempts[1]!.resolve('second');
    attempts[0]!.resolve('late');
    await clock.advance(0);
    expect(call.value).toBe('second');
    expect(hedge.metrics).toEqual(metrics({ numberOfSuccessfulCalls: 1, numberOfHedgedAttempts: 1, winsByAttempt: [0, 1] }));
  });

  it('starts no hedge when the primary answers within the delay, and clears its timer', async () => {
    const hedge = hedgeOf({ delay: 100 });
    const { fn, attempts } = manualAttempts(clock);
    const call = track(hedge.execute(fn));
    await clock.advance(50);
    expect(clock.pendingTimers).toBe(1);
    attempts[0]!.resolve('fast');
    await clock.advance(0);
    expect(call.value).toBe('fast');
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(1000);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.ctx.signal.aborted).toBe(false);
    expect(hedge.metrics).toEqual(metrics({ numberOfSuccessfulCalls: 1, winsByAttempt: [1, 0] }));
  });

  it('defaults to one hedge after 2 s', async () => {
    const hedge = hedgeOf();
    expect(hedge.config.maxHedgedAttempts).toBe(1);
    expect(hedge.config.delay).toEqual({ kind: 'fixed', ms: 2000 });
    const { fn, attempts } = manualAttempts(clock);
    const call = track(hedge.execute(fn));
    await clock.advance(1999);
    expect(attempts).toHaveLength(1);
    await clock.advance(1);
    expect(attempts).toHaveLength(2);
    attempts[0]!.resolve(1);
    attempts[1]!.resolve(2);
    await clock.advance(0);
    expect(call.value).toBe(1);
  });

  it('re-arms the delay from each hedged attempt’s start, up to maxHedgedAttempts', async () => {
    const hedge = hedgeOf({ delay: 100, maxHedgedAttempts: 3 });
    const { fn, attempts } = manualAttempts(clock, { rejectOnAbort: true });
    const call = track(hedge.execute(fn));
    await clock.advance(1000);
    expect(attempts.map((a) => a.startedAt)).toEqual([0, 100, 200, 300]);
    expect(clock.pendingTimers).toBe(0);
    attempts[2]!.resolve('third');
    await clock.advance(0);
    expect(call.value).toBe('third');
    expect(attempts.map((a) => a.abortedAt)).toEqual([1000, 1000, undefined, 1000]);
    expect(hedge.metrics).toEqual(metrics({ numberOfSuccessfulCalls: 1, numberOfHedgedAttempts: 3, winsByAttempt: [0, 0, 1, 0] }));
  });

  it('starts every attempt at once with delay 0', async () => {
    const hedge = hedgeOf({ delay: 0, maxHedgedAttempts: 3 });
    const { fn, attempts } = manualAttempts(clock, { rejectOnAbort: true });
    const call = track(hedge.execute(fn));
    expect(attempts.map((a) => [a.ctx.attempt, a.startedAt])).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
      [4, 0],
    ]);
    expect(clock.pendingTimers).toBe(0);
    attempts[3]!.resolve('fourth');
    await clock.advance(0);
    expect(call.value).toBe('fourth');
    expect(attempts.map((a) => a.ctx.signal.aborted)).toEqual([true, true, true, false]);
  });

  it('with a negative delay starts the next attempt only when the previous one failed, never two at once (Polly’s fallback mode)', async () => {
    const hedge = hedgeOf({ delay: -1, maxHedgedAttempts: 2 });
    const { fn, attempts } = manualAttempts(clock);
    const call = track(hedge.execute(fn));
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(10_000);
    expect(attempts).toHaveLength(1);
    attempts[0]!.reject(new Error('one'));
    await clock.advance(5);
    expect(attempts.map((a) => a.startedAt)).toEqual([0, 10_000]);
    attempts[1]!.reject(new Error('two'));
    await clock.advance(0);
    expect(attempts).toHaveLength(3);
    attempts[2]!.resolve('three');
    await clock.advance(0);
    expect(call.value).toBe('three');
  });
});

describe('Hedge: failures', () => {
  it('starts the next attempt at once after a handled failure, and re-arms the delay from there', async () => {
    const hedge = hedgeOf({ delay: 100, maxHedgedAttempts: 2 });
    const { fn, attempts } = manualAttempts(clock);
    const events: unknown[] = [];
    hedge.on('hedge', (e) => events.push([e.attempt, e.delayMs, e.reason, e.at]));
    const call = track(hedge.execute(fn));
    await clock.advance(30);
    attempts[0]!.reject(new Error('down'));
    await clock.advance(0);
    expect(attempts.map((a) => a.startedAt)).toEqual([0, 30]);
    await clock.advance(100);
    expect(attempts.map((a) => a.startedAt)).toEqual([0, 30, 130]);
    expect(events).toEqual([
      [2, 0, 'failure', 30],
      [3, 100, 'delay', 130],
    ]);
    attempts[1]!.resolve('b');
    attempts[2]!.resolve('c');
    await clock.advance(0);
    expect(call.value).toBe('b');
    expect(attempts[0]!.ctx.signal.aborted).toBe(true); // failed, and not the winner
  });

  it('lets the first unhandled outcome win: an error shouldHandle declines ends the call with that error', async () => {
    class Fatal extends Error {}
    const hedge = hedgeOf({ delay: 100, shouldHandle: (o) => 'error' in o && !(o.error instanceof Fatal) });
    const { fn, attempts } = manualAttempts(clock, { rejectOnAbort: true });
    const call = track(hedge.execute(fn));
    await clock.advance(100);
    const fatal = new Fatal('no');
    attempts[1]!.reject(fatal);
    await clock.advance(0);
    expect(call.error).toBe(fatal);
    expect(attempts[0]!.ctx.signal.aborted).toBe(true);
    expect(hedge.metrics).toEqual(metrics({ numberOfFailedCalls: 1, numberOfHedgedAttempts: 1, winsByAttempt: [0, 1] }));
  });

  it('rejects with an unhandled primary error at once, starting no hedge', async () => {
    const hedge = hedgeOf({ delay: 100, shouldHandle: () => false });
    const { fn, attempts } = manualAttempts(clock);
    const call = track(hedge.execute(fn));
    attempts[0]!.reject('fatal');
    await clock.advance(0);
    expect(call.error).toBe('fatal');
    expect(attempts).toHaveLength(1);
  });

  it('gives the caller the primary’s failure when every attempt fails, even when the primary fails last (delays -1, 0 and 1 s)', async () => {
    for (const delay of [-1, 0, 1000]) {
      const hedge = hedgeOf({ delay, maxHedgedAttempts: 2 });
      const { fn, attempts } = manualAttempts(clock);
      const primary = new Error('primary');
      const call = track(hedge.execute(fn));
      await clock.advance(0);
      if (delay < 0) {
        // fallback mode: the primary must fail first
        attempts[0]!.reject(primary);
        await clock.advance(0);
        attempts[1]!.reject(new Error('second'));
        await clock.advance(0);
        attempts[2]!.reject(new Error('third'));
      } else {
        await clock.advance(2 * delay);
        expect(attempts).toHaveLength(3);
        attempts[2]!.reject(new Error('third'));
        attempts[1]!.reject(new Error('second'));
        await clock.advance(0);
        expect(call.settled).toBe(false);
        attempts[0]!.reject(primary);
      }
      await clock.advance(0);
      expect(call.error).toBe(primary);
      expect(hedge.metrics).toEqual(metrics({ numberOfFailedCalls: 1, numberOfHedgedAttempts: 2, winsByAttempt: [1, 0, 0] }));
    }
  });

  it('treats a sync throw like a rejection (a handled failure)', async () => {
    const hedge = hedgeOf({ delay: 100 });
    let n = 0;
    const call = track(
      hedge.execute(() => {
        if (++n === 1) throw new Error('sync');
        return 'second';
      }),
    );
    await clock.advance(0);
    expect(call.value).toBe('second');
    expect(n).toBe(2);
  });

  it('hedges past a result shouldHandle handles, and resolves with the primary’s result when every attempt’s was handled', async () => {
    const hedge = hedgeOf({ delay: 100, maxHedgedAttempts: 2, shouldHandle: (o) => 'result' in o && o.result === 503 });
    const errors: unknown[] = [];
    hedge.on('error', (e) => errors.push([e.attempts, e.error]));
    let n = 0;
    const codes = [503, 503, 200];
    const call = track(hedge.execute(() => codes[n++]));
    await clock.advance(0);
    expect(call.value).toBe(200);
    n = 0;
    codes[2] = 503;
    const second = track(hedge.execute(() => codes[n++]));
    await clock.advance(0);
    expect(second.value).toBe(503);
    expect(errors).toEqual([[3, 503]]);
    expect(hedge.metrics).toEqual(metrics({ numberOfSuccessfulCalls: 1, numberOfFailedCalls: 1, numberOfHedgedAttempts: 4, winsByAttempt: [1, 0, 1] }));
  });
});

describe('Hedge: the losers', () => {
  it('aborts every loser through its own signal and settles the call only once every loser has settled', async () => {
    const hedge = hedgeOf({ delay: 0, maxHedgedAttempts: 2 });
    const { fn, attempts } = manualAttempts(clock); // the attempts ignore their signals
    const call = track(hedge.execute(fn));
    attempts[1]!.resolve('winner');
    await clock.advance(0);
    expect(attempts.map((a) => a.ctx.signal.aborted)).toEqual([true, false, true]);
    expect(call.settled).toBe(false);
    attempts[0]!.resolve('loser');
    await clock.advance(0);
    expect(call.settled).toBe(false);
    attempts[2]!.reject(new Error('aborted late')); // a loser's rejection is no unhandled rejection
    await clock.advance(0);
    expect(call.value).toBe('winner');
    expect(hedge.metrics.winsByAttempt).toEqual([0, 1, 0]);
  });

  it('keeps a hedge’s winner even when the primary, already a loser, succeeds afterwards', async () => {
    const hedge = hedgeOf({ delay: 10 });
    const { fn, attempts } = manualAttempts(clock);
    const call = track(hedge.execute(fn));
    await clock.advance(10);
    attempts[1]!.resolve('hedge');
    await clock.advance(0);
    attempts[0]!.resolve('primary');
    await clock.advance(0);
    expect(call.value).toBe('hedge');
  });

  it('aborts a loser with an AbortError that names the winner; a signal first read after the loss is aborted already', async () => {
    const hedge = hedgeOf({ delay: 0 });
    const contexts: CallContext[] = [];
    const gates = [deferred<string>(), deferred<string>()];
    const call = track(
      hedge.execute((ctx) => {
        contexts.push(ctx);
        return gates[ctx.attempt - 1]!.promise;
      }),
    );
    gates[1]!.resolve('second');
    await clock.advance(0);
    const signal = contexts[0]!.signal; // read for the first time now
    expect(signal).toBe(contexts[0]!.signal);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(DOMException);
    expect([signal.reason.name, signal.reason.message]).toEqual(['AbortError', "hedged attempt 1 lost: the call took attempt 2's outcome"]);
    expect(contexts[1]!.signal.aborted).toBe(false);
    gates[0]!.reject(signal.reason);
    await clock.advance(0);
    expect(call.value).toBe('second');
  });

  it('builds no AbortController for an attempt that never reads its signal', async () => {
    const built = vi.spyOn(globalThis, 'AbortController');
    try {
      const hedge = hedgeOf({ delay: 100 });
      await expect(hedge.execute(() => 'fast')).resolves.toBe('fast');
      expect(built).not.toHaveBeenCalled();
    } finally {
      built.mockRestore();
    }
  });
});
