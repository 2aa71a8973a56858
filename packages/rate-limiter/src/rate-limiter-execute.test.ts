import { getEventListeners } from 'node:events';
import { RequestNotPermittedError, sleep, VirtualClock } from '@breakwater/core';
import { flush, track, twoFaced } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from './index.js';

let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
});
afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

describe('RateLimiter — execute and decorate', () => {
  it('runs fn with the context, turns a sync throw and a plain value into a promise', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 10, clock });
    const ctx = { signal: new AbortController().signal, attempt: 2 };
    await expect(rl.execute((c) => c, ctx)).resolves.toBe(ctx);
    const boom = new Error('boom');
    const thrown = rl.execute(() => {
      throw boom;
    });
    await expect(thrown).rejects.toBe(boom);
    await expect(rl.execute(() => Promise.reject('x'))).rejects.toBe('x');
    await expect(rl.execute(() => undefined)).resolves.toBeUndefined();
    const add = rl.decorate((a: number, b: number) => a + b);
    await expect(add(2, 3)).resolves.toBe(5);
    expect(rl.metrics.availablePermissions).toBe(5);
  });

  it('never throws synchronously, even for a bad signal', async () => {
    const rl = new RateLimiter('pg', { clock });
    const p = rl.execute(() => 1, { signal: 'nope' as unknown as AbortSignal });
    await expect(p).rejects.toThrow(TypeError);
  });

  it('waits for its permit before calling fn, and fn is not called when refused', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 1, limitRefreshPeriod: 100, timeoutDuration: 100, clock });
    const fn = vi.fn(() => 'ok');
    await rl.execute(fn);
    const second = track(rl.execute(fn));
    expect(fn).toHaveBeenCalledTimes(1);
    const third = await rl.execute(fn).catch((e: unknown) => e);
    expect(third).toBeInstanceOf(RequestNotPermittedError);
    expect(third).toMatchObject({ waitMs: 200 });
    await clock.advance(100);
    expect(second).toMatchObject({ state: 'fulfilled', value: 'ok' });
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it('an already aborted signal rejects with its reason and takes nothing', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 1, clock });
    const fn = vi.fn();
    await expect(rl.execute(fn, { signal: AbortSignal.abort('gone') })).rejects.toBe('gone');
    await expect(rl.acquirePermission(1, { signal: AbortSignal.abort('gone') })).rejects.toBe('gone');
    expect(fn).not.toHaveBeenCalled();
    expect(rl.metrics.availablePermissions).toBe(1);
  });

  it('a long-lived signal keeps no listener from calls that have ended, and one while they run', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 1, limitRefreshPeriod: 10, timeoutDuration: 100, clock });
    const { signal } = new AbortController();
    const calls = [rl.execute(() => 1, { signal }), rl.execute(() => 2, { signal }), rl.execute(() => 3, { signal })];
    // One waiting call runs, two wait: one listener on the signal for all of them (contract: docs/conventions.md).
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    await clock.advance(20);
    await expect(Promise.all(calls)).resolves.toEqual([1, 2, 3]);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('is a Policy that can be nested: a passed-down context is used as it is', async () => {
    const rl = new RateLimiter('pg', { clock });
    const outer = { signal: new AbortController().signal, attempt: 3 };
    const seen = await rl.execute((ctx) => ctx.attempt, outer);
    expect(seen).toBe(3);
  });
});
describe('RateLimiter — hostile input: settles once, never throws (contract: docs/conventions.md)', () => {
  it('a native promise whose then calls both handlers resolves the call once, with the value', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 10, clock });
    await expect(rl.execute(() => twoFaced('ok'))).resolves.toBe('ok');
    await expect(rl.withPermits(2).execute(() => twoFaced('two'))).resolves.toBe('two');
    expect(rl.metrics.availablePermissions).toBe(7);
  });

  it('a thenable whose then getter or then throws is a rejection of the call, not a synchronous throw', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 10, clock });
    const getterThrows = {
      get then(): never {
        throw new Error('then getter');
      },
    };
    const thenThrows = {
      then(): never {
        throw new Error('then threw');
      },
    };
    let outcome: Promise<unknown> | undefined;
    expect(() => (outcome = rl.execute(() => getterThrows))).not.toThrow();
    await expect(outcome).rejects.toThrow('then getter');
    await expect(rl.execute(() => thenThrows)).rejects.toThrow('then threw');
  });

  it('options null is no options; a fake signal (even with an attempt) is a TypeError rejection that takes no permit', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 10, clock });
    await expect(rl.execute(() => 1, null)).resolves.toBe(1);
    await expect(rl.acquirePermission(1, null)).resolves.toBeUndefined();
    const fake = { signal: { aborted: false }, attempt: 1 } as unknown as { signal: AbortSignal };
    let p: Promise<unknown> | undefined;
    expect(() => (p = rl.execute(() => 1, fake))).not.toThrow();
    await expect(p).rejects.toThrow(TypeError);
    await expect(rl.acquirePermission(1, fake)).rejects.toThrow(TypeError);
    await expect(rl.withPermits(2).execute(() => 1, fake)).rejects.toThrow(TypeError);
    expect(rl.metrics.availablePermissions).toBe(8);
  });
});
describe('RateLimiter — a caller’s abort while fn runs (contract: docs/conventions.md)', () => {
  it('rejects the call at once with the reason; fn goes on with ctx.signal aborted and its late value is dropped', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 5, clock });
    const ac = new AbortController();
    let seen: AbortSignal | undefined;
    const call = track(
      rl.execute(
        (ctx) => {
          seen = ctx.signal;
          return sleep(clock, 200).then(() => 'late');
        },
        { signal: ac.signal },
      ),
    );
    await clock.advance(50);
    expect(call.state).toBe('pending');
    ac.abort('client went away');
    await Promise.resolve();
    expect(call).toMatchObject({ state: 'rejected', error: 'client went away' });
    expect(seen?.aborted).toBe(true);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    await clock.advance(150);
    expect(call).toMatchObject({ state: 'rejected', error: 'client went away' });
    expect(rl.metrics.availablePermissions).toBe(4); // the permit was used: fn ran
  });

  it('the same for a call that waited for its permit, and drainPermissionsOnResult still sees fn’s own outcome', async () => {
    const outcomes: unknown[] = [];
    const rl = new RateLimiter('pg', {
      limitForPeriod: 1,
      limitRefreshPeriod: 100,
      timeoutDuration: 100,
      clock,
      drainPermissionsOnResult: (o) => (outcomes.push(o), false),
    });
    await rl.execute(() => 'first');
    const ac = new AbortController();
    const call = track(rl.execute(() => sleep(clock, 200).then(() => 'late'), { signal: ac.signal }));
    await clock.advance(150); // granted at 100, running since
    ac.abort('stop');
    await flush(); // promise callbacks only: no time passes
    expect(call).toMatchObject({ state: 'rejected', error: 'stop' });
    await clock.advance(150);
    expect(outcomes).toEqual([{ result: 'first' }, { result: 'late' }]);
  });

  it('an abort between the grant and the start does not start fn', async () => {
    const rl = new RateLimiter('pg', { limitForPeriod: 1, limitRefreshPeriod: 100, timeoutDuration: 100, clock });
    await rl.execute(() => 0);
    const ac = new AbortController();
    const fn = vi.fn(() => 1);
    const call = track(rl.execute(fn, { signal: ac.signal }));
    // A listener of the grant aborts the caller in the same instant.
    rl.on('successfulAcquire', () => ac.abort('too late'));
    await clock.advance(100);
    expect(call).toMatchObject({ state: 'rejected', error: 'too late' });
    expect(fn).not.toHaveBeenCalled();
  });
});
