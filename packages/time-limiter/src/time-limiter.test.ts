import { getEventListeners } from 'node:events';
import { TimeoutError, VirtualClock, type CallContext } from '@breakwater/core';
import { NEVER_ABORTED } from '@breakwater/core/internal';
import { deferred, track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TimeLimiter, TimeLimiterRegistry } from './index.js';

/** Where a VirtualClock's wall time (an event's `time`) starts: events carry `time` = WALL + `at`. */
const WALL = VirtualClock.DEFAULT_WALL_START;

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

describe('TimeLimiter: in time', () => {
  it('resolves with the value of work that settles before the time-out and clears its timer at once', async () => {
    const tl = limiter();
    const work = deferred<string>();
    const call = track(tl.execute(() => work.promise));
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(400);
    work.resolve('receipt');
    await clock.advance(0);
    expect(call).toEqual({ state: 'fulfilled', settled: true, value: 'receipt' });
    expect(clock.pendingTimers).toBe(0);
    expect(tl.metrics).toEqual({ numberOfSuccessfulCalls: 1, numberOfFailedCalls: 0, numberOfTimeouts: 0 });
  });

  it('rejects with the error of work that fails before the time-out, as it is', async () => {
    const tl = limiter();
    const boom = new Error('boom');
    await expect(tl.execute(() => Promise.reject(boom))).rejects.toBe(boom);
    await expect(tl.execute(() => Promise.reject('not an error'))).rejects.toBe('not an error');
    expect(tl.metrics).toEqual({ numberOfSuccessfulCalls: 0, numberOfFailedCalls: 2, numberOfTimeouts: 0 });
  });

  it('turns a synchronous throw into a rejection and sets no timer', async () => {
    const tl = limiter();
    const call = tl.execute(() => {
      expect(clock.pendingTimers).toBe(0);
      throw new RangeError('sync');
    });
    expect(clock.pendingTimers).toBe(0);
    await expect(call).rejects.toThrow(RangeError);
    expect(tl.metrics.numberOfFailedCalls).toBe(1);
  });

  it('resolves with a plain (non-promise) return value and sets no timer', async () => {
    const tl = limiter();
    const call = tl.execute(() => 42);
    expect(clock.pendingTimers).toBe(0);
    await expect(call).resolves.toBe(42);
    expect(tl.metrics.numberOfSuccessfulCalls).toBe(1);
  });

  it('adopts a thenable that is not a native promise', async () => {
    const tl = limiter();
    const thenable = { then: (ok: (v: number) => void) => ok(7) };
    await expect(tl.execute(() => thenable as PromiseLike<number>)).resolves.toBe(7);
  });

  it('never throws synchronously, even on bad options', async () => {
    const tl = limiter();
    const bad = { signal: 'nope' } as unknown as { signal: AbortSignal };
    let call: Promise<unknown> | undefined;
    expect(() => {
      call = tl.execute(() => 1, bad);
    }).not.toThrow();
    await expect(call).rejects.toThrow(TypeError);
  });
});

describe('TimeLimiter: time-out', () => {
  it('times out exactly at timeoutDuration, not 1 ms before', async () => {
    const tl = limiter({ timeoutDuration: 1000 });
    const call = track(tl.execute(() => new Promise<never>(() => {})));
    await clock.advance(999);
    expect(call.settled).toBe(false);
    await clock.advance(1);
    expect(call.settled).toBe(true);
    const error = call.error as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.name).toBe('TimeoutError');
    expect(error.message).toBe("TimeLimiter 'pg' timed out after 1000 ms");
    expect(error.timeLimiterName).toBe('pg');
    expect(error.timeoutMs).toBe(1000);
    expect(tl.metrics).toEqual({ numberOfSuccessfulCalls: 0, numberOfFailedCalls: 0, numberOfTimeouts: 1 });
  });

  it("aborts the work's signal with the very TimeoutError the call rejects with", async () => {
    const tl = limiter({ timeoutDuration: 600 });
    let signal: AbortSignal | undefined;
    const call = track(
      tl.execute((ctx) => {
        signal = ctx.signal;
        return new Promise<never>(() => {});
      }),
    );
    expect(signal!.aborted).toBe(false);
    await clock.advance(600);
    expect(signal!.aborted).toBe(true);
    expect(signal!.reason).toBe(call.error);
    expect(signal!.reason).toBeInstanceOf(TimeoutError);
  });

  it('lets the work stop on its signal (a fetch-like backend that honours abort)', async () => {
    const tl = limiter({ timeoutDuration: 600 });
    let stoppedWith: unknown;
    const call = tl.execute(
      (ctx) =>
        new Promise<never>((_, reject) => {
          ctx.signal.addEventListener('abort', () => {
            stoppedWith = ctx.signal.reason;
            reject(new Error('AbortError from the driver'));
          });
        }),
    );
    const outcome = track(call);
    await clock.advance(600);
    expect(outcome.error).toBeInstanceOf(TimeoutError);
    expect(stoppedWith).toBe(outcome.error);
    // The driver's own rejection came after the time-out: swallowed, not counted as a failure.
    expect(tl.metrics).toEqual({ numberOfSuccessfulCalls: 0, numberOfFailedCalls: 0, numberOfTimeouts: 1 });
  });

  it('with cancelRunningFuture: false leaves the signal unaborted', async () => {
    const tl = limiter({ timeoutDuration: 600, cancelRunningFuture: false });
    let signal: AbortSignal | undefined;
    const call = track(
      tl.execute((ctx) => {
        signal = ctx.signal;
        return new Promise<never>(() => {});
      }),
    );
    await clock.advance(600);
    expect(call.error).toBeInstanceOf(TimeoutError);
    expect(signal!.aborted).toBe(false);
  });

  it('gives a signal that is already aborted when the work reads it only after the time-out', async () => {
    const tl = limiter({ timeoutDuration: 100 });
    let ctx: CallContext | undefined;
    const call = track(
      tl.execute((c) => {
        ctx = c;
        return new Promise<never>(() => {});
      }),
    );
    await clock.advance(100);
    expect(ctx!.signal.aborted).toBe(true);
    expect(ctx!.signal.reason).toBe(call.error);
  });

  it('drops a result that comes after the time-out', async () => {
    const tl = limiter({ timeoutDuration: 100 });
    const events: string[] = [];
    tl.on('*', (e) => events.push(e.type));
    const work = deferred<string>();
    const call = track(tl.execute(() => work.promise));
    await clock.advance(100);
    work.resolve('late');
    await clock.advance(0);
    expect(call.error).toBeInstanceOf(TimeoutError);
    expect(events).toEqual(['timeout']);
    expect(tl.metrics.numberOfSuccessfulCalls).toBe(0);
  });

  it('swallows a rejection that comes after the time-out (no unhandled rejection)', async () => {
    const tl = limiter({ timeoutDuration: 100 });
    const events: string[] = [];
    tl.on('*', (e) => events.push(e.type));
    const work = deferred<string>();
    const call = track(tl.execute(() => work.promise));
    await clock.advance(100);
    work.reject(new Error('late failure'));
    await clock.advance(0);
    expect(call.error).toBeInstanceOf(TimeoutError);
    expect(events).toEqual(['timeout']);
    expect(tl.metrics.numberOfFailedCalls).toBe(0);
  });

  it('with timeoutDuration: Infinity sets no timer at all', async () => {
    const tl = limiter({ timeoutDuration: Infinity });
    const work = deferred<number>();
    const call = tl.execute(() => work.promise);
    expect(clock.pendingTimers).toBe(0);
    work.resolve(1);
    await expect(call).resolves.toBe(1);
  });

  it('accepts a duration string', async () => {
    const tl = limiter({ timeoutDuration: '1.5s' });
    expect(tl.timeoutDuration).toBe(1500);
    expect(tl.config.timeoutDuration).toBe(1500);
    const call = track(tl.execute(() => new Promise<never>(() => {})));
    await clock.advance(1499);
    expect(call.settled).toBe(false);
    await clock.advance(1);
    expect((call.error as TimeoutError).timeoutMs).toBe(1500);
  });
});

describe("TimeLimiter: the caller's signal", () => {
  it("rejects at once with the caller's reason, aborts the work's signal and clears the timer", async () => {
    const tl = limiter();
    const caller = new AbortController();
    let signal: AbortSignal | undefined;
    const call = track(
      tl.execute(
        (ctx) => {
          signal = ctx.signal;
          return new Promise<never>(() => {});
        },
        { signal: caller.signal },
      ),
    );
    await clock.advance(300);
    const reason = new Error('client went away');
    caller.abort(reason);
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(0);
    expect(call.error).toBe(reason);
    expect(signal!.aborted).toBe(true);
    expect(signal!.reason).toBe(reason);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(tl.metrics).toEqual({ numberOfSuccessfulCalls: 0, numberOfFailedCalls: 1, numberOfTimeouts: 0 });
  });

  it('rejects without calling the work when the caller has already aborted', async () => {
    const tl = limiter();
    const caller = new AbortController();
    caller.abort('gone');
    let called = false;
    await expect(
      tl.execute(
        () => {
          called = true;
          return 1;
        },
        { signal: caller.signal },
      ),
    ).rejects.toBe('gone');
    expect(called).toBe(false);
  });

  it('follows the signal of a context passed down by an outer layer and passes its attempt on', async () => {
    const tl = limiter();
    const caller = new AbortController();
    const parent: CallContext = { signal: caller.signal, attempt: 3 };
    let seen: CallContext | undefined;
    const call = track(
      tl.execute((ctx) => {
        seen = ctx;
        return new Promise<never>(() => {});
      }, parent),
    );
    expect(seen!.attempt).toBe(3);
    caller.abort('outer gave up');
    await clock.advance(0);
    expect(call.error).toBe('outer gave up');
    expect(seen!.signal.aborted).toBe(true);
  });

  it("with cancelRunningFuture: false hands the caller's own signal to the work", async () => {
    const tl = limiter({ cancelRunningFuture: false });
    const caller = new AbortController();
    let signal: AbortSignal | undefined;
    const call = track(
      tl.execute(
        (ctx) => {
          signal = ctx.signal;
          return new Promise<never>(() => {});
        },
        { signal: caller.signal },
      ),
    );
    expect(signal).toBe(caller.signal);
    caller.abort('stop');
    await clock.advance(0);
    expect(call.error).toBe('stop');
  });

  it('leaves no abort listener on a long-lived signal, whatever way the calls end', async () => {
    const tl = limiter({ timeoutDuration: 100 });
    const caller = new AbortController();
    const options = { signal: caller.signal };
    const ok = track(tl.execute(() => Promise.resolve('ok'), options));
    const failed = track(tl.execute(() => Promise.reject(new Error('no')), options));
    const slow = track(tl.execute(() => new Promise<never>(() => {}), options));
    const sync = track(tl.execute(() => 'sync', options));
    const thrown = track(
      tl.execute(() => {
        throw new Error('sync throw');
      }, options),
    );
    // The three asynchronous calls share one listener on the signal while they run (core's hub);
    // the synchronous ones never took one.
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    await clock.advance(0);
    expect(ok.value).toBe('ok');
    expect((failed.error as Error).message).toBe('no');
    expect(sync.value).toBe('sync');
    expect((thrown.error as Error).message).toBe('sync throw');
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1); // the slow call is still running
    await clock.advance(100);
    expect(slow.error).toBeInstanceOf(TimeoutError);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(caller.signal.aborted).toBe(false);
  });

  it("does not abort a finished call's signal when the caller aborts later", async () => {
    const tl = limiter();
    const caller = new AbortController();
    let signal: AbortSignal | undefined;
    await tl.execute(
      (ctx) => {
        signal = ctx.signal;
        return Promise.resolve(1);
      },
      { signal: caller.signal },
    );
    caller.abort('later');
    expect(signal!.aborted).toBe(false);
  });
});

describe('TimeLimiter: cost', () => {
  it('creates an AbortController only when the work reads ctx.signal', async () => {
    const Original = globalThis.AbortController;
    let created = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        created++;
      }
    };
    try {
      const tl = limiter();
      await tl.execute(() => Promise.resolve(1));
      await tl.execute(() => Promise.resolve(2), { signal: new Original().signal });
      expect(created).toBe(0);
      await tl.execute((ctx) => Promise.resolve(ctx.signal.aborted));
      expect(created).toBe(1);
    } finally {
      globalThis.AbortController = Original;
    }
  });

  it('hands the shared never-aborting signal through when cancelRunningFuture is false and there is no caller signal', async () => {
    const tl = limiter({ cancelRunningFuture: false });
    await expect(tl.execute((ctx) => Promise.resolve(ctx.signal === NEVER_ABORTED))).resolves.toBe(true);
  });

  it('sets exactly one timer per asynchronous call and clears it', async () => {
    const tl = limiter();
    const a = deferred<number>();
    const b = deferred<number>();
    const pa = tl.execute(() => a.promise);
    const pb = tl.execute(() => b.promise);
    expect(clock.pendingTimers).toBe(2);
    a.resolve(1);
    await pa;
    expect(clock.pendingTimers).toBe(1);
    b.resolve(2);
    await pb;
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('TimeLimiter: events', () => {
  it('publishes success, error and timeout with their fields, in order', async () => {
    const tl = limiter({ timeoutDuration: 500 });
    const events: unknown[] = [];
    tl.on('*', (e) => events.push(e));
    const work = deferred<string>();
    const first = tl.execute(() => work.promise);
    await clock.advance(120);
    work.resolve('a');
    await first;
    const boom = new Error('boom');
    const second = tl.execute(() => clock.advance(0).then(() => Promise.reject(boom)));
    await expect(second).rejects.toBe(boom);
    const third = track(tl.execute(() => new Promise<never>(() => {})));
    await clock.advance(500);
    expect(third.error).toBeInstanceOf(TimeoutError);
    expect(events).toEqual([
      { type: 'success', name: 'pg', at: 120, time: WALL + 120, elapsed: 120 },
      { type: 'error', name: 'pg', at: 120, time: WALL + 120, error: boom, elapsed: 0 },
      { type: 'timeout', name: 'pg', at: 620, time: WALL + 620, elapsed: 500, timeoutMs: 500 },
    ]);
  });

  it('publishes the timeout event before the caller sees the rejection', async () => {
    const tl = limiter({ timeoutDuration: 10 });
    const order: string[] = [];
    tl.on('timeout', () => order.push('event'));
    const call = tl.execute(() => new Promise<never>(() => {})).catch(() => order.push('rejection'));
    await clock.advance(10);
    await call;
    expect(order).toEqual(['event', 'rejection']);
  });

  it('unsubscribes, and a throwing listener changes nothing', async () => {
    const tl = limiter();
    const seen: string[] = [];
    const off = tl.on('success', () => seen.push('success'));
    const emitWarning = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      tl.on('success', () => {
        throw new Error('bad listener');
      });
      await expect(tl.execute(() => Promise.resolve(1))).resolves.toBe(1);
      off();
      await expect(tl.execute(() => Promise.resolve(2))).resolves.toBe(2);
      expect(emitWarning).toHaveBeenCalledTimes(1);
      expect(String(emitWarning.mock.calls[0]![0])).toContain("TimeLimiter 'pg'");
    } finally {
      emitWarning.mockRestore();
    }
    expect(seen).toEqual(['success']);
  });
});

describe('TimeLimiter: decorate, of, registry', () => {
  it('decorate keeps the parameters and returns a promise', async () => {
    const tl = limiter();
    const add = tl.decorate((a: number, b: number) => a + b);
    await expect(add(2, 3)).resolves.toBe(5);
  });

  it('of builds the same limiter as new', () => {
    const tl = TimeLimiter.of('pg', { timeoutDuration: 250, clock });
    expect(tl).toBeInstanceOf(TimeLimiter);
    expect(tl.name).toBe('pg');
    expect(tl.kind).toBe('timeLimiter');
    expect(tl.timeoutDuration).toBe(250);
  });

  it('has Resilience4j defaults: 1000 ms, cancelRunningFuture true', () => {
    const tl = new TimeLimiter('defaults');
    expect(tl.config.timeoutDuration).toBe(1000);
    expect(tl.config.cancelRunningFuture).toBe(true);
  });

  it('registry: get-or-create with named configs', () => {
    const registry = new TimeLimiterRegistry({ defaultConfig: { clock, timeoutDuration: 300 }, configs: { batch: { timeoutDuration: '30s' } } });
    const pg = registry.get('pg');
    expect(registry.get('pg')).toBe(pg);
    expect(pg.timeoutDuration).toBe(300);
    expect(registry.get('report', 'batch').timeoutDuration).toBe(30_000);
    expect(registry.all().map((t) => t.name)).toEqual(['pg', 'report']);
  });
});

describe('TimeLimiter: bad configuration', () => {
  it.each([
    [{ timeoutDuration: 0 }, RangeError, "TimeLimiter 'pg': timeoutDuration must be > 0, got 0"],
    [{ timeoutDuration: -5 }, RangeError, "TimeLimiter 'pg': timeoutDuration must be > 0, got -5"],
    [
      { timeoutDuration: 'soon' },
      TypeError,
      "TimeLimiter 'pg': timeoutDuration must be a duration (ms, or a string like '250ms', '10s', '1.5m', '2h'), got 'soon'",
    ],
    [{ cancelRunningFuture: 'yes' }, TypeError, "TimeLimiter 'pg': cancelRunningFuture must be true or false, got 'yes'"],
    [{ clock: {} }, TypeError, "TimeLimiter 'pg': clock must be a Clock (now, setTimeout, clearTimeout), got an object"],
    [{ timeout: 100 }, TypeError, "TimeLimiter 'pg': unknown option 'timeout' (known options: timeoutDuration, cancelRunningFuture, clock)"],
  ])('%o throws %s', (config, kind, message) => {
    expect(() => new TimeLimiter('pg', config as never)).toThrow(kind);
    expect(() => new TimeLimiter('pg', config as never)).toThrow(message);
  });

  it('refuses an empty name', () => {
    expect(() => new TimeLimiter('')).toThrow("TimeLimiter: name must be a non-empty string, got ''");
  });
});
