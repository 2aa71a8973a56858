import { type CallContext, VirtualClock } from '@breakwater/core';
import { track, twoFaced } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Hedge, Retry } from './index.js';
import { manualAttempts } from '../test/hedge-support.js';

// What a hostile or unusual caller could do to a hedge, each held here (contract: docs/conventions.md).

let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

describe('Hedge: hardening', () => {
  it('settles and counts a call once when fn returns a promise whose then calls both handlers', async () => {
    const hedge = new Hedge('search', { clock, delay: 100 });
    await expect(hedge.execute(() => twoFaced('ok'))).resolves.toBe('ok');
    expect(hedge.metrics).toMatchObject({ numberOfSuccessfulCalls: 1, numberOfFailedCalls: 0, numberOfHedgedAttempts: 0 });
  });

  it('adopts a plain value and a thenable from fn', async () => {
    const hedge = new Hedge('search', { clock, delay: 100 });
    await expect(hedge.execute(() => 42)).resolves.toBe(42);
    const thenable = { then: (resolve: (v: string) => void) => resolve('thenable') };
    await expect(hedge.execute(() => thenable as unknown as PromiseLike<string>)).resolves.toBe('thenable');
  });

  it('never throws synchronously, even with a signal and a fn that throws', async () => {
    const caller = new AbortController();
    const hedge = new Hedge('search', { clock, delay: -1 });
    let n = 0;
    const call = hedge.execute(
      () => {
        n++;
        throw new Error(`sync ${n}`);
      },
      { signal: caller.signal },
    );
    await expect(call).rejects.toThrow('sync 1'); // the primary's failure
    expect(n).toBe(2);
  });

  it("a fn that aborts the caller's signal while it runs: the call rejects with the reason, nothing more starts", async () => {
    const caller = new AbortController();
    const hedge = new Hedge('search', { clock, delay: 0, maxHedgedAttempts: 3 });
    const contexts: CallContext[] = [];
    const call = track(
      hedge.execute(
        (ctx) => {
          contexts.push(ctx);
          caller.abort('from inside');
          return new Promise(() => {});
        },
        { signal: caller.signal },
      ),
    );
    await clock.advance(0);
    expect(call.error).toBe('from inside');
    expect(contexts).toHaveLength(1);
    expect(contexts[0]!.signal.reason).toBe('from inside');
  });

  it('decorate passes the arguments through execute', async () => {
    const hedge = new Hedge('search', { clock, delay: 100 });
    const add = hedge.decorate((a: number, b: number) => a + b);
    await expect(add(2, 3)).resolves.toBe(5);
  });

  it('numbers its attempts from 1 under a Retry that passes its own attempt down', async () => {
    const retry = new Retry('outer', { clock, maxAttempts: 2, waitDuration: 0 });
    const hedge = new Hedge('inner', { clock, delay: 0 });
    const seen: number[] = [];
    const result = retry.execute((outer) =>
      hedge.execute((ctx) => {
        seen.push(ctx.attempt);
        if (outer.attempt === 1) throw new Error('first round');
        return ctx.attempt;
      }, outer),
    );
    await expect(result).resolves.toBe(1);
    expect(seen).toEqual([1, 2, 1, 2]);
  });

  it('a hedge that outlives the primary settles the call when it, the last, settles (no signal)', async () => {
    const hedge = new Hedge('search', { clock, delay: 10 });
    const { fn, attempts } = manualAttempts(clock);
    const call = track(hedge.execute(fn));
    await clock.advance(10);
    attempts[0]!.resolve('primary');
    await clock.advance(0);
    expect(call.settled).toBe(false); // the hedge has not settled yet
    attempts[1]!.reject(new Error('aborted hedge'));
    await clock.advance(0);
    expect(call.value).toBe('primary');
    expect(hedge.metrics.winsByAttempt).toEqual([1, 0]);
  });
});
