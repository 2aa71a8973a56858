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

/** A native promise whose own `then` calls both handlers (and returns nothing). */
function hostilePromise<T>(value: T): Promise<T> {
  const p = Promise.resolve(value);
  Object.defineProperty(p, 'then', {
    value: (resolve: (v: T) => void, reject: (e: unknown) => void) => {
      resolve(value);
      reject(new Error('rejected too'));
    },
  });
  return p;
}

describe('PoolBulkhead — hostile input: settles and counts once, never throws (§0)', () => {
  it('a native promise whose then calls both handlers ends its call once: activeCount never goes below the calls running', async () => {
    const p = pool({ coreThreadPoolSize: 2, maxThreadPoolSize: 2, queueCapacity: 0 });
    const finished: string[] = [];
    p.on('callFinished', (e) => finished.push(e.type));
    const hold = deferred<string>();
    const other = p.execute(() => hold.promise);
    await expect(p.execute(() => hostilePromise('ok'))).resolves.toBe('ok');
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

describe('PoolBulkhead — a caller’s abort while fn runs (§0)', () => {
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
      new TypeError("PoolBulkhead 'test': unknown event type 'callReject' (did you mean 'callRejected'?) (event types: callPermitted, callRejected, callFinished, or '*')"),
    );
  });

  it('config reads back every option', () => {
    const p = pool({ maxThreadPoolSize: 4, queueCapacity: 7, writableStackTraceEnabled: false });
    expect(p.config).toEqual({ maxThreadPoolSize: 4, coreThreadPoolSize: 3, queueCapacity: 7, writableStackTraceEnabled: false, clock });
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
    const registry = new PoolBulkheadRegistry({ defaultConfig: { maxThreadPoolSize: 4, coreThreadPoolSize: 2, clock }, configs: { tiny: { maxThreadPoolSize: 1, coreThreadPoolSize: 1 } } });
    const pdf = registry.get('pdf');
    expect(registry.get('pdf')).toBe(pdf);
    expect(pdf.metrics.maximumThreadPoolSize).toBe(4);
    const tiny = registry.get('tiny', 'tiny');
    expect(tiny.metrics).toMatchObject({ maximumThreadPoolSize: 1, coreThreadPoolSize: 1 });
    await Promise.all(registry.all().map((p) => p.close()));
  });
});
