import { VirtualClock } from '@breakwater/core';
import { deferred, flush, type Deferred } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixed, RecordingAlgorithm } from '../test/test-support.js';
import { AdaptiveLimiter, guaranteedSlots, type AdaptiveLimiterConfig } from './index.js';

let clock: VirtualClock;
beforeEach(() => {
  clock = new VirtualClock();
});
afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

const partitions = { critical: 0.7, batch: 0.3 };
const limiter = (config: AdaptiveLimiterConfig = {}) => new AdaptiveLimiter('pg', { clock, window: false, partitions, maxWaitDuration: 1000, ...config });

/** A call in `partition` (undefined: none) that runs until its deferred settles; `log` records its label when it starts. */
function start(l: AdaptiveLimiter, label: string, partition: string | undefined, log: string[]): Deferred<void> & { call: Promise<void> } {
  const hold = deferred();
  const call = l.execute(
    () => {
      log.push(label);
      return hold.promise;
    },
    partition === undefined ? undefined : { partition },
  );
  return { ...hold, call };
}

describe('guaranteedSlots', () => {
  it('is max(1, ⌈limit·share⌉), with no float surprise', () => {
    expect(guaranteedSlots(100, 0.7)).toBe(70);
    expect(guaranteedSlots(10, 0.3)).toBe(3);
    expect(guaranteedSlots(10, 0.35)).toBe(4);
    expect(guaranteedSlots(3, 0.3)).toBe(1);
    expect(guaranteedSlots(1, 0.05)).toBe(1);
  });
});

describe('AdaptiveLimiter — partitions (contract: docs/adaptive.md)', () => {
  it('below the limit a partition borrows freely: batch alone takes every slot', () => {
    const l = limiter({ algorithm: fixed(10), maxWaitDuration: 0 });
    const tokens = Array.from({ length: 10 }, () => l.tryAcquire({ partition: 'batch' }));
    expect(tokens.every((t) => t !== null && t.partition === 'batch')).toBe(true);
    expect(l.tryAcquire({ partition: 'critical' })).toBeNull(); // the global limit is a hard cap
    expect(l.metrics).toEqual({
      limit: 10,
      inFlight: 10,
      waiting: 0,
      rejected: 1,
      partitions: { critical: { guaranteed: 7, inFlight: 0, waiting: 0 }, batch: { guaranteed: 3, inFlight: 10, waiting: 0 } },
    });
    for (const t of tokens) t!.onIgnore();
  });

  it('when full, a freed slot goes to a waiter of a partition below its share before older waiters of others', async () => {
    const l = limiter({ algorithm: fixed(4) });
    const log: string[] = [];
    const running = ['b1', 'b2', 'b3', 'b4'].map((label) => start(l, label, 'batch', log));
    const waiting = [start(l, 'b5', 'batch', log), start(l, 'n1', undefined, log), start(l, 'c1', 'critical', log), start(l, 'c2', 'critical', log)];
    expect(l.metrics.partitions).toEqual({ critical: { guaranteed: 3, inFlight: 0, waiting: 2 }, batch: { guaranteed: 2, inFlight: 4, waiting: 1 } });
    running[0]!.resolve();
    await flush();
    expect(log.slice(4)).toEqual(['c1']); // critical is owed 3 slots: its oldest waiter first, though b5 and n1 came before
    running[1]!.resolve();
    await flush();
    expect(log.slice(4)).toEqual(['c1', 'c2']);
    running[2]!.resolve();
    await flush();
    // critical has 2 of its 3 but nobody of it waits; batch has 1 of its 2: b5 (owed) goes first, then the one without a partition
    expect(log.slice(4)).toEqual(['c1', 'c2', 'b5']);
    running[3]!.resolve();
    await flush();
    expect(log.slice(4)).toEqual(['c1', 'c2', 'b5', 'n1']);
    for (const w of waiting) w.resolve();
    await Promise.all([...running, ...waiting].map((c) => c.call));
    expect(l.metrics).toMatchObject({ inFlight: 0, waiting: 0 });
  });

  it('a partition at or above its share is served in FIFO order with the calls without a partition', async () => {
    const l = limiter({ algorithm: fixed(2), partitions: { critical: 0.5, batch: 0.5 } });
    const log: string[] = [];
    const running = [start(l, 'c1', 'critical', log), start(l, 'b1', 'batch', log)];
    const waiting = [start(l, 'n1', undefined, log), start(l, 'c2', 'critical', log), start(l, 'n2', undefined, log)];
    running[0]!.resolve(); // critical drops to 0 of 1: c2 is owed
    await flush();
    expect(log.slice(2)).toEqual(['c2']);
    running[1]!.resolve(); // batch drops to 0 but has no waiter: the oldest, n1
    await flush();
    expect(log.slice(2)).toEqual(['c2', 'n1']);
    for (const w of waiting) w.resolve();
    await flush();
    expect(log.slice(2)).toEqual(['c2', 'n1', 'n2']);
    await Promise.all([...running, ...waiting].map((c) => c.call));
  });

  it('the guarantees follow the limit', async () => {
    const algorithm = new RecordingAlgorithm(10);
    algorithm.next.push(20);
    const l = limiter({ algorithm });
    expect(l.metrics.partitions['critical']!.guaranteed).toBe(7);
    await l.execute(() => 1, { partition: 'critical' });
    expect(l.metrics.partitions).toEqual({ critical: { guaranteed: 14, inFlight: 0, waiting: 0 }, batch: { guaranteed: 6, inFlight: 0, waiting: 0 } });
  });

  it('events and refusals name the partition', async () => {
    const l = limiter({ algorithm: fixed(1), maxWaitDuration: 0 });
    const events: unknown[] = [];
    l.on('*', ({ time: _t, at: _a, name: _n, ...e }) => events.push(e));
    const token = l.tryAcquire({ partition: 'critical' })!;
    await expect(l.execute(() => 1, { partition: 'batch' })).rejects.toThrow(
      "AdaptiveLimiter 'pg' does not permit further calls in partition 'batch' (limit 1, 1 in flight)",
    );
    token.onSuccess();
    expect(events).toEqual([
      { type: 'callPermitted', partition: 'critical', waitMs: 0 },
      { type: 'callRejected', partition: 'batch', limit: 1, inFlight: 1 },
      { type: 'callFinished', partition: 'critical', rtt: 0, didDrop: false, ignored: false },
    ]);
  });

  it('an unknown partition is a RangeError naming the known ones; a partition without partitions a TypeError', async () => {
    const l = limiter();
    const message = "AdaptiveLimiter 'pg': unknown partition 'bulk' (partitions: 'critical', 'batch')";
    await expect(l.execute(() => 1, { partition: 'bulk' })).rejects.toThrow(new RangeError(message));
    await expect(l.acquire({ partition: 'bulk' })).rejects.toThrow(new RangeError(message));
    expect(() => l.tryAcquire({ partition: 'bulk' })).toThrow(new RangeError(message));
    expect(() => l.inPartition('bulk')).toThrow(new RangeError(message));
    expect(() => l.tryAcquire({ partition: 7 as unknown as string })).toThrow(
      new TypeError("AdaptiveLimiter 'pg': partition must be a string (one of 'critical', 'batch'), got 7"),
    );
    const plain = new AdaptiveLimiter('plain', { clock, algorithm: fixed(1) });
    await expect(plain.execute(() => 1, { partition: 'critical' })).rejects.toThrow(
      new TypeError("AdaptiveLimiter 'plain': partition 'critical' given, but the limiter has no partitions"),
    );
    expect(l.inFlight).toBe(0);
  });

  it('inPartition gives a Policy view of the limiter in that partition, the same one each time', async () => {
    const l = limiter({ algorithm: fixed(3) });
    const batch = l.inPartition('batch');
    expect(l.inPartition('batch')).toBe(batch);
    expect(batch).toMatchObject({ kind: 'adaptiveLimiter', name: 'pg', partition: 'batch' });
    const hold = deferred<string>();
    const call = batch.execute(() => hold.promise);
    const decorated = batch.decorate((x: number) => x * 2);
    const twice = decorated(21);
    expect(l.metrics.partitions['batch']!.inFlight).toBe(2);
    expect(await twice).toBe(42);
    hold.resolve('done');
    expect(await call).toBe('done');
    const ac = new AbortController();
    ac.abort(new Error('already'));
    await expect(batch.execute(() => 1, { signal: ac.signal })).rejects.toThrow('already');
    expect(l.inFlight).toBe(0);
  });
});
