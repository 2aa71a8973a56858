import { AsyncLocalStorage } from 'node:async_hooks';
import { VirtualClock } from '@breakwater/core';
import { deferred, track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixed } from '../test/test-support.js';
import { AdaptiveLimiter } from './index.js';

let clock: VirtualClock;
beforeEach(() => {
  clock = new VirtualClock();
});
afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

/** Which call's async context a listener runs in (the test's own request id). */
const request = new AsyncLocalStorage<string>();

// A waiter's slot is handed over by the call that frees it, in that call's async context; the
// waiter publishes `callPermitted` itself, in its own continuation (contract: docs/adaptive.md).
describe('AdaptiveLimiter — a waiter publishes callPermitted itself, with waitMs', () => {
  it("execute and acquire: waitMs on the clock, in the waiter's own context, its partition named", async () => {
    const l = new AdaptiveLimiter('pg', { clock, window: false, algorithm: fixed(1), maxWaitDuration: 100, partitions: { batch: 1 } });
    const seen: string[] = [];
    l.on('callPermitted', (e) => seen.push(`${e.partition} waited ${e.waitMs} in ${request.getStore()}`));
    const hold = deferred<string>();
    const first = track(request.run('first', () => l.execute(() => hold.promise, { partition: 'batch' })));
    const second = track(request.run('second', () => l.execute(() => 'two', { partition: 'batch' })));
    const third = track(request.run('third', () => l.acquire()));
    await clock.advance(15);
    hold.resolve('one');
    await clock.advance(0);
    expect([first.value, second.value]).toEqual(['one', 'two']);
    await clock.advance(5);
    expect(third.settled).toBe(true);
    expect(seen).toEqual(['batch waited 0 in first', 'batch waited 15 in second', 'undefined waited 15 in third']);
    third.value!.onIgnore();
    expect(l.inFlight).toBe(0);
  });
});
