import { availableParallelism } from 'node:os';
import { getEventListeners } from 'node:events';
import { BulkheadFullError, VirtualClock } from '@breakwater/core';
import { deferred, flush, track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { admit, PoolBulkhead, PoolBulkheadRegistry, type PoolBulkheadConfig } from './index.js';

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

describe('admit', () => {
  it('follows ThreadPoolExecutor: core, then queue, then up to max, then refuse', () => {
    const limits = { coreThreadPoolSize: 2, maxThreadPoolSize: 4, queueCapacity: 10 };
    expect(admit(1, 0, limits)).toBe('run');
    expect(admit(2, 3, limits)).toBe('queue');
    expect(admit(2, 10, limits)).toBe('run');
    expect(admit(3, 10, limits)).toBe('run');
    expect(admit(4, 10, limits)).toBe('reject');
  });
});

describe('PoolBulkhead — Resilience4j ThreadPoolBulkheadTest / FixedThreadPoolBulkheadTest scenarios', () => {
  it('has the custom settings it was given', () => {
    const p = pool({ maxThreadPoolSize: 2, coreThreadPoolSize: 1, queueCapacity: 10 });
    expect(p.metrics).toEqual({
      coreThreadPoolSize: 1,
      threadPoolSize: 0,
      maximumThreadPoolSize: 2,
      queueDepth: 0,
      queueCapacity: 10,
      remainingQueueCapacity: 10,
      activeCount: 0,
    });
    expect(p.name).toBe('test');
    expect(p.kind).toBe('poolBulkhead');
  });

  it('has the defaults of Resilience4j', () => {
    const p = pool();
    const max = availableParallelism();
    expect(p.metrics).toMatchObject({ maximumThreadPoolSize: max, coreThreadPoolSize: Math.max(1, max - 1), queueCapacity: 100 });
    expect(PoolBulkhead.of('x').name).toBe('x');
  });

  it('one slot and a queue of one: the third call is refused with BulkheadFullError', async () => {
    const p = pool({ maxThreadPoolSize: 1, coreThreadPoolSize: 1, queueCapacity: 1 });
    const hold = deferred<string>();
    const first = p.execute(() => hold.promise);
    const second = p.submit(() => 'Hello world');
    const third = await p.execute(() => 'never').catch((e: unknown) => e);
    expect(third).toBeInstanceOf(BulkheadFullError);
    expect(third).toMatchObject({ bulkheadName: 'test' });
    expect(p.metrics).toMatchObject({ activeCount: 1, queueDepth: 1, remainingQueueCapacity: 0 });
    hold.resolve('slow');
    await expect(first).resolves.toBe('slow');
    await expect(second).resolves.toBe('Hello world');
  });

  it('returns what the call returns', async () => {
    const p = pool({ maxThreadPoolSize: 1, coreThreadPoolSize: 1, queueCapacity: 1 });
    await expect(p.submit(() => Promise.resolve('Hello world'))).resolves.toBe('Hello world');
  });

  it('with no queue (queueCapacity 0, a SynchronousQueue in Java), runs up to max and then refuses', async () => {
    const p = pool({ maxThreadPoolSize: 2, coreThreadPoolSize: 1, queueCapacity: 0 });
    const latch = deferred();
    const a = p.execute(() => latch.promise);
    const b = p.execute(() => latch.promise);
    await expect(p.execute(() => 'x')).rejects.toMatchObject({ name: 'BulkheadFullError', bulkheadName: 'test' });
    expect(p.metrics).toMatchObject({ queueDepth: 0, remainingQueueCapacity: 0, queueCapacity: 0, activeCount: 2, threadPoolSize: 2 });
    latch.resolve();
    await Promise.all([a, b]);
    expect(p.metrics).toMatchObject({ activeCount: 0, threadPoolSize: 1 });
  });
});

describe('PoolBulkhead — admission and the queue', () => {
  it('uses extra slots beyond the core only once the queue is full, and counts threads like Java', async () => {
    const p = pool({ coreThreadPoolSize: 1, maxThreadPoolSize: 3, queueCapacity: 2 });
    const holds = [0, 1, 2, 3, 4, 5].map(() => deferred<number>());
    const started: number[] = [];
    const calls = holds.map((h, i) =>
      p.execute(() => {
        started.push(i);
        return h.promise;
      }),
    );
    // 0 runs (core), 1 and 2 queue, 3 and 4 run on extra slots, 5 is refused.
    expect(started).toEqual([0, 3, 4]);
    expect(p.metrics).toMatchObject({ activeCount: 3, queueDepth: 2, threadPoolSize: 3 });
    await expect(calls[5]).rejects.toThrow(BulkheadFullError);
    holds[3]!.resolve(3); // an extra slot frees up: it takes the oldest queued call
    await flush();
    expect(started).toEqual([0, 3, 4, 1]);
    holds[4]!.resolve(4);
    await flush();
    expect(started).toEqual([0, 3, 4, 1, 2]);
    expect(p.metrics).toMatchObject({ activeCount: 3, queueDepth: 0 });
    holds[0]!.resolve(0);
    await flush();
    expect(p.metrics).toMatchObject({ activeCount: 2, threadPoolSize: 2 }); // idle extra slots end at once
    holds[1]!.resolve(1);
    holds[2]!.resolve(2);
    await expect(Promise.all(calls.slice(0, 5))).resolves.toEqual([0, 1, 2, 3, 4]);
    expect(p.metrics).toMatchObject({ activeCount: 0, threadPoolSize: 1 }); // the core slot stays
  });

  it('holds at most max + queueCapacity calls', async () => {
    const p = pool({ coreThreadPoolSize: 2, maxThreadPoolSize: 2, queueCapacity: 3 });
    const hold = deferred();
    const outcomes = Array.from({ length: 8 }, () => track(p.execute(() => hold.promise)));
    await flush();
    expect(outcomes.filter((o) => o.state === 'rejected')).toHaveLength(3);
    expect(p.metrics).toMatchObject({ activeCount: 2, queueDepth: 3 });
    hold.resolve();
    await flush();
    expect(outcomes.filter((o) => o.state === 'fulfilled')).toHaveLength(5);
  });

  it('gives the slot back on success, failure and a synchronous throw', async () => {
    const p = pool({ coreThreadPoolSize: 1, maxThreadPoolSize: 1, queueCapacity: 2 });
    const boom = new Error('sync');
    const results = await Promise.allSettled([
      p.execute(() => {
        throw boom;
      }),
      p.execute(() => Promise.reject(new Error('async'))),
      p.execute(() => 7),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseRejectedResult).reason).toBe(boom);
    expect(p.metrics).toMatchObject({ activeCount: 0, queueDepth: 0 });
  });

  it('a queued call whose signal aborts leaves the queue at once; the others keep their order', async () => {
    const p = pool({ coreThreadPoolSize: 1, maxThreadPoolSize: 1, queueCapacity: 3 });
    const hold = deferred();
    const order: string[] = [];
    const running = p.execute(() => hold.promise);
    const ac = new AbortController();
    const a = p.execute(() => order.push('a'));
    const mid = p.execute(() => order.push('mid'), { signal: ac.signal });
    const c = p.execute(() => order.push('c'));
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    ac.abort('gone');
    await expect(mid).rejects.toBe('gone');
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    expect(p.metrics.queueDepth).toBe(2);
    hold.resolve();
    await Promise.all([running, a, c]);
    expect(order).toEqual(['a', 'c']);
  });

  it('a running call gets the caller’s signal (what fn does with it is fn’s business)', async () => {
    const p = pool({ coreThreadPoolSize: 1, maxThreadPoolSize: 1, queueCapacity: 0 });
    const ac = new AbortController();
    const call = p.execute(
      (ctx) =>
        new Promise((_, reject) => {
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
        }),
      { signal: ac.signal },
    );
    ac.abort('stop');
    await expect(call).rejects.toBe('stop');
    expect(p.metrics.activeCount).toBe(0);
  });

  it('never throws synchronously; an aborted signal rejects at once', async () => {
    const p = pool();
    const fn = vi.fn();
    await expect(p.execute(fn, { signal: AbortSignal.abort('no') })).rejects.toBe('no');
    await expect(p.execute(fn, { signal: 'x' as unknown as AbortSignal })).rejects.toThrow(TypeError);
    expect(fn).not.toHaveBeenCalled();
  });

  it('decorate keeps the parameters; a passed-down context is used as it is', async () => {
    const p = pool();
    await expect(p.decorate((a: number, b: string) => `${a}${b}`)(1, 'x')).resolves.toBe('1x');
    const ctx = { signal: new AbortController().signal, attempt: 2 };
    await expect(p.execute((c) => c, ctx)).resolves.toBe(ctx);
  });
});

describe('PoolBulkhead — events', () => {
  it('publishes callPermitted when a call starts, callRejected when refused, callFinished when done', async () => {
    const p = pool({ coreThreadPoolSize: 1, maxThreadPoolSize: 1, queueCapacity: 1 });
    const types: string[] = [];
    p.on('*', (e) => types.push(`${e.type}@${e.at}`));
    const hold = deferred();
    const first = p.execute(() => hold.promise);
    const second = p.execute(() => 'b');
    await p.execute(() => 'c').catch(() => {});
    clock.set(10);
    hold.resolve();
    await Promise.all([first, second]);
    expect(types).toEqual(['callPermitted@0', 'callRejected@0', 'callFinished@10', 'callPermitted@10', 'callFinished@10']);
  });
});

describe('PoolBulkhead — close', () => {
  it('rejects what is queued, refuses new calls, lets running calls end, then resolves', async () => {
    const p = pool({ coreThreadPoolSize: 1, maxThreadPoolSize: 1, queueCapacity: 2 });
    const hold = deferred<string>();
    const running = p.execute(() => hold.promise);
    const queued = p.execute(() => 'never');
    const rejected: string[] = [];
    p.on('callRejected', (e) => rejected.push(e.type));
    const closing = track(p.close());
    expect(p.closed).toBe(true);
    await expect(queued).rejects.toThrow("Bulkhead 'test' is closed; the call was queued and never ran");
    await expect(p.execute(() => 'late')).rejects.toThrow("Bulkhead 'test' is closed and does not accept further calls");
    expect(rejected).toHaveLength(2);
    await flush();
    expect(closing.state).toBe('pending');
    hold.resolve('finished anyway');
    await expect(running).resolves.toBe('finished anyway');
    await flush();
    expect(closing.state).toBe('fulfilled');
    expect(p.close()).toBe(p.close()); // the same promise each time
    expect(p.metrics).toMatchObject({ activeCount: 0, queueDepth: 0 });
  });

  it('an idle pool closes at once', async () => {
    const p = pool();
    await expect(p.close()).resolves.toBeUndefined();
  });

  it('queued callers’ signals keep no listener after close', async () => {
    const p = pool({ coreThreadPoolSize: 1, maxThreadPoolSize: 1, queueCapacity: 2 });
    const hold = deferred();
    const { signal } = new AbortController();
    const running = p.execute(() => hold.promise);
    const queued = p.execute(() => 1, { signal });
    const closing = p.close();
    await expect(queued).rejects.toThrow(BulkheadFullError);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    hold.resolve();
    await running;
    await closing;
  });
});

describe('PoolBulkheadRegistry', () => {
  it('checks defaultConfig and every named config at construction', () => {
    expect(() => new PoolBulkheadRegistry({ configs: { tiny: { maxThreadPoolSize: 2, coreThreadPoolSize: 3 } } })).toThrow(
      new RangeError("PoolBulkheadRegistry: config 'tiny': PoolBulkhead 'tiny': coreThreadPoolSize must be an integer in [1, 2] (maxThreadPoolSize), got 3"),
    );
    expect(() => new PoolBulkheadRegistry({ defaultConfig: { filename: 'x.mjs' } as never })).toThrow(/unknown option 'filename'/);
  });

  it('gets or creates pools from shared configs', async () => {
    const registry = new PoolBulkheadRegistry({
      defaultConfig: { maxThreadPoolSize: 4, coreThreadPoolSize: 2, clock },
      configs: { tiny: { maxThreadPoolSize: 1, coreThreadPoolSize: 1 } },
    });
    const pdf = registry.get('pdf');
    expect(registry.get('pdf')).toBe(pdf);
    expect(pdf.metrics.maximumThreadPoolSize).toBe(4);
    const tiny = registry.get('tiny', 'tiny');
    expect(tiny.metrics).toMatchObject({ maximumThreadPoolSize: 1, coreThreadPoolSize: 1 });
    await Promise.all(registry.all().map((p) => p.close()));
  });
});
