import { AsyncLocalStorage } from 'node:async_hooks';
import { VirtualClock } from '@breakwater/core';
import { deferred, track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Bulkhead, PoolBulkhead } from './index.js';

let clock: VirtualClock;
beforeEach(() => {
  clock = new VirtualClock();
});
afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

/** Which call's async context a listener or a function runs in (the test's own request id). */
const request = new AsyncLocalStorage<string>();

// A waiter's slot is handed over by the call that frees it, in that call's async context; the
// waiter publishes `callPermitted` itself, in its own continuation, with how long it waited
// (contract: docs/bulkhead.md).
describe('Bulkhead — a waiter publishes callPermitted itself, with waitMs', () => {
  for (const fairCallHandlingEnabled of [true, false]) {
    it(`execute (fair: ${fairCallHandlingEnabled}): waitMs on the clock, in the waiter's own context, after the freeing call's callFinished`, async () => {
      const b = new Bulkhead('db', { maxConcurrentCalls: 1, maxWaitDuration: 100, fairCallHandlingEnabled, clock });
      const seen: string[] = [];
      b.on('*', (e) => seen.push(`${e.type}@${e.at}${'waitMs' in e ? ` waited ${e.waitMs}` : ''} in ${request.getStore()}`));
      const hold = deferred<string>();
      const first = track(request.run('first', () => b.execute(() => hold.promise)));
      const second = track(request.run('second', () => b.execute(() => `ran in ${request.getStore()}`)));
      await clock.advance(30);
      hold.resolve('one');
      await clock.advance(0);
      expect([first.value, second.value]).toEqual(['one', 'ran in second']);
      expect(seen).toEqual([
        'callPermitted@0 waited 0 in first',
        'callFinished@30 in first',
        'callPermitted@30 waited 30 in second',
        'callFinished@30 in second',
      ]);
    });
  }

  it('acquirePermission: the same, once the permission is handed over; at once, waitMs 0', async () => {
    const b = new Bulkhead('db', { maxConcurrentCalls: 1, maxWaitDuration: 100, clock });
    const seen: string[] = [];
    b.on('callPermitted', (e) => seen.push(`${e.waitMs} in ${request.getStore()}`));
    await request.run('first', () => b.acquirePermission());
    const second = track(request.run('second', () => b.acquirePermission()));
    await clock.advance(45);
    expect(seen).toEqual(['0 in first']);
    request.run('first', () => b.onComplete());
    await clock.advance(0);
    expect(second.settled).toBe(true);
    expect(seen).toEqual(['0 in first', '45 in second']);
    b.onComplete();
    expect(b.metrics.availableConcurrentCalls).toBe(1);
  });

  it('a call admitted at once (tryAcquirePermission, execute): waitMs 0', async () => {
    const b = new Bulkhead('db', { clock });
    const waits: number[] = [];
    b.on('callPermitted', (e) => waits.push(e.waitMs));
    expect(b.tryAcquirePermission()).toBe(true);
    b.onComplete();
    await b.execute(() => 'x');
    expect(waits).toEqual([0, 0]);
  });
});

describe('PoolBulkhead — a queued call starts in its own context and publishes its wait', () => {
  it('callPermitted with the time in the queue, and fn, run in the queued call’s context', async () => {
    const p = new PoolBulkhead('pdf', { coreThreadPoolSize: 1, maxThreadPoolSize: 1, queueCapacity: 1, clock });
    const seen: string[] = [];
    p.on('callPermitted', (e) => seen.push(`${e.waitMs} in ${request.getStore()}`));
    const hold = deferred<string>();
    const first = track(request.run('first', () => p.execute(() => hold.promise)));
    const second = track(request.run('second', () => p.execute(() => `ran in ${request.getStore()}`)));
    await clock.advance(12);
    hold.resolve('one');
    await clock.advance(0);
    expect([first.value, second.value]).toEqual(['one', 'ran in second']);
    expect(seen).toEqual(['0 in first', '12 in second']);
    await p.close();
  });

  it('a call handed a slot as the pool closes is refused as a queued call, and gives the slot back', async () => {
    const p = new PoolBulkhead('pdf', { coreThreadPoolSize: 1, maxThreadPoolSize: 1, queueCapacity: 1, clock });
    const types: string[] = [];
    p.on('*', (e) => types.push(e.type));
    const hold = deferred<string>();
    const first = p.execute(() => hold.promise);
    let ran = false;
    const second = track(
      p.execute(() => {
        ran = true;
      }),
    );
    // The first call ends and hands its slot over; the pool closes in the next microtask, after
    // the hand-over and before the second call's continuation starts it.
    p.on('callFinished', () => queueMicrotask(() => void p.close()));
    hold.resolve('one');
    expect(await first).toBe('one');
    await clock.advance(0);
    expect(second.error).toMatchObject({ name: 'BulkheadFullError', message: expect.stringContaining('is closed; the call was queued and never ran') });
    expect(ran).toBe(false);
    expect(types).toEqual(['callPermitted', 'callFinished', 'callRejected']);
    expect(p.metrics.activeCount).toBe(0);
    await p.close();
  });
});
