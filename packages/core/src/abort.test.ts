import { getEventListeners } from 'node:events';
import { flush, track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { onAbort, sleep } from './abort.js';
import { systemClock } from './clock.js';
import { keepsProcessAlive } from './keep-alive.js';
import { NEVER_ABORTED } from './policy.js';
import { VirtualClock } from './virtual-clock.js';

let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('sleep', () => {
  it('resolves after exactly ms on the clock, not before', async () => {
    const wait = track(sleep(clock, 500));
    await clock.advance(499);
    expect(wait.settled).toBe(false);
    await clock.advance(1);
    expect(wait).toEqual({ state: 'fulfilled', settled: true, value: undefined });
  });

  it('with a signal: resolves after ms and leaves no listener on the signal', async () => {
    const controller = new AbortController();
    const wait = track(sleep(clock, 100, controller.signal));
    expect(listeners(controller.signal)).toBe(1);
    await clock.advance(100);
    expect(wait.settled).toBe(true);
    expect(listeners(controller.signal)).toBe(0);
    controller.abort();
  });

  it('rejects at once with the signal’s reason when it aborts, and clears the timer and the listener', async () => {
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const wait = sleep(clock, 10_000, controller.signal);
    expect(clock.pendingTimers).toBe(1);
    controller.abort(reason);
    await expect(wait).rejects.toBe(reason);
    expect(clock.now()).toBe(0);
    expect(clock.pendingTimers).toBe(0);
    expect(listeners(controller.signal)).toBe(0);
  });

  it('rejects with the default AbortError when aborted without a reason', async () => {
    const controller = new AbortController();
    const wait = sleep(clock, 100, controller.signal);
    controller.abort();
    await expect(wait).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('rejects at once, setting no timer and no listener, when the signal has already aborted', async () => {
    const reason = 'already';
    const signal = AbortSignal.abort(reason);
    const wait = sleep(clock, 100, signal);
    expect(clock.pendingTimers).toBe(0);
    expect(listeners(signal)).toBe(0);
    await expect(wait).rejects.toBe(reason);
  });

  it('an abort after the wait ended changes nothing', async () => {
    const controller = new AbortController();
    const wait = sleep(clock, 10, controller.signal);
    await clock.advance(10);
    controller.abort(new Error('late'));
    await expect(wait).resolves.toBeUndefined();
  });

  it('a long-lived signal shared by many waits carries one listener, and none once they have ended', async () => {
    const controller = new AbortController();
    const waits = Array.from({ length: 20 }, (_, i) => sleep(clock, i * 10, controller.signal));
    expect(listeners(controller.signal)).toBe(1);
    await clock.advance(95);
    expect(listeners(controller.signal)).toBe(1);
    controller.abort('stop');
    const results = await Promise.allSettled(waits);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(10);
    expect(listeners(controller.signal)).toBe(0);
  });

  it('adds no listener to NEVER_ABORTED', async () => {
    const wait = track(sleep(clock, 5, NEVER_ABORTED));
    expect(listeners(NEVER_ABORTED)).toBe(0);
    await clock.advance(5);
    expect(wait.settled).toBe(true);
  });

  it("keeps the process alive while it waits on the system clock (one shared handle, the timer itself stays unref'd), and lets go on abort", async () => {
    const setTimeoutSpy = vi.spyOn(systemClock, 'setTimeout');
    try {
      await flush();
      const controller = new AbortController();
      const wait = sleep(systemClock, 60_000, controller.signal);
      const handle = setTimeoutSpy.mock.results[0]!.value as ReturnType<typeof setTimeout>;
      expect(handle.hasRef()).toBe(false);
      expect(keepsProcessAlive()).toBe(true);
      controller.abort('done');
      await expect(wait).rejects.toBe('done');
      expect(listeners(controller.signal)).toBe(0);
      await flush();
      expect(keepsProcessAlive()).toBe(false);
    } finally {
      setTimeoutSpy.mockRestore();
    }
  });

  it('a wait of 0 (or less) ends at the next advance', async () => {
    const waits = [track(sleep(clock, 0)), track(sleep(clock, -5))];
    await clock.advance(0);
    expect(waits.map((w) => w.settled)).toEqual([true, true]);
  });
});

describe('onAbort', () => {
  it('calls the listener once when the signal aborts, and removes itself', () => {
    const controller = new AbortController();
    const listener = vi.fn();
    onAbort(controller.signal, listener);
    expect(listeners(controller.signal)).toBe(1);
    controller.abort();
    controller.abort();
    expect(listener).toHaveBeenCalledTimes(1);
    expect(listeners(controller.signal)).toBe(0);
  });

  it('any number of listeners on one signal are one listener on it; the last to stop removes it', () => {
    const controller = new AbortController();
    const calls: number[] = [];
    const stops = Array.from({ length: 50 }, (_, i) => onAbort(controller.signal, () => calls.push(i)));
    expect(listeners(controller.signal)).toBe(1);
    for (const stop of stops.slice(0, 49)) stop();
    expect(listeners(controller.signal)).toBe(1);
    stops[49]!();
    expect(listeners(controller.signal)).toBe(0);
    const again = onAbort(controller.signal, () => calls.push(99));
    expect(listeners(controller.signal)).toBe(1);
    controller.abort();
    expect(calls).toEqual([99]);
    expect(listeners(controller.signal)).toBe(0);
    again();
  });

  it('the same function registered twice is called twice, and stopped one registration at a time', () => {
    const controller = new AbortController();
    const listener = vi.fn();
    const first = onAbort(controller.signal, listener);
    onAbort(controller.signal, listener);
    first();
    controller.abort();
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('a listener that throws does not stop the others, and is reported once as a warning', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const controller = new AbortController();
      const after = vi.fn();
      onAbort(controller.signal, () => {
        throw new Error('listener');
      });
      onAbort(controller.signal, after);
      controller.abort();
      expect(after).toHaveBeenCalledTimes(1);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]![0]).toMatch(/^An abort listener threw; .*Error: listener/s);
      expect(warn.mock.calls[0]![1]).toEqual({ type: 'BreakwaterListenerWarning' });
    } finally {
      warn.mockRestore();
    }
  });

  it('the returned function stops listening, and may be called again', () => {
    const controller = new AbortController();
    const listener = vi.fn();
    const stop = onAbort(controller.signal, listener);
    stop();
    stop();
    expect(listeners(controller.signal)).toBe(0);
    controller.abort();
    expect(listener).not.toHaveBeenCalled();
  });

  it('with no signal, or NEVER_ABORTED, does nothing and returns a shared no-op', () => {
    const listener = vi.fn();
    const a = onAbort(undefined, listener);
    const b = onAbort(NEVER_ABORTED, listener);
    expect(a).toBe(b);
    expect(listeners(NEVER_ABORTED)).toBe(0);
    a();
    expect(listener).not.toHaveBeenCalled();
  });

  it('like addEventListener, never calls the listener for a signal that has already aborted', () => {
    const signal = AbortSignal.abort();
    const listener = vi.fn();
    const stop = onAbort(signal, listener);
    expect(listener).not.toHaveBeenCalled();
    stop();
    expect(listeners(signal)).toBe(0);
  });
});
