import { getEventListeners } from 'node:events';
import { BulkheadFullError, systemClock, VirtualClock } from '@breakwater/core';
import { flush, track } from '@breakwater/test-support';
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

describe('Bulkhead — Resilience4j SemaphoreBulkheadTest scenarios', () => {
  it('counts permits and publishes permitted, rejected and finished in order', () => {
    const b = bulkhead({ maxConcurrentCalls: 2 });
    const types: string[] = [];
    b.on('*', (e) => types.push(e.type));
    expect(b.name).toBe('test');
    expect(b.kind).toBe('bulkhead');
    expect(b.tryAcquirePermission()).toBe(true);
    expect(b.tryAcquirePermission()).toBe(true);
    expect(b.metrics.availableConcurrentCalls).toBe(0);
    expect(b.tryAcquirePermission()).toBe(false);
    b.onComplete();
    expect(b.metrics.availableConcurrentCalls).toBe(1);
    b.onComplete();
    expect(b.metrics.availableConcurrentCalls).toBe(2);
    expect(b.tryAcquirePermission()).toBe(true);
    expect(types).toEqual(['callPermitted', 'callPermitted', 'callRejected', 'callFinished', 'callFinished', 'callPermitted']);
  });

  it('has the defaults of Resilience4j', () => {
    const b = new Bulkhead('test');
    expect(b.config).toEqual({
      maxConcurrentCalls: 25,
      maxWaitDuration: 0,
      fairCallHandlingEnabled: true,
      writableStackTraceEnabled: true,
      clock: systemClock,
    });
    expect(b.metrics).toEqual({ availableConcurrentCalls: 25, maxAllowedConcurrentCalls: 25, waitingCalls: 0 });
    expect(Bulkhead.of('x').name).toBe('x');
  });

  it('a caller waits at most maxWaitDuration, then is refused', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1, maxWaitDuration: 50 });
    expect(b.tryAcquirePermission()).toBe(true);
    const waiting = track(b.acquirePermission());
    expect(b.metrics.waitingCalls).toBe(1);
    await clock.advance(49);
    expect(waiting.state).toBe('pending');
    await clock.advance(1);
    expect(waiting.state).toBe('rejected');
    expect(waiting.error).toBeInstanceOf(BulkheadFullError);
    expect(waiting.error).toMatchObject({
      bulkheadName: 'test',
      message: "Bulkhead 'test' is full and freed no slot within maxWaitDuration (50 ms)",
    });
    expect(b.metrics.waitingCalls).toBe(0);
  });

  it('a waiter whose signal aborts stops waiting at once with the reason (an interrupt in Java)', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1, maxWaitDuration: 2000 });
    b.tryAcquirePermission();
    const ac = new AbortController();
    const waiting = track(b.acquirePermission({ signal: ac.signal }));
    await clock.advance(500);
    const reason = new Error('cancelled');
    ac.abort(reason);
    await flush();
    expect(waiting).toMatchObject({ state: 'rejected', error: reason });
    expect(b.metrics.waitingCalls).toBe(0);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    b.onComplete();
    expect(b.metrics.availableConcurrentCalls).toBe(1);
  });

  it('with maxConcurrentCalls 0 nothing gets in', async () => {
    const b = bulkhead({ maxConcurrentCalls: 0 });
    expect(b.tryAcquirePermission()).toBe(false);
    await expect(b.execute(() => 1)).rejects.toThrow(BulkheadFullError);
  });

  it('acquirePermission is refused after the wait when the only permit is held', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1, maxWaitDuration: 10 });
    b.tryAcquirePermission();
    const p = track(b.acquirePermission());
    await clock.advance(10);
    expect(p.error).toBeInstanceOf(BulkheadFullError);
  });

  it('changes maxConcurrentCalls and maxWaitDuration when idle', () => {
    const b = bulkhead({ maxConcurrentCalls: 3, maxWaitDuration: 5000 });
    b.changeConfig({ maxConcurrentCalls: 5 });
    expect(b.config).toMatchObject({ maxConcurrentCalls: 5, maxWaitDuration: 5000 });
    expect(b.metrics.availableConcurrentCalls).toBe(5);
    b.changeConfig({ maxConcurrentCalls: 2 });
    expect(b.config).toMatchObject({ maxConcurrentCalls: 2, maxWaitDuration: 5000 });
    expect(b.metrics).toEqual({ availableConcurrentCalls: 2, maxAllowedConcurrentCalls: 2, waitingCalls: 0 });
    b.changeConfig({ maxWaitDuration: 3000 });
    expect(b.config).toMatchObject({ maxConcurrentCalls: 2, maxWaitDuration: 3000 });
    b.changeConfig({ maxWaitDuration: '7s' });
    expect(b.config.maxWaitDuration).toBe(7000);
    b.changeConfig({});
    expect(b.config).toMatchObject({ maxConcurrentCalls: 2, maxWaitDuration: 7000 });
  });

  it('grows while a call holds a permit; shrinks without blocking the caller (Resilience4j blocks it)', () => {
    const b = bulkhead({ maxConcurrentCalls: 1 });
    expect(b.tryAcquirePermission()).toBe(true);
    expect(b.tryAcquirePermission()).toBe(false);
    b.changeConfig({ maxConcurrentCalls: 2 });
    expect(b.metrics.availableConcurrentCalls).toBe(1);
    expect(b.tryAcquirePermission()).toBe(true);
    expect(b.metrics.availableConcurrentCalls).toBe(0);
    b.changeConfig({ maxConcurrentCalls: 1 }); // returns at once, two calls still hold permits
    expect(b.config.maxConcurrentCalls).toBe(1);
    expect(b.metrics.availableConcurrentCalls).toBe(0);
    b.onComplete();
    expect(b.metrics.availableConcurrentCalls).toBe(0);
    expect(b.tryAcquirePermission()).toBe(false);
    b.onComplete();
    expect(b.metrics.availableConcurrentCalls).toBe(1);
  });

  it('growing lets a waiting caller in at once', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1, maxWaitDuration: 500_000 });
    b.tryAcquirePermission();
    const waiting = track(b.acquirePermission());
    b.changeConfig({ maxConcurrentCalls: 2 });
    await flush();
    expect(waiting.state).toBe('fulfilled');
    expect(b.metrics).toEqual({ availableConcurrentCalls: 0, maxAllowedConcurrentCalls: 2, waitingCalls: 0 });
    b.onComplete();
    expect(b.metrics.availableConcurrentCalls).toBe(1);
    b.onComplete();
  });

  it('a waiter keeps its wait when maxWaitDuration changes; new callers follow the new one', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1, maxWaitDuration: 1000 });
    b.tryAcquirePermission();
    const waiting = track(b.acquirePermission());
    b.changeConfig({ maxWaitDuration: 0 });
    await expect(b.acquirePermission()).rejects.toThrow("Bulkhead 'test' is full and does not permit further calls");
    await clock.advance(999);
    expect(waiting.state).toBe('pending');
    await clock.advance(1);
    expect(waiting.state).toBe('rejected');
  });

  it('changes applied one after another end with the last (changePermissionsConcurrently)', () => {
    const b = bulkhead({ maxConcurrentCalls: 3 });
    b.tryAcquirePermission(); // a running call
    b.tryAcquirePermission(); // this caller
    expect(b.metrics.availableConcurrentCalls).toBe(1);
    b.changeConfig({ maxConcurrentCalls: 1 });
    b.changeConfig({ maxConcurrentCalls: 4 });
    b.onComplete(); // the running call ends
    expect(b.config.maxConcurrentCalls).toBe(4);
    expect(b.metrics.availableConcurrentCalls).toBe(3);
  });
});

describe('Bulkhead — fairness', () => {
  it('fair: a freed permit goes to the oldest waiter, never to a newcomer', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1, maxWaitDuration: 1000 });
    b.tryAcquirePermission();
    const waiter = track(b.acquirePermission());
    b.onComplete();
    expect(b.tryAcquirePermission()).toBe(false); // the slot is already the waiter's
    await flush();
    expect(waiter.state).toBe('fulfilled');
    expect(b.metrics.availableConcurrentCalls).toBe(0);
    b.onComplete();
  });

  it('unfair: a newcomer arriving before the waiter wakes takes the freed permit; the waiter stays first', async () => {
    const b = bulkhead({ maxConcurrentCalls: 1, maxWaitDuration: 1000, fairCallHandlingEnabled: false });
    b.tryAcquirePermission();
    const first = track(b.acquirePermission());
    const second = track(b.acquirePermission());
    b.onComplete();
    expect(b.tryAcquirePermission()).toBe(true); // barged in, synchronously after the release
    await flush();
    expect(first.state).toBe('pending');
    expect(b.metrics.waitingCalls).toBe(2);
    b.onComplete(); // nobody barges this time: the oldest waiter is woken on the next microtask
    await flush();
    expect(first.state).toBe('fulfilled');
    expect(second.state).toBe('pending');
    b.onComplete();
    await flush();
    expect(second.state).toBe('fulfilled');
    b.onComplete();
    expect(b.metrics.availableConcurrentCalls).toBe(1);
  });
});

describe('Bulkhead — releasing', () => {
  it('never releases above maxConcurrentCalls', () => {
    const b = bulkhead({ maxConcurrentCalls: 2 });
    const finished = vi.fn();
    b.on('callFinished', finished);
    b.onComplete();
    b.releasePermission();
    expect(b.metrics.availableConcurrentCalls).toBe(2);
    expect(finished).not.toHaveBeenCalled();
    b.tryAcquirePermission();
    b.releasePermission(); // no event: the permission was not used
    b.releasePermission();
    expect(b.metrics.availableConcurrentCalls).toBe(2);
    expect(finished).not.toHaveBeenCalled();
  });

  it('publishes nothing it has no listener for, and stops after unsubscribe', () => {
    const b = bulkhead({ maxConcurrentCalls: 1 });
    const seen: string[] = [];
    const off = b.on('callRejected', (e) => seen.push(`${e.type} ${e.name} ${e.at}`));
    b.tryAcquirePermission();
    clock.set(5);
    b.tryAcquirePermission();
    off();
    b.tryAcquirePermission();
    expect(seen).toEqual(['callRejected test 5']);
  });

  it('writableStackTraceEnabled: false rejects without a stack', async () => {
    const b = bulkhead({ maxConcurrentCalls: 0, writableStackTraceEnabled: false });
    const e = (await b.execute(() => 1).catch((x: unknown) => x)) as Error;
    expect(e).toBeInstanceOf(BulkheadFullError);
    expect(e.stack?.split('\n')).toHaveLength(1);
  });

  it('metrics is a fresh plain object', () => {
    const b = bulkhead();
    expect(b.metrics).not.toBe(b.metrics);
    expect(Object.getPrototypeOf(b.metrics)).toBe(Object.prototype);
  });
});

describe('BulkheadRegistry', () => {
  it('gets or creates bulkheads from shared configs', () => {
    const registry = new BulkheadRegistry({ defaultConfig: { maxConcurrentCalls: 4, clock }, configs: { small: { maxConcurrentCalls: 1 } } });
    const db = registry.get('db');
    expect(registry.get('db')).toBe(db);
    expect(db.config.maxConcurrentCalls).toBe(4);
    expect(registry.get('cache', 'small').config.maxConcurrentCalls).toBe(1);
    expect(registry.get('x', { maxWaitDuration: 10 }).config).toMatchObject({ maxConcurrentCalls: 4, maxWaitDuration: 10 });
    expect(registry.find('nope')).toBeUndefined();
    expect(registry.remove('db')).toBe(db);
  });
});
