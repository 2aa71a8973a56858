import { VirtualClock, type CallContext } from '@breakwater/core';
import { deferred } from '@breakwater/test-support';
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { realFn } from '../test/strategies.js';
import { OutcomeInjection } from './index.js';

// The outcome strategy (contract: docs/chaos.md): a fake result instead of calling fn.

afterEach(() => {
  vi.restoreAllMocks();
});

const on = { enabled: true, rate: 1, random: () => 0 } as const;

describe('OutcomeInjection', () => {
  it('resolves with the outcome, fn not called; the injected event carries it', async () => {
    const clock = new VirtualClock(3);
    const fake = { status: 503 };
    const o = new OutcomeInjection('inventory', { ...on, outcome: fake, clock });
    const events = vi.fn();
    o.on('injected', events);
    const fn = realFn();
    expect(await o.execute(fn)).toBe(fake);
    expect(fn.calls).toBe(0);
    expect(events).toHaveBeenCalledWith(expect.objectContaining({ type: 'injected', name: 'inventory', at: 3, strategy: 'outcome', attempt: 1, result: fake }));
    expect(o.metrics).toEqual({ numberOfInjectedCalls: 1, numberOfCallsNotInjected: 0 });
  });

  it('a function of the call generates the outcome; undefined from it is a result like any other', async () => {
    const seen: CallContext[] = [];
    const results = ['a', undefined];
    const o = new OutcomeInjection('x', { ...on, outcome: (ctx: CallContext) => (seen.push(ctx), results.shift()) });
    const fn = realFn();
    const ctx = { signal: new AbortController().signal, attempt: 2 };
    expect(await o.execute(fn, ctx)).toBe('a');
    expect(await o.execute(fn)).toBe(undefined);
    expect(seen[0]).toBe(ctx);
    expect(fn.calls).toBe(0);
    expect(o.metrics).toEqual({ numberOfInjectedCalls: 2, numberOfCallsNotInjected: 0 });
  });

  it('a promise (or thenable) outcome is adopted: a rejected one fails the call', async () => {
    const boom = new Error('fake failure');
    expect(await new OutcomeInjection('x', { ...on, outcome: Promise.resolve(7) }).execute(realFn())).toBe(7);
    expect(await new OutcomeInjection('x', { ...on, outcome: () => ({ then: (resolve: (v: number) => void) => resolve(8) }) }).execute(realFn())).toBe(8);
    await expect(new OutcomeInjection('x', { ...on, outcome: () => Promise.reject(boom) }).execute(realFn())).rejects.toBe(boom);
  });

  it('a pending outcome and a caller’s abort: rejects at once with the reason; no listener left', async () => {
    const later = deferred<string>();
    const o = new OutcomeInjection('x', { ...on, outcome: () => later.promise });
    const ac = new AbortController();
    const call = o.execute(realFn(), { signal: ac.signal });
    ac.abort('stop');
    await expect(call).rejects.toBe('stop');
    later.resolve('too late');
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('a generator that throws: not injected, fn runs, reported once', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const o = new OutcomeInjection('x', {
      ...on,
      outcome: () => {
        throw new Error('no outcome');
      },
    });
    expect(await o.execute(realFn())).toBe('real');
    expect(await o.execute(realFn())).toBe('real');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/^OutcomeInjection 'x': outcome threw; the call is not injected/);
    expect(o.metrics).toEqual({ numberOfInjectedCalls: 0, numberOfCallsNotInjected: 2 });
  });
});
