import { getEventListeners } from 'node:events';
import { BulkheadFullError, VirtualClock } from '@breakwater/core';
import { deferred, flush, track, twoFaced } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Bulkhead, BulkheadRegistry, type BulkheadConfig } from './index.js';

let clock: VirtualClock;
beforeEach(() => {
  clock = new VirtualClock();
});
afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

const bulkhead = (config: BulkheadConfig = {}) => new Bulkhead('test', { clock, ...config });

describe('Bulkhead — execute', () => {
  it('gives the permit back on success, failure and a synchronous throw', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1 });
    await expect(b.execute(() => Promise.resolve('ok'))).resolves.toBe('ok');
    await expect(b.execute(() => Promise.reject(new Error('no')))).rejects.toThrow('no');
    const boom = new Error('sync');
    const thrown = b.execute(() => {
      throw boom;
    });
    await expect(thrown).rejects.toBe(boom);
    await expect(b.execute(() => 42)).resolves.toBe(42);
    await expect(b.execute(() => Promise.reject(undefined))).rejects.toBeUndefined();
    expect(b.metrics.availableConcurrentCalls).toBe(1);
  });

  it('refuses at once when full with maxWaitDuration 0, and fn is not called', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1 });
    const hold = deferred<string>();
    const first = b.execute(() => hold.promise);
    const fn = vi.fn();
    const err = await b.execute(fn).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BulkheadFullError);
    expect(err).toMatchObject({ name: 'BulkheadFullError', bulkheadName: 'test' });
    expect(fn).not.toHaveBeenCalled();
    hold.resolve('done');
    await expect(first).resolves.toBe('done');
  });

  it('runs waiters in FIFO order as permits free up', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1, maxWaitDuration: Infinity });
    const order: number[] = [];
    const holds = [0, 1, 2, 3].map(() => deferred());
    const calls = holds.map((h, i) =>
      b.execute(() => {
        order.push(i);
        return h.promise;
      }),
    );
    expect(clock.pendingTimers).toBe(0); // Infinity: no timer
    expect(b.metrics.waitingCalls).toBe(3);
    for (const h of holds) {
      h.resolve();
      await flush();
    }
    await Promise.all(calls);
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it('an aborted waiter in the middle leaves the queue; the others keep their order', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1, maxWaitDuration: 1000 });
    const hold = deferred();
    const order: string[] = [];
    const running = b.execute(() => hold.promise);
    const ac = new AbortController();
    const a = b.execute(() => order.push('a'));
    const mid = b.execute(() => order.push('mid'), { signal: ac.signal });
    const c = b.execute(() => order.push('c'));
    ac.abort('gone');
    await expect(mid).rejects.toBe('gone');
    expect(b.metrics.waitingCalls).toBe(2);
    hold.resolve();
    await Promise.all([running, a, c]);
    expect(order).toEqual(['a', 'c']);
    expect(b.metrics.availableConcurrentCalls).toBe(1);
  });

  it('fn gets the context; a passed-down context is used as it is', async () => {
    const b = bulkhead();
    const ctx = { signal: new AbortController().signal, attempt: 3 };
    await expect(b.execute((c) => c, ctx)).resolves.toBe(ctx);
    const { signal } = new AbortController();
    await expect(b.execute((c) => c.signal, { signal })).resolves.toBe(signal);
  });

  it('decorate keeps the parameters', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1 });
    const add = b.decorate((x: number, y: number) => x + y);
    await expect(add(1, 2)).resolves.toBe(3);
  });

  it('never throws synchronously, even for a bad signal', async () => {
    const b = bulkhead();
    await expect(b.execute(() => 1, { signal: 1 as unknown as AbortSignal })).rejects.toThrow(TypeError);
    await expect(b.acquirePermission({ signal: 1 as unknown as AbortSignal })).rejects.toThrow(TypeError);
  });

  it('an already aborted signal rejects with its reason and takes nothing', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1 });
    const fn = vi.fn();
    await expect(b.execute(fn, { signal: AbortSignal.abort('no') })).rejects.toBe('no');
    await expect(b.acquirePermission({ signal: AbortSignal.abort('no') })).rejects.toBe('no');
    expect(fn).not.toHaveBeenCalled();
    expect(b.metrics.availableConcurrentCalls).toBe(1);
  });

  it('a waiter aborted after it was handed a slot but before fn started gives the slot back', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1, maxWaitDuration: 1000 });
    const hold = deferred();
    const running = b.execute(() => hold.promise);
    const ac = new AbortController();
    const fn = vi.fn();
    const waiting = b.execute(fn, { signal: ac.signal });
    const types: string[] = [];
    b.on('*', (e) => types.push(e.type));
    // The waiter is handed the slot, and its caller aborts in that very moment.
    b.on('callPermitted', () => ac.abort('late'));
    hold.resolve();
    await running;
    await expect(waiting).rejects.toBe('late');
    expect(fn).not.toHaveBeenCalled();
    expect(types).toEqual(['callFinished', 'callPermitted', 'callFinished']);
    expect(b.metrics.availableConcurrentCalls).toBe(1);
  });

  it('a long-lived signal keeps one listener while its calls run or wait, and none once they have ended', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1, maxWaitDuration: 100 });
    const { signal } = new AbortController();
    const hold = deferred();
    const calls = [b.execute(() => hold.promise, { signal }), b.execute(() => 2, { signal }), b.execute(() => 3, { signal })];
    // One running, two waiting: one listener on the signal for all of them (contract: docs/conventions.md).
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    hold.resolve();
    await Promise.all(calls);
    const holdLate = deferred();
    const late = b.execute(() => holdLate.promise, { signal });
    const refused = b.execute(() => 0, { signal });
    refused.catch(() => {});
    await clock.advance(100);
    await expect(refused).rejects.toThrow(BulkheadFullError);
    holdLate.resolve();
    await late;
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});

describe('Bulkhead — hostile input: settles and counts once, never throws (contract: docs/conventions.md)', () => {
  it('a native promise whose then calls both handlers gives its slot back once, and never one of another call', async () => {
    const b = bulkhead({ maxConcurrentCalls: 2 });
    const finished: string[] = [];
    b.on('callFinished', (e) => finished.push(e.type));
    const hold = deferred<string>();
    const other = b.execute(() => hold.promise);
    await expect(b.execute(() => twoFaced('ok'))).resolves.toBe('ok');
    expect(finished).toHaveLength(1);
    // The other call still holds its slot: one free, not two.
    expect(b.metrics.availableConcurrentCalls).toBe(1);
    expect(b.tryAcquirePermission()).toBe(true);
    expect(b.tryAcquirePermission()).toBe(false);
    b.releasePermission();
    hold.resolve('done');
    await expect(other).resolves.toBe('done');
    expect(b.metrics.availableConcurrentCalls).toBe(2);
    expect(finished).toHaveLength(2);
  });

  it('a thenable whose then throws, or a then getter that throws, is a rejection and the slot comes back', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1 });
    const throwingThen = Promise.resolve(1);
    Object.defineProperty(throwingThen, 'then', {
      value: () => {
        throw new Error('then threw');
      },
    });
    let call: Promise<unknown> | undefined;
    expect(() => (call = b.execute(() => throwingThen))).not.toThrow();
    await expect(call).rejects.toThrow('then threw');
    const getter = {
      get then(): never {
        throw new Error('then getter');
      },
    };
    await expect(b.execute(() => getter)).rejects.toThrow('then getter');
    expect(b.metrics.availableConcurrentCalls).toBe(1);
  });

  it('options null is no options; a fake signal, even with an attempt, is a TypeError rejection that takes no slot', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1 });
    await expect(b.execute(() => 1, null)).resolves.toBe(1);
    await expect(b.acquirePermission(null)).resolves.toBeUndefined();
    b.releasePermission();
    const fake = { signal: { aborted: false }, attempt: 1 } as unknown as { signal: AbortSignal };
    let call: Promise<unknown> | undefined;
    const fn = vi.fn();
    expect(() => (call = b.execute(fn, fake))).not.toThrow();
    await expect(call).rejects.toThrow(TypeError);
    await expect(b.acquirePermission(fake)).rejects.toThrow(TypeError);
    expect(fn).not.toHaveBeenCalled();
    expect(b.metrics.availableConcurrentCalls).toBe(1);
  });
});

describe('Bulkhead — a caller’s abort while fn runs (contract: docs/conventions.md)', () => {
  it('rejects the call at once with the reason; the slot stays held until fn really settles', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1, maxWaitDuration: 1000 });
    const events: string[] = [];
    b.on('*', (e) => events.push(e.type));
    const ac = new AbortController();
    const work = deferred<string>();
    let seen: AbortSignal | undefined;
    const call = track(
      b.execute(
        (ctx) => {
          seen = ctx.signal;
          return work.promise;
        },
        { signal: ac.signal },
      ),
    );
    const next = track(b.execute(() => 'next'));
    ac.abort('client went away');
    await flush();
    expect(call).toMatchObject({ state: 'rejected', error: 'client went away' });
    expect(seen?.aborted).toBe(true);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    // fn still runs: it keeps its slot, and the waiter keeps waiting.
    expect(b.metrics).toEqual({ availableConcurrentCalls: 0, maxAllowedConcurrentCalls: 1, waitingCalls: 1 });
    expect(next.state).toBe('pending');
    work.resolve('late'); // dropped: the caller has its answer
    await flush();
    expect(call).toMatchObject({ state: 'rejected', error: 'client went away' });
    expect(next).toMatchObject({ state: 'fulfilled', value: 'next' });
    expect(events).toEqual(['callPermitted', 'callFinished', 'callPermitted', 'callFinished']);
    expect(b.metrics.availableConcurrentCalls).toBe(1);
  });

  it('the same for a call that waited for its slot', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1, maxWaitDuration: 1000 });
    const first = deferred();
    const running = b.execute(() => first.promise);
    const ac = new AbortController();
    const work = deferred<string>();
    const call = track(b.execute(() => work.promise, { signal: ac.signal }));
    first.resolve();
    await running;
    await flush();
    expect(b.metrics).toMatchObject({ availableConcurrentCalls: 0, waitingCalls: 0 });
    ac.abort('stop');
    await flush();
    expect(call).toMatchObject({ state: 'rejected', error: 'stop' });
    expect(b.metrics.availableConcurrentCalls).toBe(0);
    work.resolve('late');
    await flush();
    expect(b.metrics.availableConcurrentCalls).toBe(1);
  });
});

describe('Bulkhead — events, config, registry', () => {
  it('refuses an unknown event type, suggesting the closest', () => {
    const b = bulkhead();
    expect(() => b.on('callFinish' as 'callFinished', () => {})).toThrow(
      new TypeError(
        "Bulkhead 'test': unknown event type 'callFinish' (did you mean 'callFinished'?) (event types: callPermitted, callRejected, callFinished, or '*')",
      ),
    );
  });

  it('config reads back every option, with the limits changeConfig set', () => {
    const b = bulkhead({ maxConcurrentCalls: 3, maxWaitDuration: '2s', fairCallHandlingEnabled: false, writableStackTraceEnabled: false });
    expect(b.config).toEqual({ maxConcurrentCalls: 3, maxWaitDuration: 2000, fairCallHandlingEnabled: false, writableStackTraceEnabled: false, clock });
    b.changeConfig({ maxConcurrentCalls: 5 });
    expect(b.config).toEqual({ maxConcurrentCalls: 5, maxWaitDuration: 2000, fairCallHandlingEnabled: false, writableStackTraceEnabled: false, clock });
  });

  it('BulkheadRegistry checks defaultConfig and every named config at construction', () => {
    expect(() => new BulkheadRegistry({ defaultConfig: { maxConcurrentCalls: -1 } })).toThrow(
      new RangeError("BulkheadRegistry: config 'default': Bulkhead 'default': maxConcurrentCalls must be an integer >= 0, got -1"),
    );
    expect(() => new BulkheadRegistry({ configs: { slow: { maxWaitDuration: 'soon' as never } } })).toThrow(
      /config 'slow': Bulkhead 'slow': maxWaitDuration must be a duration/,
    );
    expect(() => new BulkheadRegistry({ configs: { slow: { maxWait: 5 } as never } })).toThrow(TypeError);
  });
});
