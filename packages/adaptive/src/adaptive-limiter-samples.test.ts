import { TimeoutError, VirtualClock } from '@breakwater/core';
import { deferred, flush } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RecordingAlgorithm } from '../test/test-support.js';
import { AdaptiveLimiter, aimd, type AdaptiveLimiterConfig, type LimitAlgorithm } from './index.js';

let clock: VirtualClock;
beforeEach(() => {
  clock = new VirtualClock();
});
afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
  vi.restoreAllMocks();
});

const limiter = (config: AdaptiveLimiterConfig = {}) => new AdaptiveLimiter('pg', { clock, window: false, ...config });

describe('AdaptiveLimiter — samples fed to the algorithm (contract: docs/adaptive.md)', () => {
  it('each call is one sample: its time, its rtt from admission, the calls in flight at admission (itself included), its drop', async () => {
    const algorithm = new RecordingAlgorithm(10);
    const l = limiter({ algorithm, isDrop: (e) => e === 'overload' });
    const a = deferred();
    const b = deferred();
    const c = deferred();
    const first = l.execute(() => a.promise);
    await clock.advance(3);
    const second = l.execute(() => b.promise);
    const third = l.execute(() => c.promise).catch(() => {});
    await clock.advance(4);
    b.resolve();
    await second;
    await clock.advance(5);
    c.reject('overload');
    await third;
    a.resolve();
    await first;
    expect(algorithm.samples).toEqual([
      { at: 7, rtt: 4, inFlight: 2, didDrop: false },
      { at: 12, rtt: 9, inFlight: 3, didDrop: true },
      { at: 12, rtt: 12, inFlight: 1, didDrop: false },
    ]);
  });

  it('calls handed slots at once (the limit grew while they waited) each carry the calls in flight at their own admission', async () => {
    const algorithm = new RecordingAlgorithm(1);
    algorithm.next.push(5);
    const l = limiter({ algorithm, maxWaitDuration: '1s' });
    const a = deferred();
    const first = l.execute(() => a.promise);
    const b = deferred();
    const c = deferred();
    const e = deferred();
    const second = l.execute(() => b.promise);
    const third = l.execute(() => c.promise);
    const fourth = l.acquire();
    const fifth = l.execute(() => e.promise);
    expect(l.metrics.waiting).toBe(4);
    await clock.advance(1);
    a.resolve(); // its sample raises the limit to 5: its slot and four more go to the four waiters
    await first;
    await flush();
    expect(l.inFlight).toBe(4);
    await clock.advance(1);
    b.resolve();
    c.resolve();
    (await fourth).onSuccess();
    e.resolve();
    await Promise.all([second, third, fifth]);
    expect(algorithm.samples.map((s) => s.inFlight)).toEqual([1, 1, 2, 3, 4]); // A, then B, C, the token, E: handed over in that order
    expect(algorithm.samples.map((s) => s.rtt)).toEqual([1, 1, 1, 1, 1]);
  });

  it('limitChanged carries the previous and the new limit; the same limit publishes nothing', async () => {
    const algorithm = new RecordingAlgorithm(4);
    algorithm.next.push(5, 5, 3);
    const l = limiter({ algorithm });
    const changes: unknown[] = [];
    l.on('limitChanged', ({ time: _t, ...e }) => changes.push(e));
    for (let i = 0; i < 3; i++) await l.execute(() => clock.advance(1));
    expect(changes).toEqual([
      { type: 'limitChanged', name: 'pg', at: 1, previous: 4, limit: 5 },
      { type: 'limitChanged', name: 'pg', at: 3, previous: 5, limit: 3 },
    ]);
    expect(l.limit).toBe(3);
    expect(l.metrics.limit).toBe(3);
  });

  it('the token ends decide the sample: onSuccess, onDropped, and onIgnore (none)', async () => {
    const algorithm = new RecordingAlgorithm(3);
    const l = limiter({ algorithm });
    const a = l.tryAcquire()!;
    const b = l.tryAcquire()!;
    const c = l.tryAcquire()!;
    await clock.advance(2);
    c.onIgnore();
    b.onDropped();
    a.onSuccess();
    expect(algorithm.samples).toEqual([
      { at: 2, rtt: 2, inFlight: 2, didDrop: true },
      { at: 2, rtt: 2, inFlight: 1, didDrop: false },
    ]);
  });

  it('a named algorithm takes initialLimit, minLimit and maxLimit', () => {
    expect(limiter({ algorithm: 'aimd', initialLimit: 7, minLimit: 5, maxLimit: 9 }).limit).toBe(7);
    expect(limiter({ algorithm: 'gradient2', initialLimit: 30 }).limit).toBe(30);
    expect(limiter({ algorithm: 'vegas', initialLimit: 3 }).limit).toBe(3);
    expect(limiter({ algorithm: 'aimd' }).config.algorithm.name).toContain('aimd');
  });

  it('samples go through windowed() unless window: false', async () => {
    const algorithm = new RecordingAlgorithm(10);
    const l = new AdaptiveLimiter('pg', { clock, algorithm, window: { windowSize: 2, minWindowTime: 10, maxWindowTime: 10 } });
    expect(l.config.algorithm).not.toBe(algorithm);
    await l.execute(() => clock.advance(4));
    await l.execute(() => clock.advance(4));
    expect(algorithm.samples).toEqual([]); // the window opened at 4 and holds two calls, but has lasted 4 ms of its 10
    await l.execute(() => clock.advance(6));
    expect(algorithm.samples).toEqual([{ at: 14, rtt: (4 + 4 + 6) / 3, inFlight: 1, didDrop: false }]);
    expect(limiter({ algorithm }).config.algorithm).toBe(algorithm);
  });

  it('a LimitAlgorithm given as an object is fed as it is (aimd: a TimeoutError backs the limit off by 0.9)', async () => {
    const l = limiter({ algorithm: aimd({ initialLimit: 20, minLimit: 1 }) });
    const changes: number[] = [];
    l.on('limitChanged', (e) => changes.push(e.limit));
    await l.execute(() => Promise.reject(new TimeoutError('t', 1))).catch(() => {});
    expect(changes).toEqual([18]);
  });
});

describe('AdaptiveLimiter — observeCalls: one call per finished call, no event object', () => {
  it('tells each call its kind and round-trip time; stops when told; contains a throwing observer', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const l = limiter({ algorithm: new RecordingAlgorithm(5), isDrop: (e) => e === 'drop' });
    const seen: [string, number][] = [];
    const seenToo: string[] = [];
    const stop = l.observeCalls((kind, rttMs) => seen.push([kind, rttMs]));
    const stopToo = l.observeCalls((kind) => seenToo.push(kind));
    const thrower = () => {
      throw new Error('observer bug');
    };
    const stopThrower = l.observeCalls(thrower);
    await l.execute(() => clock.advance(3));
    await l.execute(() => clock.advance(2).then(() => Promise.reject('drop'))).catch(() => {});
    await l.execute(() => Promise.reject(new Error('404'))).catch(() => {});
    expect(seen).toEqual([
      ['successful', 3],
      ['dropped', 2],
      ['ignored', 0],
    ]);
    expect(seenToo).toEqual(['successful', 'dropped', 'ignored']);
    expect(warn).toHaveBeenCalledTimes(1);
    stop();
    stop();
    stopThrower();
    await l.execute(() => 1);
    expect(seen).toHaveLength(3);
    expect(seenToo).toHaveLength(4);
    stopToo();
    expect(() => l.observeCalls('x' as never)).toThrow(new TypeError("AdaptiveLimiter 'pg': observeCalls(observer) needs a function, got 'x'"));
  });
});

describe('AdaptiveLimiter — an algorithm is a user callback', () => {
  function hostile(returns: unknown[]): LimitAlgorithm {
    return { name: 'hostile', limit: 2, onSample: () => returns.shift() as number };
  }

  it('a limit that is not a finite number >= 1 keeps the limit in force, reported once; a fraction is rounded down', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const l = limiter({ algorithm: hostile([Number.NaN, 0, Infinity, '7', 3.7]) });
    for (let i = 0; i < 4; i++) await l.execute(() => 1);
    expect(l.limit).toBe(2);
    await l.execute(() => 1);
    expect(l.limit).toBe(3);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toBe(
      "AdaptiveLimiter 'pg': algorithm 'hostile' returned NaN, not a finite number >= 1; the limit stays at 2 (reported once)",
    );
  });

  it('an algorithm that throws keeps the limit, reported once as a BreakwaterCallbackWarning', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const algorithm: LimitAlgorithm = {
      name: 'thrower',
      limit: 4,
      onSample: () => {
        throw new Error('bad math');
      },
    };
    const l = limiter({ algorithm });
    expect(await l.execute(() => 'ok')).toBe('ok');
    expect(await l.execute(() => 'ok')).toBe('ok');
    expect(l.limit).toBe(4);
    expect(l.inFlight).toBe(0);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![1]).toEqual({ type: 'BreakwaterCallbackWarning' });
  });

  it('an isDrop that throws: not a drop (no sample), reported once; the call keeps its own error', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const algorithm = new RecordingAlgorithm(2);
    const l = limiter({
      algorithm,
      isDrop: () => {
        throw new Error('predicate bug');
      },
    });
    const error = new Error('backend');
    await expect(l.execute(() => Promise.reject(error))).rejects.toBe(error);
    expect(algorithm.samples).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(1);
    await flush();
  });

  it('an algorithm whose initial limit is not a finite number >= 1 is refused at construction', () => {
    expect(() => limiter({ algorithm: { name: 'zero', limit: 0, onSample: () => 0 } })).toThrow(
      new RangeError("AdaptiveLimiter 'pg': algorithm.limit must be a finite number >= 1, got 0"),
    );
  });
});
