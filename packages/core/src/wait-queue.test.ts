import { getEventListeners } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { flush, track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Clock } from './clock.js';
import { keepsProcessAlive } from './keep-alive.js';
import { NEVER_ABORTED } from './policy.js';
import { VirtualClock } from './virtual-clock.js';
import { WaitQueue } from './wait-queue.js';

let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('WaitQueue — order and hand-out', () => {
  it('hands out oldest first; shift on an empty queue is null', async () => {
    const queue = new WaitQueue<string, number>({ clock });
    const waits = [1, 2, 3].map((n) => track(queue.wait(NEVER_ABORTED, Infinity, n)));
    expect(queue.size).toBe(3);
    const order: number[] = [];
    for (let waiter = queue.shift(); waiter !== null; waiter = queue.shift()) {
      order.push(waiter.item);
      waiter.resolve(`got ${waiter.item}`);
    }
    await flush();
    expect(order).toEqual([1, 2, 3]);
    expect(waits.map((w) => w.value)).toEqual(['got 1', 'got 2', 'got 3']);
    expect(queue.size).toBe(0);
    expect(queue.shift()).toBeNull();
  });

  it('pop hands out newest first (a LIFO owner); oldestItem and newestItem peek without taking', async () => {
    const queue = new WaitQueue<string, number>({ clock });
    expect([queue.oldestItem, queue.newestItem]).toEqual([undefined, undefined]);
    const waits = [1, 2, 3].map((n) => track(queue.wait(NEVER_ABORTED, 100, n)));
    expect([queue.oldestItem, queue.newestItem, queue.size]).toEqual([1, 3, 3]);
    const order: number[] = [];
    for (let waiter = queue.pop(); waiter !== null; waiter = queue.pop()) {
      order.push(waiter.item);
      waiter.resolve(`got ${waiter.item}`);
    }
    await flush();
    expect(order).toEqual([3, 2, 1]);
    expect(waits.map((w) => w.value)).toEqual(['got 1', 'got 2', 'got 3']);
    expect(clock.pendingTimers).toBe(0); // each popped waiter's timer went with it
    expect(queue.pop()).toBeNull();
  });

  it('with maxWaitMs Infinity sets no timer', () => {
    const queue = new WaitQueue({ clock });
    void queue.wait(NEVER_ABORTED, Infinity);
    expect(clock.pendingTimers).toBe(0);
    queue.shift()!.resolve();
  });

  it('the owner settles a waiter it took out as it likes (a rejection too); its timer is gone', async () => {
    const queue = new WaitQueue({ clock });
    const wait = track(queue.wait(NEVER_ABORTED, 100));
    expect(clock.pendingTimers).toBe(1);
    queue.shift()!.reject('closed');
    expect(clock.pendingTimers).toBe(0);
    await flush();
    expect(wait).toMatchObject({ state: 'rejected', error: 'closed' });
  });
});

describe('WaitQueue — abort', () => {
  it('a waiter whose signal aborts leaves at once with the reason; the others keep their order', async () => {
    const aborted = vi.fn();
    const queue = new WaitQueue<void, string>({ clock, onAbort: aborted });
    const controller = new AbortController();
    const a = track(queue.wait(NEVER_ABORTED, Infinity, 'a'));
    const b = track(queue.wait(controller.signal, 1000, 'b'));
    const c = track(queue.wait(NEVER_ABORTED, Infinity, 'c'));
    const reason = new Error('client went away');
    controller.abort(reason);
    // Out of the queue, its timer cleared and the hook called before the promise settles.
    expect(queue.size).toBe(2);
    expect(clock.pendingTimers).toBe(0);
    expect(aborted).toHaveBeenCalledExactlyOnceWith('b');
    await flush();
    expect(b).toMatchObject({ state: 'rejected', error: reason });
    expect(queue.shift()!.item).toBe('a');
    expect(queue.shift()!.item).toBe('c');
    expect([a.settled, c.settled]).toEqual([false, false]);
  });

  it('a long-lived signal shared by many waiters carries one listener, and none once they have left', () => {
    const queue = new WaitQueue({ clock });
    const controller = new AbortController();
    for (let i = 0; i < 20; i++) void queue.wait(controller.signal, Infinity);
    expect(listeners(controller.signal)).toBe(1);
    for (let i = 0; i < 19; i++) queue.shift()!.resolve();
    expect(listeners(controller.signal)).toBe(1);
    queue.shift()!.resolve();
    expect(listeners(controller.signal)).toBe(0);
  });

  it('an abort after the waiter left changes nothing', async () => {
    const aborted = vi.fn();
    const queue = new WaitQueue<void, void>({ clock, onAbort: aborted });
    const controller = new AbortController();
    const wait = track(queue.wait(controller.signal, Infinity));
    queue.shift()!.resolve();
    controller.abort('late');
    await flush();
    expect(wait).toMatchObject({ state: 'fulfilled' });
    expect(aborted).not.toHaveBeenCalled();
  });
});

describe('WaitQueue — max wait', () => {
  it('a waiter runs out after exactly maxWaitMs on the clock (not before) and rejects with the owner’s error', async () => {
    const onTimeout = vi.fn((item: string, waitedMs: number) => ({ error: new Error(`${item}: nothing within ${waitedMs} ms`) }));
    const queue = new WaitQueue<void, string>({ clock, onTimeout });
    const wait = track(queue.wait(NEVER_ABORTED, 50, 'db'));
    await clock.advance(49);
    expect(wait.settled).toBe(false);
    expect(queue.size).toBe(1);
    await clock.advance(1);
    expect(queue.size).toBe(0);
    expect(onTimeout).toHaveBeenCalledExactlyOnceWith('db', 50);
    expect(wait).toMatchObject({ state: 'rejected', error: new Error('db: nothing within 50 ms') });
  });

  it('onTimeout may grant instead: a wait whose end is the grant resolves with its result', async () => {
    const queue = new WaitQueue<string>({ clock, onTimeout: () => ({ result: 'permits are here' }) });
    const controller = new AbortController();
    const wait = track(queue.wait(controller.signal, 250));
    await clock.advance(250);
    expect(wait).toMatchObject({ state: 'fulfilled', value: 'permits are here' });
    expect(listeners(controller.signal)).toBe(0);
  });

  it('without onTimeout a waiter that ran out rejects with an Error saying how long it waited', async () => {
    const queue = new WaitQueue({ clock });
    const wait = track(queue.wait(NEVER_ABORTED, 10));
    await clock.advance(10);
    expect(wait).toMatchObject({ state: 'rejected', error: new Error('WaitQueue: the wait ran out after 10 ms') });
  });
});

describe('WaitQueue — keeping the process alive', () => {
  it('a waiter with a max wait on Node-like timers holds the process until it leaves, however it leaves', async () => {
    const virtual = new VirtualClock();
    // A VirtualClock whose timers look like Node's (they have ref): the queue holds the process for them.
    const nodeLike: Clock = {
      now: () => virtual.now(),
      setTimeout: (fn, ms) => Object.assign(virtual.setTimeout(fn, ms), { ref() {}, unref() {} }),
      clearTimeout: (handle) => virtual.clearTimeout(handle),
    };
    const queue = new WaitQueue({ clock: nodeLike, onTimeout: () => ({ error: 'full' }) });
    const controller = new AbortController();
    await nextTurn();
    const waits = [queue.wait(NEVER_ABORTED, 100), queue.wait(controller.signal, 100), queue.wait(NEVER_ABORTED, 100)].map((w) => w.catch((e: unknown) => e));
    expect(keepsProcessAlive()).toBe(true);
    queue.shift()!.resolve();
    controller.abort('gone');
    await nextTurn();
    expect(keepsProcessAlive()).toBe(true);
    await virtual.advance(100);
    expect(await Promise.all(waits)).toEqual([undefined, 'gone', 'full']);
    await nextTurn();
    expect(keepsProcessAlive()).toBe(false);
  });

  it('holds nothing on a VirtualClock, nor without a max wait', async () => {
    await nextTurn();
    const queue = new WaitQueue({ clock, onTimeout: () => ({ error: 'full' }) });
    const waits = [queue.wait(NEVER_ABORTED, 100), queue.wait(NEVER_ABORTED, Infinity)].map((w) => w.catch((e: unknown) => e));
    expect(keepsProcessAlive()).toBe(false);
    await clock.advance(100);
    queue.shift()!.resolve();
    expect(await Promise.all(waits)).toEqual(['full', undefined]);
  });
});
