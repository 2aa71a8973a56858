import { getEventListeners } from 'node:events';
import { BulkheadFullError, VirtualClock } from '@breakwater/core';
import { deferred, flush, track, twoFaced } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PoolBulkhead, type PoolBulkheadConfig } from './index.js';

let clock: VirtualClock;
const pools: PoolBulkhead[] = [];
beforeEach(() => {
  clock = new VirtualClock();
});
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  expect(clock.pendingTimers).toBe(0);
});

const pool = (config: PoolBulkheadConfig = {}) => {
  const p = new PoolBulkhead('test', { clock, ...config });
  pools.push(p);
  return p;
};

describe('PoolBulkhead — hostile input: settles and counts once, never throws (contract: docs/conventions.md)', () => {
  it('a native promise whose then calls both handlers ends its call once: activeCount never goes below the calls running', async () => {
    const p = pool({ coreThreadPoolSize: 2, maxThreadPoolSize: 2, queueCapacity: 0 });
    const finished: string[] = [];
    p.on('callFinished', (e) => finished.push(e.type));
    const hold = deferred<string>();
    const other = p.execute(() => hold.promise);
    await expect(p.execute(() => twoFaced('ok'))).resolves.toBe('ok');
    expect(finished).toHaveLength(1);
    expect(p.metrics.activeCount).toBe(1);
    // One slot is free, not two: one more call runs, the next is refused.
    const a = p.execute(() => hold.promise);
    await expect(p.execute(() => 'one too many')).rejects.toThrow(BulkheadFullError);
    hold.resolve('done');
    await expect(Promise.all([other, a])).resolves.toEqual(['done', 'done']);
    expect(p.metrics.activeCount).toBe(0);
  });

  it('a thenable whose then throws is a rejection (never a synchronous throw), and its slot comes back', async () => {
    const p = pool({ coreThreadPoolSize: 1, maxThreadPoolSize: 1, queueCapacity: 1 });
    const throwingThen = Promise.resolve(1);
    Object.defineProperty(throwingThen, 'then', {
      value: () => {
        throw new Error('then threw');
      },
    });
    let call: Promise<unknown> | undefined;
    expect(() => (call = p.execute(() => throwingThen))).not.toThrow();
    await expect(call).rejects.toThrow('then threw');
    const getter = {
      get then(): never {
        throw new Error('then getter');
      },
    };
    await expect(p.submit(() => getter)).rejects.toThrow('then getter');
    expect(p.metrics.activeCount).toBe(0);
  });

  it('options null is no options; a fake signal, even with an attempt, is a TypeError rejection that takes no slot', async () => {
    const p = pool({ coreThreadPoolSize: 1, maxThreadPoolSize: 1, queueCapacity: 0 });
    await expect(p.execute(() => 1, null)).resolves.toBe(1);
    const fn = vi.fn();
    let call: Promise<unknown> | undefined;
    expect(() => (call = p.execute(fn, { signal: { aborted: false }, attempt: 1 } as never))).not.toThrow();
    await expect(call).rejects.toThrow(TypeError);
    expect(fn).not.toHaveBeenCalled();
    expect(p.metrics.activeCount).toBe(0);
  });
});

describe('PoolBulkhead — a caller’s abort while fn runs (contract: docs/conventions.md)', () => {
  it('rejects the call at once with the reason; the slot stays held until fn really settles', async () => {
    const p = pool({ coreThreadPoolSize: 1, maxThreadPoolSize: 1, queueCapacity: 1 });
    const ac = new AbortController();
    const work = deferred<string>();
    const call = track(p.execute(() => work.promise, { signal: ac.signal }));
    const queued = track(p.execute(() => 'next'));
    ac.abort('client went away');
    await flush();
    expect(call).toMatchObject({ state: 'rejected', error: 'client went away' });
    expect(p.metrics).toMatchObject({ activeCount: 1, queueDepth: 1 });
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    work.resolve('late');
    await flush();
    expect(queued).toMatchObject({ state: 'fulfilled', value: 'next' });
    expect(p.metrics).toMatchObject({ activeCount: 0, queueDepth: 0 });
  });

  it('the same for a call that waited in the queue', async () => {
    const p = pool({ coreThreadPoolSize: 1, maxThreadPoolSize: 1, queueCapacity: 1 });
    const first = deferred();
    const running = p.execute(() => first.promise);
    const ac = new AbortController();
    const work = deferred<string>();
    const call = track(p.execute(() => work.promise, { signal: ac.signal }));
    first.resolve();
    await running;
    await flush();
    expect(p.metrics).toMatchObject({ activeCount: 1, queueDepth: 0 });
    ac.abort('stop');
    await flush();
    expect(call).toMatchObject({ state: 'rejected', error: 'stop' });
    expect(p.metrics.activeCount).toBe(1);
    work.resolve('late');
    await flush();
    expect(p.metrics.activeCount).toBe(0);
  });

  it('however many calls share a signal, running or queued, it carries one listener, and none after', async () => {
    const p = pool({ coreThreadPoolSize: 5, maxThreadPoolSize: 5, queueCapacity: 20 });
    const { signal } = new AbortController();
    const hold = deferred();
    const calls = Array.from({ length: 20 }, () => p.execute(() => hold.promise, { signal }));
    expect(p.metrics).toMatchObject({ activeCount: 5, queueDepth: 15 });
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    hold.resolve();
    await Promise.all(calls);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});

describe('PoolBulkhead — close with force or a timeout', () => {
  it('close() waits for a call that never settles; close({ force: true }) resolves at once and lets it go on', async () => {
    const p = pool({ coreThreadPoolSize: 1, maxThreadPoolSize: 1, queueCapacity: 1 });
    const never = track(p.execute(() => new Promise(() => {})));
    const queued = p.execute(() => 'never runs');
    const closing = track(p.close());
    await expect(queued).rejects.toThrow("Bulkhead 'test' is closed; the call was queued and never ran");
    await flush();
    expect(closing.state).toBe('pending');
    const forced = p.close({ force: true });
    expect(forced).toBe(p.close());
    await expect(forced).resolves.toBeUndefined();
    expect(never.state).toBe('pending'); // an async call cannot be stopped: it still holds its slot
    expect(p.metrics.activeCount).toBe(1);
  });

  it('close({ timeout }) waits that long on the clock for running calls, then stops waiting', async () => {
    const p = pool({ coreThreadPoolSize: 1, maxThreadPoolSize: 1, queueCapacity: 0 });
    p.execute(() => new Promise(() => {})).catch(() => {});
    const closing = track(p.close({ timeout: '5s' }));
    await clock.advance(4999);
    expect(closing.state).toBe('pending');
    await clock.advance(1);
    expect(closing.state).toBe('fulfilled');
  });

  it('close({ timeout }) resolves as soon as the running calls end, and leaves no timer', async () => {
    const p = pool({ coreThreadPoolSize: 1, maxThreadPoolSize: 1, queueCapacity: 0 });
    const hold = deferred();
    const running = p.execute(() => hold.promise);
    const closing = track(p.close({ timeout: 5000 }));
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(100);
    hold.resolve();
    await running;
    await flush();
    expect(closing.state).toBe('fulfilled');
    expect(clock.pendingTimers).toBe(0);
  });

  it('refuses bad close options, naming the pool', () => {
    const p = pool();
    expect(() => p.close({ force: 'yes' } as never)).toThrow(new TypeError("PoolBulkhead 'test': close(options): force must be true or false, got 'yes'"));
    expect(() => p.close({ timeout: -1 })).toThrow(new RangeError("PoolBulkhead 'test': close(options): timeout must be >= 0, got -1"));
    expect(() => p.close({ forced: true } as never)).toThrow(/close\(options\): unknown option 'forced' \(did you mean 'force'\?\)/);
    expect(() => p.close(5 as never)).toThrow(new TypeError("PoolBulkhead 'test': close(options) must be an object of { force?, timeout? }, got 5"));
    expect(p.closed).toBe(false);
  });
});

describe('PoolBulkhead — events, config, registry', () => {
  it('refuses an unknown event type, suggesting the closest', () => {
    const p = pool();
    expect(() => p.on('callReject' as 'callRejected', () => {})).toThrow(
      new TypeError(
        "PoolBulkhead 'test': unknown event type 'callReject' (did you mean 'callRejected'?) (event types: callPermitted, callRejected, callFinished, or '*')",
      ),
    );
  });

  it('config reads back every option', () => {
    const p = pool({ maxThreadPoolSize: 4, queueCapacity: 7, writableStackTraceEnabled: false });
    expect(p.config).toEqual({ maxThreadPoolSize: 4, coreThreadPoolSize: 3, queueCapacity: 7, writableStackTraceEnabled: false, clock });
  });
});
