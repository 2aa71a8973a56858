import { EventPublisher, VirtualClock, type CallContext, type EventOf } from '@breakwater/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { realFn } from '../test/strategies.js';
import { FaultInjection, type ChaosEvents } from './index.js';

// The fault strategy (contract: docs/chaos.md): the fault is thrown instead of calling fn.

afterEach(() => {
  vi.restoreAllMocks();
});

const on = { enabled: true, rate: 1, random: () => 0 } as const;

describe('FaultInjection', () => {
  it('rejects with the fault, fn not called; the injected event carries it', async () => {
    const clock = new VirtualClock(5);
    const fault = new Error('chaos');
    const f = new FaultInjection('pg', { ...on, fault, clock });
    const events: EventOf<ChaosEvents, 'injected'>[] = [];
    f.on('injected', (e) => events.push(e));
    const fn = realFn();
    await expect(f.execute(fn, { signal: new AbortController().signal, attempt: 2 })).rejects.toBe(fault);
    expect(fn.calls).toBe(0);
    expect(events).toEqual([{ type: 'injected', name: 'pg', at: 5, time: VirtualClock.DEFAULT_WALL_START, strategy: 'fault', attempt: 2, error: fault }]);
    expect(f.metrics).toEqual({ numberOfInjectedCalls: 1, numberOfCallsNotInjected: 0 });
  });

  it('any value is a fault (a string, null, 0): only undefined cannot be one', async () => {
    for (const fault of ['boom', null, 0, false]) {
      await expect(new FaultInjection('pg', { ...on, fault }).execute(realFn())).rejects.toBe(fault);
    }
  });

  it('a function of the call generates the fault per call; undefined from it: not injected this time, fn runs', async () => {
    const seen: CallContext[] = [];
    const faults = [new Error('a'), undefined, new Error('c')];
    const f = new FaultInjection('pg', {
      ...on,
      fault: (ctx: CallContext) => {
        seen.push(ctx);
        return faults.shift();
      },
    });
    const fn = realFn();
    const ctx = { signal: new AbortController().signal, attempt: 4 };
    await expect(f.execute(fn, ctx)).rejects.toThrow('a');
    await expect(f.execute(fn)).resolves.toBe('real');
    await expect(f.execute(fn)).rejects.toThrow('c');
    expect(seen[0]).toBe(ctx);
    expect(fn.calls).toBe(1);
    expect(f.metrics).toEqual({ numberOfInjectedCalls: 2, numberOfCallsNotInjected: 1 });
  });

  it('a generator that throws: not injected, fn runs, reported once', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const f = new FaultInjection('pg', {
      ...on,
      fault: () => {
        throw new Error('no fault today');
      },
    });
    await expect(f.execute(realFn())).resolves.toBe('real');
    await expect(f.execute(realFn())).resolves.toBe('real');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/^FaultInjection 'pg': fault threw; the call is not injected \(reported once\): Error: no fault today/);
    expect(f.metrics).toEqual({ numberOfInjectedCalls: 0, numberOfCallsNotInjected: 2 });
  });

  it('a listener that throws changes nothing', async () => {
    vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const fault = new Error('chaos');
    const f = new FaultInjection('pg', { ...on, fault });
    f.on('injected', () => {
      throw new Error('listener');
    });
    await expect(f.execute(realFn())).rejects.toBe(fault);
  });

  it('no listener: no event is built (the publisher is not asked to emit)', async () => {
    const emit = vi.spyOn(EventPublisher.prototype, 'emit');
    const f = new FaultInjection('pg', { ...on, fault: 1 });
    f.on('*', () => {})();
    await f.execute(realFn()).catch(() => {});
    expect(emit).not.toHaveBeenCalled();
    f.on('*', () => {});
    await f.execute(realFn()).catch(() => {});
    expect(emit).toHaveBeenCalledTimes(1);
    expect(f.metrics.numberOfInjectedCalls).toBe(2);
  });
});
