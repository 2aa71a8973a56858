import { RequestNotPermittedError, systemClock, TimeoutError, VirtualClock } from '@breakwater/core';
import { deferred, flush, track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fixed, RecordingAlgorithm } from '../test/test-support.js';
import { AdaptiveLimiter, type AdaptiveLimiterConfig } from './index.js';

let clock: VirtualClock;
beforeEach(() => {
  clock = new VirtualClock();
});
afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

const limiter = (config: AdaptiveLimiterConfig = {}) => new AdaptiveLimiter('pg', { clock, window: false, ...config });

describe('AdaptiveLimiter — admission (contract: docs/adaptive.md)', () => {
  it('has its defaults: vegas through a window, no wait, FIFO, a queue of 100', () => {
    const l = new AdaptiveLimiter('pg');
    expect(l.kind).toBe('adaptiveLimiter');
    expect(l.name).toBe('pg');
    expect(l.limit).toBe(20);
    expect(l.inFlight).toBe(0);
    const { algorithm, ...rest } = l.config;
    expect(algorithm.limit).toBe(20);
    expect(rest).toEqual({
      maxWaitDuration: 0,
      queue: 'fifo',
      maxQueue: 100,
      partitions: {},
      isDrop: undefined,
      writableStackTraceEnabled: true,
      clock: systemClock,
    });
    expect(l.metrics).toEqual({ limit: 20, inFlight: 0, waiting: 0, rejected: 0, partitions: {} });
    expect(AdaptiveLimiter.of('x').name).toBe('x');
  });

  it('admits while inFlight < limit, then refuses at once with a RequestNotPermittedError naming the limit and the calls in flight', async () => {
    const l = limiter({ algorithm: fixed(2) });
    const types: string[] = [];
    l.on('*', (e) => types.push(e.type));
    const a = deferred<string>();
    const b = deferred<string>();
    const first = l.execute(() => a.promise);
    const second = l.execute(() => b.promise);
    expect(l.inFlight).toBe(2);
    const third = track(l.execute(() => 'never'));
    await flush();
    expect(third.state).toBe('rejected');
    expect(third.error).toBeInstanceOf(RequestNotPermittedError);
    expect(third.error).toMatchObject({
      name: 'RequestNotPermittedError',
      rateLimiterName: 'pg',
      waitMs: 0,
      message: "AdaptiveLimiter 'pg' does not permit further calls (limit 2, 2 in flight)",
    });
    expect((third.error as Error).stack).toMatch(
      /^RequestNotPermittedError: AdaptiveLimiter 'pg' does not permit further calls \(limit 2, 2 in flight\)\n\s+at /,
    );
    a.resolve('a');
    b.resolve('b');
    expect(await first).toBe('a');
    expect(await second).toBe('b');
    expect(l.inFlight).toBe(0);
    expect(l.metrics.rejected).toBe(1);
    expect(types).toEqual(['callPermitted', 'callPermitted', 'callRejected', 'callFinished', 'callFinished']);
  });

  it('without stack traces a refusal carries its header alone', async () => {
    const l = limiter({ algorithm: fixed(1), writableStackTraceEnabled: false });
    const token = l.tryAcquire()!;
    const error = await l.execute(() => 1).catch((e: unknown) => e);
    expect((error as Error).stack).toBe("RequestNotPermittedError: AdaptiveLimiter 'pg' does not permit further calls (limit 1, 1 in flight)");
    token.onIgnore();
  });

  it('tryAcquire gives a token or null and never waits; each token counts once', () => {
    const l = limiter({ algorithm: fixed(1), maxWaitDuration: 100 });
    const events: string[] = [];
    l.on('*', (e) => events.push(e.type));
    const token = l.tryAcquire();
    expect(token).not.toBeNull();
    expect(token!.partition).toBeUndefined();
    expect(l.tryAcquire()).toBeNull();
    expect(l.metrics).toMatchObject({ inFlight: 1, waiting: 0, rejected: 1 });
    token!.onSuccess();
    token!.onSuccess();
    token!.onDropped();
    expect(l.inFlight).toBe(0);
    expect(events).toEqual(['callPermitted', 'callRejected', 'callFinished']);
  });

  it('acquire resolves a token at once, or waits; the rtt counts from the grant', async () => {
    const algorithm = new RecordingAlgorithm(1);
    const l = limiter({ algorithm, maxWaitDuration: 100 });
    const first = await l.acquire();
    const second = track(l.acquire());
    expect(l.metrics.waiting).toBe(1);
    await clock.advance(30);
    first.onSuccess();
    await flush();
    expect(second.state).toBe('fulfilled');
    await clock.advance(7);
    second.value!.onDropped();
    expect(algorithm.samples).toEqual([
      { at: 30, rtt: 30, inFlight: 1, didDrop: false },
      { at: 37, rtt: 7, inFlight: 1, didDrop: true },
    ]);
  });

  it('events carry their fields exactly', async () => {
    const l = limiter({ algorithm: new RecordingAlgorithm(1), maxWaitDuration: 50 });
    const events: unknown[] = [];
    l.on('*', ({ time: _time, ...e }) => events.push(e));
    const hold = deferred();
    const running = l.execute(() => hold.promise);
    const waiting = l.execute(() => 'w');
    await clock.advance(20);
    hold.resolve();
    await running;
    expect(await waiting).toBe('w');
    expect(events).toEqual([
      { type: 'callPermitted', name: 'pg', at: 0, partition: undefined, waitMs: 0 },
      { type: 'callFinished', name: 'pg', at: 20, partition: undefined, rtt: 20, didDrop: false, ignored: false },
      { type: 'callPermitted', name: 'pg', at: 20, partition: undefined, waitMs: 20 },
      { type: 'callFinished', name: 'pg', at: 20, partition: undefined, rtt: 0, didDrop: false, ignored: false },
    ]);
  });

  it('on() refuses an unknown event type, suggesting the closest', () => {
    expect(() => limiter().on('limitChange' as 'limitChanged', () => {})).toThrow(
      new TypeError(
        "AdaptiveLimiter 'pg': unknown event type 'limitChange' (did you mean 'limitChanged'?) (event types: callPermitted, callRejected, callFinished, limitChanged, or '*')",
      ),
    );
  });

  it('decorate passes the arguments and runs each call in a slot', async () => {
    const l = limiter({ algorithm: fixed(1) });
    const add = l.decorate((a: number, b: number) => a + b);
    expect(await add(2, 3)).toBe(5);
    expect(l.inFlight).toBe(0);
  });

  it('a sync throw and a plain value are a rejection and a resolution, each counted once', async () => {
    const algorithm = new RecordingAlgorithm(1);
    const l = limiter({ algorithm, isDrop: () => true });
    const boom = new Error('boom');
    await expect(
      l.execute(() => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await l.execute(() => 42)).toBe(42);
    expect(algorithm.samples.map((s) => s.didDrop)).toEqual([true, false]);
    expect(l.inFlight).toBe(0);
  });

  it('never throws synchronously: bad options and an already aborted signal reject', async () => {
    const l = limiter();
    await expect(l.execute(() => 1, 'x' as never)).rejects.toThrow(TypeError);
    const ac = new AbortController();
    ac.abort(new Error('gone'));
    await expect(l.execute(() => 1, { signal: ac.signal })).rejects.toThrow('gone');
    await expect(l.acquire({ signal: ac.signal })).rejects.toThrow('gone');
    expect(l.inFlight).toBe(0);
  });

  it('a limiter with no listener builds no event', async () => {
    const l = limiter({ algorithm: fixed(1) });
    const spy = vi.spyOn(clock, 'now');
    await l.execute(() => 1);
    // start and end of the call only (the token's start, the sample's time): no event's `at`.
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it('a drop is a TimeoutError or what isDrop accepts; other errors feed no sample', async () => {
    const algorithm = new RecordingAlgorithm(5);
    const l = limiter({ algorithm, isDrop: (e) => (e as { status?: number }).status === 503 });
    await l.execute(() => Promise.reject(new TimeoutError('tl', 100))).catch(() => {});
    await l.execute(() => Promise.reject(Object.assign(new Error('503'), { status: 503 }))).catch(() => {});
    await l.execute(() => Promise.reject(Object.assign(new Error('404'), { status: 404 }))).catch(() => {});
    expect(algorithm.samples.map((s) => s.didDrop)).toEqual([true, true]);
  });
});
