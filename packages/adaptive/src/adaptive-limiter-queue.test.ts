import { getEventListeners } from 'node:events';
import { RequestNotPermittedError, VirtualClock } from '@breakwater/core';
import { deferred, flush, track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

/** Starts `n` calls that each wait for their own deferred; returns the deferreds, the calls and the order they started in. */
function calls(l: AdaptiveLimiter, n: number, options?: { partition?: string }) {
  const started: number[] = [];
  const holds = Array.from({ length: n }, () => deferred<number>());
  const results = holds.map((hold, i) =>
    track(
      l.execute(() => {
        started.push(i);
        return hold.promise;
      }, options),
    ),
  );
  return { holds, results, started };
}

describe('AdaptiveLimiter — the queue (contract: docs/adaptive.md)', () => {
  it('FIFO: a freed slot goes to the oldest waiter', async () => {
    const l = limiter({ algorithm: fixed(1), maxWaitDuration: 1000 });
    const { holds, started } = calls(l, 4);
    expect(l.metrics).toMatchObject({ inFlight: 1, waiting: 3 });
    for (let i = 0; i < 4; i++) {
      await flush();
      holds[started[i]!]!.resolve(i);
    }
    await flush();
    expect(started).toEqual([0, 1, 2, 3]);
  });

  it("LIFO ('lifo'): a freed slot goes to the newest waiter", async () => {
    const l = limiter({ algorithm: fixed(1), maxWaitDuration: 1000, queue: 'lifo' });
    const { holds, started } = calls(l, 4);
    for (let i = 0; i < 4; i++) {
      await flush();
      holds[started[i]!]!.resolve(i);
    }
    await flush();
    expect(started).toEqual([0, 3, 2, 1]);
  });

  it('a waiter waits exactly maxWaitDuration, then is refused naming the wait and the limit', async () => {
    const l = limiter({ algorithm: fixed(1), maxWaitDuration: 50 });
    const rejected: unknown[] = [];
    l.on('callRejected', ({ time: _t, ...e }) => rejected.push(e));
    const hold = deferred();
    const running = l.execute(() => hold.promise);
    await clock.advance(10);
    const waiting = track(l.execute(() => 'never'));
    await clock.advance(49);
    expect(waiting.state).toBe('pending');
    await clock.advance(1);
    expect(waiting.state).toBe('rejected');
    expect(waiting.error).toBeInstanceOf(RequestNotPermittedError);
    expect((waiting.error as Error).message).toBe("AdaptiveLimiter 'pg' freed no slot within maxWaitDuration (50 ms) (limit 1, 1 in flight)");
    expect(rejected).toEqual([{ type: 'callRejected', name: 'pg', at: 60, partition: undefined, limit: 1, inFlight: 1 }]);
    expect(l.metrics).toMatchObject({ waiting: 0, rejected: 1 });
    hold.resolve();
    await running;
  });

  it('maxQueue bounds the waiters: one more is refused at once', async () => {
    const l = limiter({ algorithm: fixed(1), maxWaitDuration: 100, maxQueue: 2 });
    const { holds, results } = calls(l, 4);
    await flush();
    expect(results.map((r) => r.state)).toEqual(['pending', 'pending', 'pending', 'rejected']);
    expect((results[3]!.error as Error).message).toBe(
      "AdaptiveLimiter 'pg' does not permit further calls: its queue is full (2 waiting) (limit 1, 1 in flight)",
    );
    expect(l.metrics.waiting).toBe(2);
    await clock.advance(100);
    expect(results.map((r) => r.state)).toEqual(['pending', 'rejected', 'rejected', 'rejected']);
    holds[0]!.resolve(0);
    await flush();
  });

  it('maxQueue 0 refuses at once even with a maxWaitDuration', async () => {
    const l = limiter({ algorithm: fixed(1), maxWaitDuration: 100, maxQueue: 0 });
    const token = l.tryAcquire()!;
    await expect(l.acquire()).rejects.toThrow('its queue is full (0 waiting)');
    token.onIgnore();
  });

  it('a waiter whose signal aborts leaves the queue at once, rejects with the reason, and is no rejection', async () => {
    const l = limiter({ algorithm: fixed(1), maxWaitDuration: Infinity });
    const rejected: unknown[] = [];
    l.on('callRejected', (e) => rejected.push(e));
    const hold = deferred();
    const running = l.execute(() => hold.promise);
    const ac = new AbortController();
    let ran = false;
    const waiting = track(
      l.execute(
        () => {
          ran = true;
        },
        { signal: ac.signal },
      ),
    );
    const behind = track(l.execute(() => 'behind'));
    expect(l.metrics.waiting).toBe(2);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    ac.abort(new Error('user left'));
    expect(l.metrics.waiting).toBe(1);
    await flush();
    expect(waiting.state).toBe('rejected');
    expect((waiting.error as Error).message).toBe('user left');
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    hold.resolve();
    await running;
    await flush();
    expect(behind.value).toBe('behind');
    expect(ran).toBe(false);
    expect(rejected).toEqual([]);
  });

  it('acquire: an aborted waiter leaves at once; a token granted to a caller that aborted in the same instant is given back', async () => {
    const l = limiter({ algorithm: fixed(1), maxWaitDuration: 100 });
    const first = l.tryAcquire()!;
    const ac = new AbortController();
    const waiting = track(l.acquire({ signal: ac.signal }));
    first.onIgnore(); // the slot goes to the waiter…
    ac.abort(new Error('late')); // …whose caller aborts before its continuation runs
    await flush();
    expect(waiting.state).toBe('rejected');
    expect((waiting.error as Error).message).toBe('late');
    expect(l.inFlight).toBe(0);
  });

  it('a caller that aborts while fn runs is rejected at once; the slot is held until fn settles', async () => {
    const algorithm = new RecordingAlgorithm(1);
    const l = limiter({ algorithm, maxWaitDuration: 100 });
    const ac = new AbortController();
    const work = deferred<string>();
    const call = track(l.execute(() => work.promise, { signal: ac.signal }));
    const next = track(l.execute(() => 'next'));
    await clock.advance(5);
    ac.abort(new Error('bye'));
    await flush();
    expect(call.state).toBe('rejected');
    expect((call.error as Error).message).toBe('bye');
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    expect(l.metrics).toMatchObject({ inFlight: 1, waiting: 1 });
    expect(next.state).toBe('pending');
    await clock.advance(10);
    work.resolve('late');
    await flush();
    expect(next.value).toBe('next');
    // The call that succeeded after its caller left is still a sample of the backend.
    expect(algorithm.samples[0]).toEqual({ at: 15, rtt: 15, inFlight: 1, didDrop: false });
  });

  it('an error after the caller aborted feeds no sample', async () => {
    const algorithm = new RecordingAlgorithm(1);
    const l = limiter({ algorithm, isDrop: () => true });
    const ac = new AbortController();
    const work = deferred<string>();
    const call = l.execute(() => work.promise, { signal: ac.signal }).catch((e: unknown) => e);
    ac.abort(new Error('bye'));
    work.reject(new Error('aborted too'));
    expect(((await call) as Error).message).toBe('bye');
    await flush();
    expect(algorithm.samples).toEqual([]);
    expect(l.inFlight).toBe(0);
  });

  it('any number of calls sharing one signal add one abort listener, and none once they have ended', async () => {
    const l = limiter({ algorithm: fixed(2), maxWaitDuration: 1000 });
    const ac = new AbortController();
    const holds = Array.from({ length: 6 }, () => deferred());
    const all = holds.map((h) => l.execute(() => h.promise, { signal: ac.signal }));
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    for (const h of holds) h.resolve();
    await Promise.all(all);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('a larger limit hands the new slots to waiters at once; a smaller one takes effect as calls end', async () => {
    const algorithm = new RecordingAlgorithm(1);
    algorithm.next.push(3, 1);
    const l = limiter({ algorithm, maxWaitDuration: 1000 });
    const { holds, started } = calls(l, 5);
    expect(l.metrics).toMatchObject({ limit: 1, inFlight: 1, waiting: 4 });
    holds[0]!.resolve(0); // sample → limit 3: the freed slot and two new ones go to waiters 1, 2, 3
    await flush();
    expect(started).toEqual([0, 1, 2, 3]);
    expect(l.metrics).toMatchObject({ limit: 3, inFlight: 3, waiting: 1 });
    holds[1]!.resolve(1); // sample → limit 1: nobody more runs while 2 are in flight
    await flush();
    expect(l.metrics).toMatchObject({ limit: 1, inFlight: 2, waiting: 1 });
    holds[2]!.resolve(2);
    await flush();
    expect(l.metrics).toMatchObject({ inFlight: 1, waiting: 1 });
    holds[3]!.resolve(3);
    await flush();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    holds[4]!.resolve(4);
    await flush();
  });
});
