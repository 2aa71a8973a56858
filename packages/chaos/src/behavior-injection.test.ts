import { sleep, VirtualClock, type CallContext } from '@breakwater/core';
import { deferred, track } from '@breakwater/test-support';
import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { realFn } from '../test/strategies.js';
import { BehaviorInjection } from './index.js';

// The behaviour strategy (contract: docs/chaos.md): a behaviour of the user's, awaited before fn.

const on = { enabled: true, rate: 1, random: () => 0 } as const;

describe('BehaviorInjection', () => {
  it('runs the behaviour with the call’s context, awaits it, then calls fn; the event comes first', async () => {
    const clock = new VirtualClock();
    const order: string[] = [];
    const b = new BehaviorInjection('pg', {
      ...on,
      clock,
      behavior: async (ctx: CallContext) => {
        order.push(`behavior ${ctx.attempt}`);
        await sleep(clock, 100);
        order.push('behaved');
      },
    });
    b.on('injected', (e) => order.push(`event ${e.strategy} ${e.attempt}`));
    const callPromise = b.execute(() => (order.push(`fn at ${clock.now()}`), 'real'), { signal: new AbortController().signal, attempt: 2 });
    const call = track(callPromise);
    await clock.advance(99);
    expect(call.settled).toBe(false);
    await clock.advance(1);
    expect(await callPromise).toBe('real');
    expect(order).toEqual(['event behavior 2', 'behavior 2', 'behaved', 'fn at 100']);
    expect(clock.pendingTimers).toBe(0);
    expect(b.metrics).toEqual({ numberOfInjectedCalls: 1, numberOfCallsNotInjected: 0 });
  });

  it('a behaviour that throws or rejects fails the call with that error; fn is not called (as in Polly)', async () => {
    const thrown = new Error('sync');
    const rejected = new Error('async');
    const fn = realFn();
    const sync = new BehaviorInjection('a', {
      ...on,
      behavior: () => {
        throw thrown;
      },
    });
    const async = new BehaviorInjection('b', { ...on, behavior: () => Promise.reject(rejected) });
    await expect(sync.execute(fn)).rejects.toBe(thrown);
    await expect(async.execute(fn)).rejects.toBe(rejected);
    expect(fn.calls).toBe(0);
    expect(sync.metrics).toEqual({ numberOfInjectedCalls: 1, numberOfCallsNotInjected: 0 });
  });

  it('a caller’s abort during the behaviour rejects at once; fn is never called, even when the behaviour ends later', async () => {
    const done = deferred();
    const b = new BehaviorInjection('a', { ...on, behavior: () => done.promise });
    const ac = new AbortController();
    const fn = realFn();
    const call = b.execute(fn, { signal: ac.signal });
    ac.abort('enough');
    await expect(call).rejects.toBe('enough');
    done.resolve();
    await done.promise;
    await new Promise((resolve) => setImmediate(resolve));
    expect(fn.calls).toBe(0);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('not injected: the behaviour does not run', async () => {
    const behavior = vi.fn();
    const b = new BehaviorInjection('a', { enabled: true, rate: 0.5, random: () => 0.5, behavior });
    expect(await b.execute(realFn())).toBe('real');
    expect(behavior).not.toHaveBeenCalled();
  });
});
