import { getEventListeners } from 'node:events';
import { BreakwaterError, CallNotPermittedError, TimeoutError, VirtualClock, type CallContext } from '@breakwater/core';
import { twoFaced } from '@breakwater/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decorate, Fallback, type FallbackEvents } from './index.js';
import { after, deaf, fakeRetry, fakeTimeLimiter, recorder, throwingThen, watch } from '../test/test-support.js';

/** Where a VirtualClock's wall time (an event's `time`) starts: events carry `time` = WALL + `at`. */
const WALL = VirtualClock.DEFAULT_WALL_START;

let clock = new VirtualClock();
afterEach(() => {
  // A fresh clock for the next test even when this one failed, so one failure does not cascade.
  const pending = clock.pendingTimers;
  clock = new VirtualClock();
  expect(pending).toBe(0);
});

class HttpError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}
class NotFound extends HttpError {
  constructor() {
    super(404);
  }
}

const fail = (error: unknown) => (): never => {
  throw error;
};

describe('withFallback', () => {
  it('by default turns every error into the handler value, given the error', async () => {
    const handler = vi.fn((error: unknown) => `recovered from ${(error as Error).message}`);
    const p = decorate().withFallback(handler);
    await expect(p.execute(fail(new Error('boom')))).resolves.toBe('recovered from boom');
    expect(handler).toHaveBeenCalledTimes(1);
    expect(handler.mock.calls[0]).toHaveLength(1); // execute has no arguments to pass on
  });

  it('is not called when fn succeeds', async () => {
    const handler = vi.fn(() => 'no');
    await expect(
      decorate()
        .withFallback(handler)
        .execute(() => 'yes'),
    ).resolves.toBe('yes');
    expect(handler).not.toHaveBeenCalled();
  });

  it('hands the wrapped function its arguments after the error', async () => {
    const handler = vi.fn((_error: unknown, id: string, n: number) => `${id}:${n}:cached`);
    const get = decorate()
      .withFallback(handler)
      .withRetry(fakeRetry('pg', 2))
      .wrap((_ctx, id: string, n: number): string => {
        throw new Error(`${id} ${n}`);
      });
    await expect(get('a', 1)).resolves.toBe('a:1:cached');
    expect(handler).toHaveBeenCalledWith(expect.objectContaining({ message: 'a 1' }), 'a', 1);
  });

  it('handles only the error classes of `on` (is-a), and lets the others through as they are', async () => {
    const p = decorate().withFallback(() => 'fallback', { on: [HttpError, TimeoutError] });
    await expect(p.execute(fail(new HttpError(500)))).resolves.toBe('fallback');
    await expect(p.execute(fail(new NotFound()))).resolves.toBe('fallback'); // a subclass is-a HttpError
    await expect(p.execute(fail(new TimeoutError('pg', 100)))).resolves.toBe('fallback');
    const other = new CallNotPermittedError('pg', 'OPEN');
    await expect(p.execute(fail(other))).rejects.toBe(other);
    await expect(p.execute(fail('a string'))).rejects.toBe('a string');
  });

  it('a base class in `on` matches every error under it', async () => {
    const p = decorate().withFallback(() => 'fallback', { on: [BreakwaterError] });
    await expect(p.execute(fail(new CallNotPermittedError('pg', 'OPEN')))).resolves.toBe('fallback');
    const plain = new Error('plain');
    await expect(p.execute(fail(plain))).rejects.toBe(plain);
  });

  it('handles the errors a predicate accepts', async () => {
    const on = vi.fn((e: unknown) => e instanceof HttpError && e.status >= 500);
    const p = decorate().withFallback(() => 'fallback', { on });
    await expect(p.execute(fail(new HttpError(503)))).resolves.toBe('fallback');
    const notFound = new NotFound();
    await expect(p.execute(fail(notFound))).rejects.toBe(notFound);
    expect(on).toHaveBeenCalledTimes(2);
    expect(on).toHaveBeenLastCalledWith(notFound);
  });

  it('handles thrown non-Errors too when on is unset', async () => {
    const handler = vi.fn((e: unknown) => ({ got: e }));
    const p = decorate().withFallback(handler);
    await expect(p.execute(fail('x'))).resolves.toEqual({ got: 'x' });
    await expect(p.execute(fail(undefined))).resolves.toEqual({ got: undefined });
  });

  it('waits for a handler that returns a promise; a handler that throws or rejects gives its own error', async () => {
    await expect(
      decorate()
        .withFallback(async () => 'later')
        .execute(fail(new Error('x'))),
    ).resolves.toBe('later');
    const own = new Error('handler broke');
    await expect(
      decorate()
        .withFallback(fail(own))
        .execute(fail(new Error('x'))),
    ).rejects.toBe(own);
    await expect(
      decorate()
        .withFallback(() => Promise.reject(own))
        .execute(fail(new Error('x'))),
    ).rejects.toBe(own);
  });

  it('catches a sync throw of fn like a rejection', async () => {
    await expect(
      decorate()
        .withFallback(() => 'caught')
        .execute(() => {
          throw new Error('sync');
        }),
    ).resolves.toBe('caught');
  });

  it('outside a time limiter, turns its time-out into a value', async () => {
    const p = decorate()
      .withFallback((e) => (e instanceof TimeoutError ? 'timed out' : 'other'), { on: [TimeoutError] })
      .withTimeLimiter(fakeTimeLimiter('pg', clock, 100));
    const call = p.execute(after(clock, 500, 'late'));
    await clock.advance(100);
    await expect(call).resolves.toBe('timed out');
  });

  it("never turns the caller's own abort into a value", async () => {
    const handler = vi.fn(() => 'fallback');
    const caller = new AbortController();
    const p = decorate()
      .withFallback(handler)
      .with(recorder('a', 'inner', []));
    const call = p.execute(after(clock, 500, 'ok'), { signal: caller.signal });
    const reason = new Error('caller left');
    caller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(handler).not.toHaveBeenCalled();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it("handles the time-out of a time limiter inside it (that signal is not the fallback's own)", async () => {
    // A time limiter inside the fallback aborts its own signal: that reason is a failure to handle.
    const p = decorate()
      .withFallback(() => 'fallback')
      .withTimeLimiter(fakeTimeLimiter('pg', clock, 10));
    const call = p.execute((ctx: CallContext) => after(clock, 100, 'late')(ctx));
    await clock.advance(10);
    await expect(call).resolves.toBe('fallback');
  });

  it('inside a retry and handling every error, the retry never retries (the FALLBACK_INSIDE_RETRY warning)', async () => {
    const log: string[] = [];
    const p = decorate()
      .withRetry(fakeRetry('pg', 3, log))
      .withFallback(() => 'fallback');
    await expect(p.execute(fail(new Error('x')))).resolves.toBe('fallback');
    expect(log).toEqual(['pg#1']);
    expect(p.warnings.map((w) => w.code)).toEqual(['FALLBACK_INSIDE_RETRY']);
  });

  it('refuses bad options at build time', () => {
    expect(() => decorate().withFallback('x' as never)).toThrow(new TypeError("Fallback 'fallback': handler must be a function, got 'x'"));
    expect(() => decorate().withFallback(() => 1, { name: 'cache', on: [] })).toThrow(
      new TypeError("Fallback 'cache': on must be a non-empty array of error classes, or a predicate (leave it out to handle every error), got an array"),
    );
    expect(() => decorate().withFallback(() => 1, { on: TimeoutError as never })).toThrow(
      new TypeError("Fallback 'fallback': on must be an array of error classes or a predicate (write on: [TimeoutError]), got a function"),
    );
    expect(() => decorate().withFallback(() => 1, { on: TypeError as never })).toThrow(/write on: \[TypeError\]/);
    expect(() => decorate().withFallback(() => 1, { on: ['x'] as never })).toThrow(
      new TypeError("Fallback 'fallback': on must be an array of error classes, or a predicate, got an array"),
    );
    expect(() => decorate().withFallback(() => 1, { on: 42 as never })).toThrow(
      new TypeError("Fallback 'fallback': on must be an array of error classes, or a predicate, got 42"),
    );
    expect(() => decorate().withFallback(() => 1, { when: [] } as never)).toThrow(
      new TypeError("withFallback: unknown option 'when' (known options: on, name)"),
    );
    expect(() => decorate().withFallback(() => 1, 'x' as never)).toThrow(new TypeError("withFallback: options must be an object, got 'x'"));
    expect(() => decorate().withFallback(() => 1, { name: '' })).toThrow(new TypeError("Fallback: name must be a non-empty string, got ''"));
  });
});

describe('Fallback policy', () => {
  it('is a Policy of kind fallback, with of()', async () => {
    const f = Fallback.of('zero', () => 0, { on: [TimeoutError] });
    expect(f).toBeInstanceOf(Fallback);
    expect(f.kind).toBe('fallback');
    expect(f.name).toBe('zero');
    await expect(f.execute(fail(new TimeoutError('pg', 5)))).resolves.toBe(0);
    await expect(f.execute(() => 3)).resolves.toBe(3);
  });

  it('execute never throws synchronously', async () => {
    const f = new Fallback('f', () => 'handled');
    let call: Promise<unknown> | undefined;
    expect(() => (call = f.execute(fail(new Error('x'))))).not.toThrow();
    await expect(call).resolves.toBe('handled');
    await expect(f.execute(() => 1, { signal: 'bad' as never })).rejects.toBeInstanceOf(TypeError);
    // a programming error is not a failure to fall back from
    await expect(f.execute(undefined as never)).rejects.toThrow(new TypeError("Fallback 'f': execute(fn) needs a function, got undefined"));
  });

  it('decorate(fn) keeps the parameters and hands them to the handler', async () => {
    const f = new Fallback('user', (_e, id: string) => ({ id, anonymous: true }));
    const find = f.decorate((_id: string): { id: string; anonymous: boolean } => {
      throw new NotFound();
    });
    await expect(find('42')).resolves.toEqual({ id: '42', anonymous: true });
    expect(() => f.decorate(1 as never)).toThrow(new TypeError("Fallback 'user': decorate(fn) needs a function, got number"));
  });

  it('publishes fallback and ignoredError events with the error, its name and the time, and counts them', async () => {
    clock.set(1234);
    const f = new Fallback('cache', () => 'cached', { on: [HttpError], clock });
    const events: Array<{ type: string; name: string; at: number; error: unknown }> = [];
    const fallbacks: unknown[] = [];
    const offAll = f.on('*', (e) => events.push(e));
    const off = f.on('fallback', (e) => fallbacks.push(e.error));
    const pipeline = decorate().with(f);
    const handled = new HttpError(502);
    const ignored = new Error('not http');
    await pipeline.execute(fail(handled));
    await pipeline.execute(fail(ignored)).catch(() => {});
    await pipeline.execute(() => 'fine');
    expect(events).toEqual([
      { type: 'fallback', name: 'cache', at: 1234, time: WALL + 1234, error: handled },
      { type: 'ignoredError', name: 'cache', at: 1234, time: WALL + 1234, error: ignored },
    ]);
    expect(fallbacks).toEqual([handled]);
    expect(f.metrics).toEqual({ numberOfSuccessfulCalls: 1, numberOfFallbackCalls: 1, numberOfIgnoredErrors: 1 });
    expect(f.metrics).not.toBe(f.metrics);
    off();
    offAll();
    await pipeline.execute(fail(handled));
    expect(events).toHaveLength(2);
    expect(f.metrics.numberOfFallbackCalls).toBe(2);
  });

  it("counts the caller's abort as an ignored error", async () => {
    const f = new Fallback('f', () => 'x');
    const reason = new Error('stop');
    const controller = new AbortController();
    const call = f.execute(after(clock, 100, 'ok'), { signal: controller.signal });
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(f.metrics).toEqual({ numberOfSuccessfulCalls: 0, numberOfFallbackCalls: 0, numberOfIgnoredErrors: 1 });
  });

  it('builds no event and reads no time with no listener', async () => {
    const now = vi.fn(() => 0);
    const f = new Fallback('f', () => 'x', { clock: { now, setTimeout: () => ({}), clearTimeout: () => {} } });
    now.mockClear(); // the construction reads the clock once, to check it reads a finite time
    await f.execute(fail(new Error('x')));
    await f.execute(() => 'fine');
    await f.execute(fail(new Error('y')), { signal: new AbortController().signal });
    expect(now).not.toHaveBeenCalled();
  });

  it('a throwing listener changes nothing for the call', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const f = new Fallback('f', () => 'handled', { clock });
      f.on('fallback', () => {
        throw new Error('listener bug');
      });
      await expect(f.execute(fail(new Error('x')))).resolves.toBe('handled');
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
  });

  it('added with with(), it gets the wrapped arguments like withFallback', async () => {
    const f = new Fallback('f', (_e, a: number, b: number) => a * b);
    const mul = decorate()
      .with(f)
      .wrap((_ctx, _a: number, _b: number): number => {
        throw new Error('no');
      });
    await expect(mul(6, 7)).resolves.toBe(42);
  });

  it('its event map is typed', () => {
    const f = new Fallback('f', () => 1);
    const off = f.on('fallback', (e) => {
      const error: FallbackEvents['fallback']['error'] = e.error;
      void error;
    });
    off();
    expect(() => f.on('fallback', 'x' as never)).toThrow(TypeError);
  });

  it('refuses bad configuration, naming itself, the option and the value', () => {
    expect(() => new Fallback('f', () => 1, { retries: 3 } as never)).toThrow(
      new TypeError("Fallback 'f': unknown option 'retries' (known options: on, clock)"),
    );
    expect(() => new Fallback('f', () => 1, { clock: {} as never })).toThrow(
      new TypeError("Fallback 'f': clock must be a Clock (now, setTimeout, clearTimeout), got an object"),
    );
    expect(() => new Fallback('', () => 1)).toThrow(TypeError);
    expect(() => new Fallback('f', undefined as never)).toThrow(new TypeError("Fallback 'f': handler must be a function, got undefined"));
  });
});

describe("Fallback and the caller's signal (contract: docs/conventions.md)", () => {
  it('an already aborted signal rejects with its reason and runs nothing, like every other policy', async () => {
    const fn = vi.fn(() => 'ran');
    const handler = vi.fn(() => 'fallback');
    const f = new Fallback('f', handler);
    const reason = new Error('gone');
    await expect(f.execute(fn, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    // the same through the context form an outer layer passes down
    await expect(f.execute(fn, { signal: AbortSignal.abort(reason), attempt: 2 })).rejects.toBe(reason);
    expect(fn).not.toHaveBeenCalled();
    expect(handler).not.toHaveBeenCalled();
    expect(f.metrics).toEqual({ numberOfSuccessfulCalls: 0, numberOfFallbackCalls: 0, numberOfIgnoredErrors: 0 });
  });

  it('an abort while fn runs rejects at once with the reason, not with the late value, counted once as an ignored error', async () => {
    const f = new Fallback('f', () => 'fallback', { clock });
    const events: string[] = [];
    f.on('*', (e) => events.push(`${e.type}:${(e.error as Error).message}`));
    const caller = new AbortController();
    const call = watch(f.execute(deaf(clock, 200, 'late'), { signal: caller.signal }));
    await clock.advance(50);
    caller.abort(new Error('user left'));
    await clock.advance(0);
    expect(call.outcomes).toEqual([['error', new Error('user left')]]);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    await clock.advance(150); // the late value is dropped and counted nowhere
    expect(call.outcomes).toHaveLength(1);
    expect(f.metrics).toEqual({ numberOfSuccessfulCalls: 0, numberOfFallbackCalls: 0, numberOfIgnoredErrors: 1 });
    expect(events).toEqual(['ignoredError:user left']);
  });

  it('an abort while the handler runs rejects at once with the reason; the call stays counted as a fallback', async () => {
    const f = new Fallback('f', deaf(clock, 100, 'cached'));
    const caller = new AbortController();
    const call = watch(f.execute(fail(new Error('down')), { signal: caller.signal }));
    await clock.advance(10);
    const reason = new Error('user left');
    caller.abort(reason);
    await clock.advance(0);
    expect(call.outcomes).toEqual([['error', reason]]);
    await clock.advance(100);
    expect(call.outcomes).toHaveLength(1);
    expect(f.metrics).toEqual({ numberOfSuccessfulCalls: 0, numberOfFallbackCalls: 1, numberOfIgnoredErrors: 0 });
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('many calls on one signal add at most one listener to it, none once they end', async () => {
    const f = new Fallback('f', () => 'fallback');
    const caller = new AbortController();
    const calls = Array.from({ length: 50 }, (_, i) => f.execute(i % 2 === 0 ? deaf(clock, 10, i) : fail(new Error('x')), { signal: caller.signal }));
    expect(getEventListeners(caller.signal, 'abort').length).toBeLessThanOrEqual(1);
    await clock.advance(10);
    const results = await Promise.all(calls);
    expect(results).toEqual(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? i : 'fallback')));
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(f.metrics).toEqual({ numberOfSuccessfulCalls: 25, numberOfFallbackCalls: 25, numberOfIgnoredErrors: 0 });
  });
});

describe('Fallback: hostile values and options settle exactly once, never a sync throw (contract: docs/conventions.md)', () => {
  it('fn returning a promise whose then calls both handlers: one outcome, counted once', async () => {
    const f = new Fallback('f', () => 'fallback');
    const returned = f.execute(() => twoFaced('v', new Error('also')));
    expect(Object.hasOwn(returned, 'then')).toBe(false);
    const call = watch(returned);
    const withSignal = watch(f.execute(() => twoFaced('w', new Error('also')), { signal: new AbortController().signal }));
    const decorated = watch(f.decorate(() => twoFaced('d', new Error('also')))());
    await clock.advance(0);
    expect([call.outcomes, withSignal.outcomes, decorated.outcomes]).toEqual([[['value', 'v']], [['value', 'w']], [['value', 'd']]]);
    expect(f.metrics).toEqual({ numberOfSuccessfulCalls: 3, numberOfFallbackCalls: 0, numberOfIgnoredErrors: 0 });
  });

  it("fn or handler returning { get then() { throw } }: the getter's error is the outcome (handled as a failure of fn)", async () => {
    const boom = new Error('then getter');
    const handler = vi.fn((e: unknown) => `handled ${(e as Error).message}`);
    const f = new Fallback('f', handler);
    let call: Promise<unknown> | undefined;
    expect(() => (call = f.execute(() => throwingThen(boom)))).not.toThrow();
    await expect(call).resolves.toBe('handled then getter');
    await expect(f.execute(() => throwingThen(boom), { signal: new AbortController().signal })).resolves.toBe('handled then getter');
    const own = new Error('handler then getter');
    const bad = new Fallback('bad', () => throwingThen(own));
    await expect(bad.execute(fail(new Error('x')))).rejects.toBe(own);
    await expect(bad.execute(fail(new Error('x')), { signal: new AbortController().signal })).rejects.toBe(own);
    // a handler returning a two-faced promise gives one outcome
    const twice = watch(new Fallback('two', () => twoFaced('h', new Error('also'))).execute(fail(new Error('x')), { signal: new AbortController().signal }));
    await clock.advance(0);
    expect(twice.outcomes).toEqual([['value', 'h']]);
  });

  it('options null is no options; a fake signal (even with an attempt) is a TypeError rejection, fn not run', async () => {
    const fn = vi.fn(() => 'ok');
    const f = new Fallback('f', () => 'fallback');
    await expect(f.execute(fn, null as never)).resolves.toBe('ok');
    let call: Promise<unknown> | undefined;
    expect(() => (call = f.execute(fn, { signal: { aborted: false }, attempt: 1 } as never))).not.toThrow();
    await expect(call).rejects.toThrow(new TypeError('execute: options.signal must be an AbortSignal, got an object'));
    expect(fn).toHaveBeenCalledTimes(1);
    expect(f.metrics).toEqual({ numberOfSuccessfulCalls: 1, numberOfFallbackCalls: 0, numberOfIgnoredErrors: 0 });
  });
});

describe('a throwing `on` is a user callback (contract: docs/conventions.md)', () => {
  it('does not fall back: the original error goes to the caller, reported once, counted as ignored', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const handler = vi.fn(() => 'fallback');
      const on = (e: unknown): boolean => (e as { response: { status: number } }).response.status >= 500;
      const f = new Fallback('api', handler, { on, clock });
      const events: string[] = [];
      f.on('ignoredError', (e) => events.push((e.error as Error).message));
      const first = new Error('plain 1');
      const second = new Error('plain 2');
      await expect(f.execute(fail(first))).rejects.toBe(first);
      await expect(f.execute(fail(second), { signal: new AbortController().signal })).rejects.toBe(second);
      await expect(
        decorate()
          .with(f)
          .wrap((_ctx, _n: number): never => fail(first)())(1),
      ).rejects.toBe(first);
      expect(handler).not.toHaveBeenCalled();
      expect(f.metrics).toEqual({ numberOfSuccessfulCalls: 0, numberOfFallbackCalls: 0, numberOfIgnoredErrors: 3 });
      expect(events).toEqual(['plain 1', 'plain 2', 'plain 1']);
      expect(warn).toHaveBeenCalledTimes(1);
      const [message, options] = warn.mock.calls[0]! as [string, { type: string }];
      expect(options).toEqual({ type: 'BreakwaterCallbackWarning' });
      expect(message).toMatch(
        /^Fallback 'api': on threw; the error goes to the caller as it is, without the handler \(reported once\): TypeError: Cannot read properties of undefined/,
      );
    } finally {
      warn.mockRestore();
    }
  });

  it('an error class whose instanceof check throws is contained the same way', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      class Picky {
        static [Symbol.hasInstance](): boolean {
          throw new Error('picky');
        }
      }
      const f = new Fallback('f', () => 'fallback', { on: [Picky as never] });
      const error = new Error('x');
      await expect(f.execute(fail(error))).rejects.toBe(error);
      await expect(f.execute(fail(error))).rejects.toBe(error);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]![0]).toMatch(/^Fallback 'f': on threw; .*Error: picky/s);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('Fallback event types', () => {
  it('on() refuses an unknown type, suggesting the closest', () => {
    const f = new Fallback('cache', () => 1);
    expect(() => f.on('fallbak' as never, () => {})).toThrow(
      new TypeError("Fallback 'cache': unknown event type 'fallbak' (did you mean 'fallback'?) (event types: fallback, ignoredError, or '*')"),
    );
    expect(() => f.on('ignoredErrors' as never, () => {})).toThrow(/did you mean 'ignoredError'\?/);
    expect(() => f.on('*', () => {})).not.toThrow();
  });
});
