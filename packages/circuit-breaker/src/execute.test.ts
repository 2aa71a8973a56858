import { getEventListeners } from 'node:events';
import { CallNotPermittedError } from '@breakwater/core';
import { track } from '@breakwater/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BoomError, breakerOnClock, expectNoLeakedTimers } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

const config = { slidingWindowSize: 4, minimumNumberOfCalls: 4, slowCallDurationThreshold: 1000, waitDurationInOpenState: 10_000 } as const;

describe('CircuitBreaker.execute', () => {
  it('runs fn, hands back its value, and records the measured duration', async () => {
    const { breaker, clock, events } = breakerOnClock(config);
    const call = breaker.execute(async () => {
      await new Promise<void>((resolve) => clock.setTimeout(resolve, 1500));
      return 'paid';
    });
    await clock.advance(1500);
    await expect(call).resolves.toBe('paid');
    expect(breaker.metrics.numberOfSlowSuccessfulCalls).toBe(1);
    expect(events).toEqual(['success']);
  });

  it('passes elapsed in the success and error events', async () => {
    const { breaker, clock } = breakerOnClock(config);
    const seen: number[] = [];
    breaker.on('success', (e) => seen.push(e.elapsed));
    breaker.on('error', (e) => seen.push(-e.elapsed));
    const slow = breaker.execute(() => new Promise((resolve) => clock.setTimeout(() => resolve(1), 250)));
    await clock.advance(250);
    await slow;
    const failing = breaker.execute(() => new Promise((_, reject) => clock.setTimeout(() => reject(new BoomError()), 40)));
    const settled = failing.catch((e) => e);
    await clock.advance(40);
    expect(await settled).toBeInstanceOf(BoomError);
    expect(seen).toEqual([250, -40]);
  });

  it('treats a sync throw and a plain value like a rejected and a resolved promise', async () => {
    const { breaker } = breakerOnClock(config);
    const boom = new BoomError();
    const thrown = breaker.execute(() => {
      throw boom;
    });
    await expect(thrown).rejects.toBe(boom);
    await expect(breaker.execute(() => 42)).resolves.toBe(42);
    expect(breaker.metrics.numberOfFailedCalls).toBe(1);
    expect(breaker.metrics.numberOfSuccessfulCalls).toBe(1);
  });

  it('records and rethrows a thrown non-Error as it is', async () => {
    const { breaker } = breakerOnClock(config);
    await expect(breaker.execute(() => Promise.reject('just a string'))).rejects.toBe('just a string');
    await expect(
      breaker.execute(() => {
        throw undefined;
      }),
    ).rejects.toBeUndefined();
    expect(breaker.metrics.numberOfFailedCalls).toBe(2);
  });

  it('trialCallsInFlight counts the HALF_OPEN trial calls still running, and is 0 in any other state', async () => {
    const { breaker, clock } = breakerOnClock({ ...config, permittedNumberOfCallsInHalfOpenState: 3, minimumNumberOfCalls: 3 });
    expect(breaker.trialCallsInFlight).toBe(0);
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    const slow = (ms: number) => breaker.execute(() => new Promise((resolve) => clock.setTimeout(() => resolve(ms), ms)));
    const calls = [slow(100), slow(300)];
    expect(breaker.trialCallsInFlight).toBe(2);
    await clock.advance(100);
    expect(breaker.trialCallsInFlight).toBe(1);
    expect(breaker.metrics.numberOfBufferedCalls).toBe(1);
    await clock.advance(200);
    await Promise.all(calls);
    expect(breaker.trialCallsInFlight).toBe(0);
    expect(breaker.state).toBe('HALF_OPEN');
    breaker.onSuccess(0);
    expect(breaker.state).toBe('CLOSED');
    expect(breaker.trialCallsInFlight).toBe(0);
  });

  it('rejects with CallNotPermittedError when OPEN, without calling fn', async () => {
    const { breaker } = breakerOnClock(config, 'pg');
    breaker.transitionToOpenState();
    let called = false;
    const error = await breaker
      .execute(() => {
        called = true;
      })
      .catch((e: unknown) => e);
    expect(called).toBe(false);
    expect(error).toBeInstanceOf(CallNotPermittedError);
    expect(error).toMatchObject({ circuitBreakerName: 'pg', state: 'OPEN', name: 'CallNotPermittedError' });
    expect((error as Error).message).toBe("CircuitBreaker 'pg' is OPEN and does not permit further calls");
  });

  it('never throws synchronously, even when refusing', () => {
    const { breaker } = breakerOnClock(config);
    breaker.transitionToForcedOpenState();
    const call = breaker.execute(() => 1);
    expect(call).toBeInstanceOf(Promise);
    return expect(call).rejects.toThrow(CallNotPermittedError);
  });

  it('carries no stack on rejections when writableStackTraceEnabled is false', async () => {
    const withStack = breakerOnClock({ ...config, initialState: 'FORCED_OPEN' }).breaker;
    const without = breakerOnClock({ ...config, initialState: 'FORCED_OPEN', writableStackTraceEnabled: false }).breaker;
    const a = (await withStack.execute(() => 1).catch((e) => e)) as Error;
    const b = (await without.execute(() => 1).catch((e) => e)) as Error;
    expect(a.stack).toContain('\n    at ');
    expect(b.stack).not.toContain('\n    at ');
    expect(b).toBeInstanceOf(CallNotPermittedError);
    expect(Error.stackTraceLimit).toBeGreaterThan(0);
  });

  it('hands the caller signal down to fn, and rejects at once when it is already aborted', async () => {
    const { breaker } = breakerOnClock(config);
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    await breaker.execute(
      (ctx) => {
        seen = ctx.signal;
        expect(ctx.attempt).toBe(1);
      },
      { signal: controller.signal },
    );
    expect(seen).toBe(controller.signal);
    controller.abort(new Error('user left'));
    let called = false;
    await expect(breaker.execute(() => (called = true), { signal: controller.signal })).rejects.toThrow('user left');
    expect(called).toBe(false);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('does not record a call its caller aborted: the half-open permit comes back', async () => {
    const { breaker, clock, events } = breakerOnClock({ ...config, permittedNumberOfCallsInHalfOpenState: 1, minimumNumberOfCalls: 1 });
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    const controller = new AbortController();
    const call = breaker.execute(
      (ctx) =>
        new Promise((_, reject) => {
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
        }),
      { signal: controller.signal },
    );
    const reason = new Error('navigated away');
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(breaker.state).toBe('HALF_OPEN');
    expect(breaker.metrics.numberOfBufferedCalls).toBe(0);
    expect(events.at(-1)).toBe('ignoredError');
    await expect(breaker.execute(() => 'ok')).resolves.toBe('ok');
    expect(breaker.state).toBe('CLOSED');
    expect(clock.pendingTimers).toBe(0);
  });

  it('passes a context from an outer layer through as it is', async () => {
    const { breaker } = breakerOnClock(config);
    const ctx = { signal: new AbortController().signal, attempt: 3 };
    await breaker.execute((inner) => expect(inner).toBe(ctx), ctx);
  });

  it('decorate keeps the parameters and goes through the breaker', async () => {
    const { breaker } = breakerOnClock(config);
    const add = breaker.decorate((a: number, b: number) => a + b);
    await expect(add(2, 3)).resolves.toBe(5);
    expect(breaker.metrics.numberOfBufferedCalls).toBe(1);
  });

  it('survives a throwing listener: the outcome and the other listeners are unchanged', async () => {
    const { breaker, events } = breakerOnClock(config);
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      breaker.on('success', () => {
        throw new Error('bad listener');
      });
      await expect(breaker.execute(() => 'fine')).resolves.toBe('fine');
      await expect(breaker.execute(() => 'fine')).resolves.toBe('fine');
      expect(events).toEqual(['success', 'success']);
      expect(warn.mock.calls.filter((c) => String(c[0]).includes('bad listener'))).toHaveLength(1);
      expect(warn.mock.calls[0]?.[1]).toEqual({ type: 'BreakwaterListenerWarning' });
    } finally {
      warn.mockRestore();
    }
  });

  it('unsubscribes a listener with the function on returns', async () => {
    const { breaker } = breakerOnClock(config);
    let n = 0;
    const off = breaker.on('success', () => n++);
    await breaker.execute(() => 1);
    off();
    off();
    await breaker.execute(() => 1);
    expect(n).toBe(1);
  });

  it('trips after the window fills with failures, then rejects every call until the wait is over', async () => {
    const { breaker, clock } = breakerOnClock(config);
    for (let i = 0; i < 4; i++) await breaker.execute(() => Promise.reject(new BoomError())).catch(() => {});
    expect(breaker.state).toBe('OPEN');
    const refused = await Promise.allSettled([1, 2, 3].map(() => breaker.execute(() => 'x')));
    expect(refused.every((r) => r.status === 'rejected' && r.reason instanceof CallNotPermittedError)).toBe(true);
    expect(breaker.metrics.numberOfNotPermittedCalls).toBe(3);
    await clock.advance(10_001);
    await expect(breaker.execute(() => 'trial')).resolves.toBe('trial');
    expect(breaker.state).toBe('HALF_OPEN');
  });
});

describe('CircuitBreaker.execute and the caller’s abort', () => {
  it('rejects at once with the reason when the caller aborts while fn runs (it resolved with the late value before)', async () => {
    const { breaker, clock } = breakerOnClock({ ...config, permittedNumberOfCallsInHalfOpenState: 1, minimumNumberOfCalls: 1 });
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    const controller = new AbortController();
    // fn does not listen to its signal: it resolves 200 ms later whatever happens.
    const call = track(breaker.execute(() => new Promise((resolve) => clock.setTimeout(() => resolve('late'), 200)), { signal: controller.signal }));
    await clock.advance(50);
    const reason = new Error('user left');
    controller.abort(reason);
    await Promise.resolve();
    expect(call.state).toBe('rejected');
    expect(call.error).toBe(reason);
    expect(clock.now()).toBe(50);
    // fn still runs and keeps its half-open permit until it really settles.
    await expect(breaker.execute(() => 'second trial')).rejects.toBeInstanceOf(CallNotPermittedError);
    await clock.advance(150);
    // It resolved on its own: that outcome is real and recorded (1 success of 1 → CLOSED).
    expect(breaker.state).toBe('CLOSED');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('a call that fn ends with the abort reason is not recorded, and its permit is given back exactly once', async () => {
    const { breaker, clock, events } = breakerOnClock({ ...config, permittedNumberOfCallsInHalfOpenState: 2, minimumNumberOfCalls: 2 });
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    const controller = new AbortController();
    const aborted = breaker.execute(
      (ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => clock.setTimeout(() => reject(ctx.signal.reason), 10), { once: true })),
      { signal: controller.signal },
    );
    const running = breaker.execute(() => new Promise((resolve) => clock.setTimeout(() => resolve('b'), 1000)));
    const reason = new Error('navigated away');
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    expect(await breaker.execute(() => 'x').catch((e: unknown) => e)).toBeInstanceOf(CallNotPermittedError); // fn still holds it
    await clock.advance(10); // fn settles with the reason: released once
    expect(events).toContain('ignoredError');
    const third = breaker.execute(() => new Promise((resolve) => clock.setTimeout(() => resolve('c'), 1000)));
    expect(await breaker.execute(() => 'x').catch((e: unknown) => e)).toBeInstanceOf(CallNotPermittedError); // only one came back
    await clock.advance(1000);
    await expect(Promise.all([running, third])).resolves.toEqual(['b', 'c']);
    expect(breaker.state).toBe('CLOSED');
    expect(breaker.metrics.numberOfBufferedCalls).toBe(0);
  });

  it('adds at most one abort listener to a shared signal, whatever the number of calls, and none once they end', async () => {
    const { breaker, clock } = breakerOnClock({ ...config, slidingWindowSize: 100, minimumNumberOfCalls: 100 });
    const controller = new AbortController();
    const { signal } = controller;
    const slow = () => new Promise((resolve) => clock.setTimeout(() => resolve('ok'), 100));
    const first = Array.from({ length: 50 }, () => breaker.execute(slow, { signal }));
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    await clock.advance(100);
    await expect(Promise.all(first)).resolves.toHaveLength(50);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    const second = Array.from({ length: 50 }, () => breaker.execute(slow, { signal }).catch((e: unknown) => e));
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    const reason = new Error('shutdown');
    controller.abort(reason);
    expect(await Promise.all(second)).toEqual(Array(50).fill(reason));
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    await clock.advance(100); // the late outcomes are swallowed, and recorded as what they are
    expect(breaker.metrics.numberOfSuccessfulCalls).toBe(100);
  });
});
