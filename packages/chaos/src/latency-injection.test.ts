import { getEventListeners } from 'node:events';
import { VirtualClock, type CallContext, type Duration, type EventOf } from '@breakwater/core';
import { deferred, track } from '@breakwater/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { realFn } from '../test/strategies.js';
import { LatencyInjection, type ChaosEvents } from './index.js';

// The latency strategy (contract: docs/chaos.md): a wait on the clock before fn, abortable.

afterEach(() => {
  vi.restoreAllMocks();
});

const on = { enabled: true, rate: 1, random: () => 0 } as const;

describe('LatencyInjection', () => {
  it('waits exactly the latency on the clock, then calls fn; the injected event says how long, at its start', async () => {
    const clock = new VirtualClock();
    const slow = new LatencyInjection('pg', { ...on, latency: '1.5s', clock });
    const events: EventOf<ChaosEvents, 'injected'>[] = [];
    slow.on('injected', (e) => events.push(e));
    const calledAt: number[] = [];
    const callPromise = slow.execute(() => calledAt.push(clock.now()));
    const call = track(callPromise);
    expect(events).toMatchObject([{ strategy: 'latency', latencyMs: 1500, attempt: 1, at: 0 }]);
    await clock.advance(1499);
    expect(call.settled).toBe(false);
    expect(calledAt).toEqual([]);
    await clock.advance(1);
    expect(await callPromise).toBe(1);
    expect(calledAt).toEqual([1500]);
    expect(clock.pendingTimers).toBe(0);
    expect(slow.metrics).toEqual({ numberOfInjectedCalls: 1, numberOfCallsNotInjected: 0 });
  });

  it('a caller’s abort during the wait rejects at once with its reason: timer cleared, no listener left, fn never called', async () => {
    const clock = new VirtualClock();
    const slow = new LatencyInjection('pg', { ...on, latency: 10_000, clock });
    const ac = new AbortController();
    const fn = realFn();
    const callPromise = slow.execute(fn, { signal: ac.signal });
    await clock.advance(3000);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    const reason = new Error('caller gave up');
    ac.abort(reason);
    await expect(callPromise).rejects.toBe(reason);
    expect(clock.pendingTimers).toBe(0);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    await clock.advance(20_000);
    expect(fn.calls).toBe(0);
    expect(slow.metrics).toEqual({ numberOfInjectedCalls: 1, numberOfCallsNotInjected: 0 });
  });

  it('a caller’s abort while fn runs (after the wait) rejects at once; fn’s late outcome is swallowed', async () => {
    const clock = new VirtualClock();
    const slow = new LatencyInjection('pg', { ...on, latency: 100, clock });
    const ac = new AbortController();
    const answer = deferred<string>();
    const seen: CallContext[] = [];
    const callPromise = slow.execute((ctx) => (seen.push(ctx), answer.promise), { signal: ac.signal });
    await clock.advance(100);
    expect(seen[0]!.signal).toBe(ac.signal);
    ac.abort('late');
    await expect(callPromise).rejects.toBe('late');
    answer.reject(new Error('after the abort'));
    await answer.promise.catch(() => {});
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('latency 0 (or a function’s value <= 0): no wait, no timer, not an injection', async () => {
    const clock = new VirtualClock();
    const latencies: Duration[] = [0, -5, '0ms'];
    const zero = new LatencyInjection('pg', { ...on, latency: 0, clock });
    const fromFn = new LatencyInjection('pg', { ...on, latency: () => latencies.shift()!, clock });
    const events = vi.fn();
    zero.on('injected', events);
    fromFn.on('injected', events);
    expect(await zero.execute(() => 'now')).toBe('now');
    for (let i = 0; i < 3; i++) expect(await fromFn.execute(() => 'now')).toBe('now');
    expect(clock.pendingTimers).toBe(0);
    expect(clock.now()).toBe(0);
    expect(events).not.toHaveBeenCalled();
    expect(zero.metrics).toEqual({ numberOfInjectedCalls: 0, numberOfCallsNotInjected: 1 });
    expect(fromFn.metrics).toEqual({ numberOfInjectedCalls: 0, numberOfCallsNotInjected: 3 });
  });

  it('a function of the call gives each call its latency (ms or a duration string)', async () => {
    const clock = new VirtualClock();
    const slow = new LatencyInjection('pg', { ...on, clock, latency: (ctx) => (ctx.attempt === 1 ? '250ms' : ctx.attempt * 1000) });
    const firstPromise = slow.execute(() => clock.now());
    await clock.advance(250);
    expect(await firstPromise).toBe(250);
    const secondPromise = slow.execute(() => clock.now(), { signal: new AbortController().signal, attempt: 3 });
    await clock.advance(3000);
    expect(await secondPromise).toBe(3250);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a function that throws or gives no finite duration: not injected, fn runs at once, reported once each', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const clock = new VirtualClock();
    const bad = (value: unknown) => new LatencyInjection('pg', { ...on, clock, latency: () => value as Duration });
    const thrower = new LatencyInjection('pg', {
      ...on,
      clock,
      latency: () => {
        throw new Error('no latency');
      },
    });
    for (const chaos of [bad('soon'), bad(Number.NaN), bad(Number.POSITIVE_INFINITY), bad(undefined), thrower]) {
      expect(await chaos.execute(() => 'now')).toBe('now');
      expect(await chaos.execute(() => 'now')).toBe('now');
      expect(chaos.metrics).toEqual({ numberOfInjectedCalls: 0, numberOfCallsNotInjected: 2 });
    }
    expect(clock.pendingTimers).toBe(0);
    expect(warn.mock.calls.map((c) => c[0])).toEqual([
      "LatencyInjection 'pg': latency returned 'soon', not a finite duration; the call is not injected (reported once)",
      "LatencyInjection 'pg': latency returned NaN, not a finite duration; the call is not injected (reported once)",
      "LatencyInjection 'pg': latency returned Infinity, not a finite duration; the call is not injected (reported once)",
      "LatencyInjection 'pg': latency returned undefined, not a finite duration; the call is not injected (reported once)",
      expect.stringMatching(/^LatencyInjection 'pg': latency threw; the call is not injected \(reported once\): Error: no latency/),
    ]);
  });

  it('with no signal, the wait adds no abort listener and cannot be cut short', async () => {
    const clock = new VirtualClock();
    const slow = new LatencyInjection('pg', { ...on, latency: 50, clock });
    const callPromise = slow.execute(() => 'done');
    const call = track(callPromise);
    await clock.advance(49);
    expect(call.settled).toBe(false);
    await clock.advance(1);
    expect(await callPromise).toBe('done');
  });
});
