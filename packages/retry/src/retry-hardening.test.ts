import { VirtualClock } from '@breakwater/core';
import { track, twoFaced } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { IntervalFunction, Retry, RetryRegistry, type RetryConfig } from './index.js';
import { scripted } from '../test/test-support.js';

/** Where a VirtualClock's wall time (an event's `time`) starts: events carry `time` = WALL + `at`. */
const WALL = VirtualClock.DEFAULT_WALL_START;

// Issue 9: what using Retry as users and attackers would found, each held here (the error behind
// a breaker's refusal: retry-with-breaker.test.ts; one abort listener per signal: retry-abort.test.ts).

let clock: VirtualClock;
let warnings: MockInstance<typeof process.emitWarning>;

beforeEach(() => {
  clock = new VirtualClock();
  warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
});

afterEach(() => {
  warnings.mockRestore();
  expect(clock.pendingTimers).toBe(0);
});

function retry(config: RetryConfig = {}): Retry {
  return new Retry('pg', { clock, ...config });
}

const NO_CALLS = {
  numberOfSuccessfulCallsWithoutRetryAttempt: 0,
  numberOfSuccessfulCallsWithRetryAttempt: 0,
  numberOfFailedCallsWithoutRetryAttempt: 0,
  numberOfFailedCallsWithRetryAttempt: 0,
};

/** The warnings emitted so far, as [message, type]. */
function emitted(): [string, string | undefined][] {
  return warnings.mock.calls.map(([message, options]) => [String(message), (options as { type?: string } | undefined)?.type]);
}

describe('Retry: a throwing user callback never replaces the call’s outcome (contract: docs/conventions.md)', () => {
  it('retryOnException that throws: the error is not retried, the caller gets its own error, reported once', async () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'status')");
    const r = retry({
      waitDuration: 100,
      retryOnException: () => {
        throw bug;
      },
    });
    const events: unknown[] = [];
    r.on('*', (e) => events.push(e));
    const own = new Error('gateway down');
    const first = scripted(clock, [{ reject: own }]);
    await expect(r.execute(first.fn)).rejects.toBe(own);
    const second = scripted(clock, [{ throw: 'sync' }]);
    await expect(r.execute(second.fn)).rejects.toBe('sync');
    expect(first.starts).toEqual([0]);
    expect(second.starts).toEqual([0]);
    expect(events).toEqual([
      { type: 'ignoredError', name: 'pg', at: 0, time: WALL + 0, error: own },
      { type: 'ignoredError', name: 'pg', at: 0, time: WALL + 0, error: 'sync' },
    ]);
    expect(r.metrics).toEqual({ ...NO_CALLS, numberOfFailedCallsWithoutRetryAttempt: 2 });
    expect(emitted()).toHaveLength(1);
    const [message, type] = emitted()[0]!;
    expect(type).toBe('BreakwaterCallbackWarning');
    expect(message).toContain("Retry 'pg': retryOnException threw");
    expect(message).toContain('not retried');
    expect(message).toContain("reading 'status'");
  });

  it('retryOnException that throws only at the last attempt (judged after p-retry stops): the last error, as it is', async () => {
    let calls = 0;
    const r = retry({
      maxAttempts: 2,
      waitDuration: 0,
      retryOnException: () => {
        if (++calls === 2) throw new Error('late bug');
        return true;
      },
    });
    const { fn, starts } = scripted(clock, [{ reject: 'x' }, { reject: 'y' }]);
    await expect(r.execute(fn)).rejects.toBe('y');
    expect(starts).toHaveLength(2);
    expect(r.metrics).toEqual({ ...NO_CALLS, numberOfFailedCallsWithRetryAttempt: 1 });
    expect(emitted()).toHaveLength(1);
  });

  it('retryOnResult that throws: the value is the result (not retried), at the first attempt and at a later one', async () => {
    const r = retry({
      waitDuration: 10,
      retryOnResult: (v: string) => {
        if (v === 'busy') return true;
        throw new Error(`predicate bug on ${v}`);
      },
    });
    await expect(r.execute(() => Promise.resolve('odd'))).resolves.toBe('odd');
    const { fn, starts } = scripted(clock, [{ value: 'busy' }, { value: 'strange' }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call).toEqual({ state: 'fulfilled', settled: true, value: 'strange' });
    expect(starts).toEqual([0, 10]);
    expect(r.metrics).toEqual({ ...NO_CALLS, numberOfSuccessfulCallsWithoutRetryAttempt: 1, numberOfSuccessfulCallsWithRetryAttempt: 1 });
    expect(emitted()).toHaveLength(1);
    expect(emitted()[0]![0]).toContain("Retry 'pg': retryOnResult threw");
  });

  it('consumeResultBeforeRetryAttempt that throws: the retry goes on as if it had not, reported once', async () => {
    const consumed: [number, unknown][] = [];
    const r = retry({
      maxAttempts: 3,
      waitDuration: 100,
      retryOnResult: (v) => v === 'busy',
      consumeResultBeforeRetryAttempt: (attempt, value) => {
        consumed.push([attempt, value]);
        throw new Error('body already read');
      },
    });
    const { fn, starts } = scripted(clock, [{ value: 'busy' }, { value: 'busy' }, { value: 'ok' }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call).toEqual({ state: 'fulfilled', settled: true, value: 'ok' });
    expect(starts).toEqual([0, 100, 200]);
    expect(consumed).toEqual([
      [1, 'busy'],
      [2, 'busy'],
    ]);
    expect(emitted()).toHaveLength(1);
    expect(emitted()[0]![0]).toContain("Retry 'pg': consumeResultBeforeRetryAttempt threw");
  });

  it('an intervalFunction that throws: the default wait (waitDuration) first, then the previous wait; reported once', async () => {
    const waits: Record<number, number | Error> = { 1: new Error('no wait for 1'), 2: 70, 3: new Error('no wait for 3') };
    const r = retry({
      maxAttempts: 4,
      intervalFunction: (attempt) => {
        const w = waits[attempt]!;
        if (w instanceof Error) throw w;
        return w;
      },
    });
    const events: number[] = [];
    r.on('retry', (e) => events.push(e.waitMs));
    const { fn, starts } = scripted(clock, [{ reject: 'e' }, { reject: 'e' }, { reject: 'e' }, { value: 'ok' }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call.value).toBe('ok');
    // 500 (the default waitDuration, no previous wait), 70, then 70 again (the previous wait).
    expect(events).toEqual([500, 70, 70]);
    expect(starts).toEqual([0, 500, 570, 640]);
    expect(emitted()).toHaveLength(1);
    expect(emitted()[0]![0]).toContain("Retry 'pg': intervalFunction threw");
  });

  it.each([
    [Number.NaN, 'NaN'],
    [Infinity, 'Infinity'],
    [-5, '-5'],
    ['100', "'100'"],
    [undefined, 'undefined'],
  ])('an interval function that returns %o: the previous wait or the default, never the bad value; reported once', async (bad, shown) => {
    const r = retry({ maxAttempts: 4, intervalBiFunction: (attempt) => (attempt === 2 ? 30 : (bad as number)) });
    const events: number[] = [];
    r.on('retry', (e) => events.push(e.waitMs));
    const { fn, starts } = scripted(clock, [{ reject: 'e' }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call.error).toBe('e');
    expect(events).toEqual([500, 30, 30]);
    expect(starts).toEqual([0, 500, 530, 560]);
    expect(r.metrics).toEqual({ ...NO_CALLS, numberOfFailedCallsWithRetryAttempt: 1 });
    expect(emitted()).toHaveLength(1);
    const [message, type] = emitted()[0]!;
    expect(type).toBe('BreakwaterCallbackWarning');
    expect(message).toContain(`Retry 'pg': intervalBiFunction returned ${shown} for attempt 1`);
  });

  it('a throwing random source reaches the interval function, which falls back the same way', async () => {
    const r = retry({
      maxAttempts: 2,
      intervalFunction: IntervalFunction.ofRandomized(100),
      random: () => {
        throw new Error('no entropy');
      },
    });
    const { fn, starts } = scripted(clock, [{ reject: 'e' }, { value: 'ok' }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call.value).toBe('ok');
    expect(starts).toEqual([0, 500]);
    expect(emitted()).toHaveLength(1);
  });
});

describe('Retry: a hostile thenable settles and is counted exactly once', () => {
  it('a native promise whose then calls both handlers: one success, no retry', async () => {
    const r = retry({ waitDuration: 0 });
    const events: string[] = [];
    r.on('*', (e) => events.push(e.type));
    let attempts = 0;
    await expect(
      r.execute(() => {
        attempts++;
        return twoFaced('ok');
      }),
    ).resolves.toBe('ok');
    await clock.runAll();
    expect(attempts).toBe(1);
    expect(events).toEqual(['success']);
    expect(r.metrics).toEqual({ ...NO_CALLS, numberOfSuccessfulCallsWithoutRetryAttempt: 1 });
  });

  it('the same at a later attempt (inside p-retry)', async () => {
    const r = retry({ waitDuration: 0 });
    const events: string[] = [];
    r.on('*', (e) => events.push(e.type));
    let attempts = 0;
    await expect(
      r.execute(() => {
        attempts++;
        return attempts === 1 ? Promise.reject(new Error('first')) : twoFaced('second');
      }),
    ).resolves.toBe('second');
    await clock.runAll();
    expect(attempts).toBe(2);
    expect(events).toEqual(['retry', 'success']);
    expect(r.metrics).toEqual({ ...NO_CALLS, numberOfSuccessfulCallsWithRetryAttempt: 1 });
  });

  it('a then getter or a then that throws is a failed attempt, never a synchronous throw', async () => {
    const r = retry({ waitDuration: 0, maxAttempts: 2 });
    const getter = {
      get then(): never {
        throw new Error('getter');
      },
    };
    const method = {
      then(): never {
        throw new Error('method');
      },
    };
    let call!: Promise<unknown>;
    expect(() => {
      call = r.execute(() => getter as unknown as PromiseLike<unknown>);
    }).not.toThrow();
    await expect(call).rejects.toThrow('getter');
    await expect(r.execute(() => method as unknown as PromiseLike<unknown>)).rejects.toThrow('method');
    expect(r.metrics).toEqual({ ...NO_CALLS, numberOfFailedCallsWithRetryAttempt: 2 });
  });
});

describe('Retry: first use and bad input', () => {
  it('refuses an unknown event type with a "did you mean"', () => {
    const r = retry();
    expect(() => r.on('sucess' as 'success', () => {})).toThrow(TypeError);
    expect(() => r.on('sucess' as 'success', () => {})).toThrow("did you mean 'success'?");
    expect(() => r.on('retries' as 'retry', () => {})).toThrow("Retry 'pg': unknown event type 'retries'");
  });

  it('a registry refuses a bad defaultConfig or named config at construction, naming it', () => {
    expect(() => new RetryRegistry({ defaultConfig: { maxAttempts: 0 } })).toThrow(
      new RangeError("RetryRegistry: config 'default': Retry 'default': maxAttempts must be an integer >= 1, got 0"),
    );
    expect(() => new RetryRegistry({ configs: { slow: { waitDuration: '10 parsecs' as never } } })).toThrow(TypeError);
    expect(() => new RetryRegistry({ configs: { slow: { waitDuration: '1s', intervalFunction: () => 1 } } })).toThrow("config 'slow'");
  });

  it('reads back the config it was given', () => {
    const intervalFunction = IntervalFunction.ofExponentialBackoff(100, 2, 1000);
    const retryOnResult = (v: unknown): boolean => v === 'busy';
    const r = retry({ maxAttempts: 5, intervalFunction, retryOnResult, failAfterMaxAttempts: true, retryCallNotPermitted: true });
    expect(r.config).toMatchObject({
      maxAttempts: 5,
      intervalFunction,
      retryOnResult,
      failAfterMaxAttempts: true,
      retryCallNotPermitted: true,
      waitDuration: 500,
      clock,
    });
  });

  it('options null run the call; a fake signal rejects (never a synchronous throw) without running fn', async () => {
    const r = retry();
    await expect(r.execute(() => 'ok', null as never)).resolves.toBe('ok');
    let ran = 0;
    let call!: Promise<unknown>;
    expect(() => {
      call = r.execute(
        () => {
          ran++;
          return 'never';
        },
        { signal: { aborted: false } as AbortSignal, attempt: 1 },
      );
    }).not.toThrow();
    await expect(call).rejects.toThrow(TypeError);
    expect(ran).toBe(0);
  });
});
