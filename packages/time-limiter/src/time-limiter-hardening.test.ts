import { getEventListeners } from 'node:events';
import { TimeoutError, VirtualClock } from '@breakwater/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TimeLimiter, TimeLimiterRegistry } from './index.js';

/** Where a VirtualClock's wall time (an event's `time`) starts: events carry `time` = WALL + `at`. */
const WALL = VirtualClock.DEFAULT_WALL_START;

// Issue 9: what using TimeLimiter as users and attackers would found, each held here.

let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

function limiter(config: ConstructorParameters<typeof TimeLimiter>[1] = {}): TimeLimiter {
  return new TimeLimiter('pg', { clock, timeoutDuration: 1000, ...config });
}

/** Runs `execute` and says whether it threw synchronously (it never may). */
function call<T>(run: () => Promise<T>): Promise<T> {
  let promise: Promise<T> | undefined;
  expect(() => {
    promise = run();
  }).not.toThrow();
  return promise!;
}

describe('TimeLimiter.execute never throws, and settles and counts a call exactly once (contract: docs/conventions.md)', () => {
  it('fn returning { get then() { throw } } rejects with that error, counted once as a failure', async () => {
    const tl = limiter();
    const events: unknown[] = [];
    tl.on('*', (e) => events.push(e));
    const bad = new Error('then getter');
    const hostile = {
      get then(): never {
        throw bad;
      },
    };
    await expect(call(() => tl.execute(() => hostile as unknown as PromiseLike<never>))).rejects.toBe(bad);
    expect(tl.metrics).toEqual({ numberOfSuccessfulCalls: 0, numberOfFailedCalls: 1, numberOfTimeouts: 0 });
    expect(events).toEqual([{ type: 'error', name: 'pg', at: 0, time: WALL + 0, error: bad, elapsed: 0 }]);
  });

  it('a then method that throws rejects the call with its error', async () => {
    const tl = limiter();
    const bad = new Error('then method');
    const hostile = {
      then(): never {
        throw bad;
      },
    };
    await expect(call(() => tl.execute(() => hostile as unknown as PromiseLike<never>))).rejects.toBe(bad);
    expect(tl.metrics).toEqual({ numberOfSuccessfulCalls: 0, numberOfFailedCalls: 1, numberOfTimeouts: 0 });
  });

  it('a native promise whose then calls both handlers: one success, one event', async () => {
    const tl = limiter();
    const events: string[] = [];
    tl.on('*', (e) => events.push(e.type));
    const twoFaced = Promise.resolve('ok');
    Object.defineProperty(twoFaced, 'then', {
      value(ok: (v: string) => void, fail: (e: unknown) => void) {
        ok('ok');
        fail(new Error('and a failure too'));
      },
    });
    await expect(call(() => tl.execute(() => twoFaced))).resolves.toBe('ok');
    await clock.advance(0);
    expect(events).toEqual(['success']);
    expect(tl.metrics).toEqual({ numberOfSuccessfulCalls: 1, numberOfFailedCalls: 0, numberOfTimeouts: 0 });
  });

  it('options null run the call; a fake signal (even with an attempt) rejects with a TypeError without running fn', async () => {
    const tl = limiter();
    await expect(call(() => tl.execute(() => Promise.resolve(1), null as never))).resolves.toBe(1);
    let ran = 0;
    const fn = (): Promise<number> => {
      ran++;
      return Promise.resolve(2);
    };
    await expect(call(() => tl.execute(fn, { signal: { aborted: false } as AbortSignal, attempt: 1 }))).rejects.toThrow(TypeError);
    await expect(call(() => tl.execute(fn, 'fast' as never))).rejects.toThrow(TypeError);
    expect(ran).toBe(0);
    expect(tl.metrics).toEqual({ numberOfSuccessfulCalls: 1, numberOfFailedCalls: 0, numberOfTimeouts: 0 });
  });
});

describe('TimeLimiter: one abort listener per shared caller signal (contract: docs/conventions.md)', () => {
  it('50 calls in flight on one caller signal add one listener to it, and none is left after', async () => {
    const tl = limiter();
    const caller = new AbortController();
    const calls = Array.from({ length: 50 }, (_, i) => {
      const c = tl.execute((ctx) => new Promise<number>((resolve) => (i % 2 === 0 ? clock.setTimeout(() => resolve(i), 10) : ctx.signal)), {
        signal: caller.signal,
      });
      return c.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
    });
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    await clock.advance(10); // the even ones have resolved
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    caller.abort(new Error('shutdown'));
    const outcomes = await Promise.all(calls);
    expect(outcomes.filter((o) => 'value' in o)).toHaveLength(25);
    expect(outcomes.filter((o) => 'error' in o && (o.error as Error).message === 'shutdown')).toHaveLength(25);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(tl.metrics).toEqual({ numberOfSuccessfulCalls: 25, numberOfFailedCalls: 25, numberOfTimeouts: 0 });
  });

  it('none is left on a long-lived signal once calls have ended in time or by time-out', async () => {
    const tl = limiter({ timeoutDuration: 50 });
    const signal = new AbortController().signal;
    const quick = Array.from({ length: 10 }, () => tl.execute(() => new Promise((resolve) => clock.setTimeout(() => resolve('ok'), 10)), { signal }));
    const slow = Array.from({ length: 10 }, () => tl.execute(() => new Promise(() => {}), { signal }).catch((e: unknown) => e));
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    await clock.advance(50);
    expect(await Promise.all(quick)).toEqual(Array(10).fill('ok'));
    expect((await Promise.all(slow)).every((e) => e instanceof TimeoutError)).toBe(true);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});

describe('TimeLimiter: first use', () => {
  it('refuses an unknown event type with a "did you mean"', () => {
    const tl = limiter();
    expect(() => tl.on('timout' as 'timeout', () => {})).toThrow(TypeError);
    expect(() => tl.on('timout' as 'timeout', () => {})).toThrow("TimeLimiter 'pg': unknown event type 'timout' (did you mean 'timeout'?)");
  });

  it('a registry refuses a bad defaultConfig or named config at construction, naming it', () => {
    expect(() => new TimeLimiterRegistry({ defaultConfig: { timeoutDuration: 0 } })).toThrow(
      new RangeError("TimeLimiterRegistry: config 'default': TimeLimiter 'default': timeoutDuration must be > 0, got 0"),
    );
    expect(() => new TimeLimiterRegistry({ configs: { batch: { timeoutDuration: '30 parsecs' as never } } })).toThrow(TypeError);
    expect(() => new TimeLimiterRegistry({ configs: { batch: { cancelRunningFutures: true } as never } })).toThrow("config 'batch'");
  });

  it('reads back the config it was given', () => {
    const tl = limiter({ timeoutDuration: '2.5s', cancelRunningFuture: false });
    expect(tl.config).toEqual({ timeoutDuration: 2500, cancelRunningFuture: false, clock });
    expect(tl.timeoutDuration).toBe(2500);
  });
});
