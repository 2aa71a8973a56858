import { TimeoutError } from '@breakwater/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallObserver } from './events.js';
import { BoomError, breakerOnClock, counts, expectNoLeakedTimers, IgnoredError } from '../test/test-support.js';

afterEach(() => {
  vi.restoreAllMocks();
  expectNoLeakedTimers();
});

// `observeCalls`: one observation per recorded call, through `execute` or the public
// onSuccess / onResult / onError (docs/observability.md's histogram), none for a refused call nor in DISABLED
// or FORCED_OPEN, a throwing observer contained.

const config = {
  slidingWindowSize: 10,
  minimumNumberOfCalls: 10,
  slowCallDurationThreshold: 100,
  ignoreExceptions: [IgnoredError],
  recordResult: (r: unknown) => r === 'bad',
} as const;

/** A breaker on a VirtualClock and what one observer saw, as `kind elapsed`. */
function setUp(extra: object = {}) {
  const { clock, breaker, events } = breakerOnClock({ ...config, ...extra }, 'pg');
  const seen: string[] = [];
  const stop = breaker.observeCalls((kind, elapsedMs) => seen.push(`${kind} ${elapsedMs}`));
  return { clock, breaker, events, seen, stop };
}

/** A call of `execute` that takes `ms` on the breaker's clock and then returns `value` (or rejects with it, an Error). */
function takes(clock: { set(time: number): void; now(): number }, ms: number, value: unknown) {
  return () => {
    clock.set(clock.now() + ms);
    return value instanceof Error ? Promise.reject(value) : Promise.resolve(value);
  };
}

describe('observeCalls through execute', () => {
  it('successful, slow successful, failed, slow failed, a recordResult match, ignored: each once with its duration', async () => {
    const { clock, breaker, seen } = setUp();
    await breaker.execute(takes(clock, 5, 'ok'));
    await breaker.execute(takes(clock, 150, 'ok'));
    await expect(breaker.execute(takes(clock, 7, new BoomError()))).rejects.toBeInstanceOf(BoomError);
    await expect(breaker.execute(takes(clock, 101, new BoomError()))).rejects.toBeInstanceOf(BoomError);
    await expect(breaker.execute(takes(clock, 3, 'bad'))).resolves.toBe('bad');
    await expect(breaker.execute(takes(clock, 9, new IgnoredError()))).rejects.toBeInstanceOf(IgnoredError);
    expect(seen).toEqual(['successful 5', 'successful 150', 'failed 7', 'failed 101', 'failed 3', 'ignored 9']);
    expect(breaker.metrics).toMatchObject({ numberOfBufferedCalls: 5, numberOfFailedCalls: 3, numberOfSlowCalls: 2 });
  });

  it('a TimeoutError is failed (and never slow), whatever its duration', async () => {
    const { clock, breaker, seen } = setUp();
    await expect(breaker.execute(takes(clock, 5000, new TimeoutError('tl', 5000)))).rejects.toBeInstanceOf(TimeoutError);
    expect(seen).toEqual(['failed 5000']);
    expect(breaker.metrics).toMatchObject({ numberOfFailedCalls: 1, numberOfSlowCalls: 0 });
  });

  it('a call its caller aborted is observed as ignored, as its ignoredError event says', async () => {
    const { breaker, seen, events } = setUp();
    const controller = new AbortController();
    const call = breaker.execute((ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true })), {
      signal: controller.signal,
    });
    controller.abort(new Error('left'));
    await expect(call).rejects.toThrow('left');
    await Promise.resolve();
    expect(seen).toEqual(['ignored 0']);
    expect(events).toEqual(['ignoredError']);
  });

  it('parallel calls (the shared handlers lent out) are each observed once', async () => {
    const { breaker, seen } = setUp();
    await Promise.all([breaker.execute(() => 1), breaker.execute(() => 2), breaker.execute(() => Promise.reject(new BoomError())).catch(() => 0)]);
    expect(seen.sort()).toEqual(['failed 0', 'successful 0', 'successful 0']);
  });
});

describe('observeCalls through the public recording API', () => {
  it('onSuccess, onResult, onError: successful, failed, ignored, with the duration given', () => {
    const { breaker, seen } = setUp();
    breaker.onSuccess(4);
    breaker.onSuccess(2000);
    breaker.onResult(6, 'fine');
    breaker.onResult(8, 'bad');
    breaker.onError(10, new BoomError());
    breaker.onError(200, new BoomError());
    breaker.onError(12, new IgnoredError());
    breaker.onError(9000, new TimeoutError('tl', 9000));
    expect(seen).toEqual(['successful 4', 'successful 2000', 'successful 6', 'failed 8', 'failed 10', 'failed 200', 'ignored 12', 'failed 9000']);
  });

  it('an error neither ignored nor recorded counts as a success and is observed as one', () => {
    const { breaker, seen } = setUp({ recordExceptions: [BoomError] });
    breaker.onError(1, new Error('not recorded'));
    expect(seen).toEqual(['successful 1']);
  });

  it('METRICS_ONLY, OPEN (a call permitted before it opened) and HALF_OPEN observe what they record', () => {
    const { breaker, seen } = setUp({ minimumNumberOfCalls: 1, slidingWindowSize: 1, permittedNumberOfCallsInHalfOpenState: 1 });
    breaker.onError(1, new BoomError()); // opens
    breaker.onSuccess(2); // recorded into OPEN's kept metrics
    breaker.transitionToHalfOpenState();
    breaker.acquirePermission();
    breaker.onSuccess(3); // → CLOSED
    breaker.transitionToMetricsOnlyState();
    breaker.onSuccess(4);
    expect(seen).toEqual(['failed 1', 'successful 2', 'successful 3', 'successful 4']);
  });
});

describe('observeCalls: what is not observed', () => {
  it('a call not permitted (OPEN, HALF_OPEN out of permits, FORCED_OPEN)', async () => {
    const { breaker, seen } = setUp({ permittedNumberOfCallsInHalfOpenState: 1 });
    breaker.transitionToOpenState();
    expect(breaker.tryAcquirePermission()).toBe(false);
    await expect(breaker.execute(() => 'x')).rejects.toThrow();
    breaker.transitionToHalfOpenState();
    const first = breaker.execute(() => new Promise<string>(() => {})); // holds the only permit
    await expect(breaker.execute(() => 'x')).rejects.toThrow();
    breaker.transitionToForcedOpenState();
    await expect(breaker.execute(() => 'x')).rejects.toThrow();
    expect(seen).toEqual([]);
    expect(breaker.metrics.numberOfNotPermittedCalls).toBe(1);
    void first;
  });

  it('DISABLED and FORCED_OPEN record nothing, so observe nothing', async () => {
    const { breaker, seen } = setUp();
    breaker.transitionToDisabledState();
    await breaker.execute(() => 'x');
    await expect(breaker.execute(() => Promise.reject(new BoomError()))).rejects.toBeInstanceOf(BoomError);
    await expect(breaker.execute(() => Promise.reject(new IgnoredError()))).rejects.toBeInstanceOf(IgnoredError);
    breaker.onSuccess(1);
    breaker.onError(1, new IgnoredError());
    breaker.transitionToForcedOpenState();
    breaker.onSuccess(1);
    breaker.onError(1, new BoomError());
    expect(seen).toEqual([]);
  });

  it('nothing after unsubscribing (idempotent); several observers each see every call', () => {
    const { breaker, seen, stop } = setUp();
    const other: string[] = [];
    const stopOther = breaker.observeCalls((kind) => other.push(kind));
    breaker.onSuccess(1);
    stop();
    stop();
    breaker.onError(1, new BoomError());
    stopOther();
    breaker.onSuccess(1);
    expect(seen).toEqual(['successful 1']);
    expect(other).toEqual(['successful', 'failed']);
  });

  it('the same function subscribed twice is called twice, and each unsubscribe removes one', () => {
    const { breaker } = breakerOnClock(config);
    const kinds: string[] = [];
    const observer: CallObserver = (kind) => kinds.push(kind);
    const a = breaker.observeCalls(observer);
    breaker.observeCalls(observer);
    breaker.onSuccess(1);
    a();
    breaker.onSuccess(1);
    expect(kinds).toEqual(['successful', 'successful', 'successful']);
  });

  it('refuses a non-function with a TypeError', () => {
    const { breaker } = breakerOnClock(config, 'pg');
    expect(() => breaker.observeCalls(42 as unknown as CallObserver)).toThrow("CircuitBreaker 'pg': observeCalls(observer) needs a function, got 42");
  });
});

describe('observeCalls: a throwing observer is contained', () => {
  it('the outcome, the recording, the events and the other observers are unchanged; one warning', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const { clock, breaker, events } = breakerOnClock({ ...config, minimumNumberOfCalls: 2, slidingWindowSize: 2 }, 'pg');
    const seen: string[] = [];
    breaker.observeCalls(() => {
      throw new TypeError('histogram gone');
    });
    breaker.observeCalls((kind) => seen.push(kind));
    await expect(breaker.execute(takes(clock, 1, 'ok'))).resolves.toBe('ok');
    const boom = new BoomError();
    await expect(breaker.execute(() => Promise.reject(boom))).rejects.toBe(boom);
    breaker.onSuccess(1);
    expect(seen).toEqual(['successful', 'failed', 'successful']);
    expect(events).toEqual(['success', 'error', 'failureRateExceeded 50', 'stateTransition CLOSED->OPEN', 'success']);
    expect(counts(breaker.metrics)).toMatchObject({ buffered: 2, failed: 1 }); // a window of 2: the error and the last success;
    const warnings = warn.mock.calls.filter((c) => (c[1] as { type?: string }).type === 'BreakwaterCallbackWarning').map((c) => String(c[0]));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("CircuitBreaker 'pg': an observer of observeCalls threw; the call is recorded all the same (reported once)");
    expect(warnings[0]).toContain('histogram gone');
  });

  it('an observer sees the call before the transition it causes', () => {
    const { breaker } = breakerOnClock({ ...config, minimumNumberOfCalls: 1, slidingWindowSize: 1 });
    const order: string[] = [];
    breaker.observeCalls((kind) => order.push(`${kind} in ${breaker.state}`));
    breaker.on('stateTransition', (e) => order.push(`${e.from}->${e.to}`));
    breaker.onError(1, new BoomError());
    expect(order).toEqual(['failed in CLOSED', 'CLOSED->OPEN']);
  });
});
