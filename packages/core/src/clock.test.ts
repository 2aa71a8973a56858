import { afterEach, describe, expect, it, vi } from 'vitest';
import { performance } from 'node:perf_hooks';
import { holdProcess, releaseProcess } from './keep-alive.js';
import { systemClock } from './clock.js';

/** Node's fake timers, with `performance.now()` (which systemClock reads) following their fake time. */
function fakeNodeTimers(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const fakeNow = Date.now; // the fake's own function (a lookup of Date.now from inside the mock recurses)
  vi.spyOn(performance, 'now').mockImplementation(() => fakeNow());
}

interface Refable {
  ref(): Refable;
  unref(): Refable;
  hasRef(): boolean;
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('systemClock', () => {
  it('now() is a monotonic reading in milliseconds (performance.now())', () => {
    const readings = Array.from({ length: 1000 }, () => systemClock.now());
    for (let i = 1; i < readings.length; i++) expect(readings[i]!).toBeGreaterThanOrEqual(readings[i - 1]!);
    const before = performance.now();
    const reading = systemClock.now();
    expect(reading).toBeGreaterThanOrEqual(before);
    expect(reading).toBeLessThanOrEqual(performance.now());
  });

  it('timers are unref’d: a pending one never keeps the process alive', () => {
    const handle = systemClock.setTimeout(() => {}, 60_000) as ReturnType<typeof setTimeout>;
    expect(handle.hasRef()).toBe(false);
    systemClock.clearTimeout(handle);
  });

  it('a timer longer than Node’s limit or Infinity is unref’d too', () => {
    for (const ms of [2 ** 31, Infinity]) {
      const handle = systemClock.setTimeout(() => {}, ms) as { hasRef(): boolean };
      expect(handle.hasRef()).toBe(false);
      systemClock.clearTimeout(handle);
    }
  });

  it('a long timer can be ref’d and unref’d like a Node Timeout, slice after slice', () => {
    fakeNodeTimers();
    let fired = 0;
    const t = systemClock.setTimeout(() => fired++, 2 ** 31 + 10) as unknown as Refable;
    expect(t.ref()).toBe(t);
    expect(t.hasRef()).toBe(true);
    vi.advanceTimersByTime(2 ** 31 - 1);
    expect(t.hasRef()).toBe(true);
    expect(t.unref()).toBe(t);
    expect(t.hasRef()).toBe(false);
    vi.advanceTimersByTime(11);
    expect(fired).toBe(1);
    expect(t.ref().hasRef()).toBe(false);
    const never = systemClock.setTimeout(() => {}, Infinity) as unknown as Refable;
    expect(never.ref().hasRef()).toBe(false);
  });

  it('fires after ms and not before; clearTimeout cancels (on Node’s fake timers)', () => {
    fakeNodeTimers();
    const fired: string[] = [];
    systemClock.setTimeout(() => fired.push('a'), 100);
    const b = systemClock.setTimeout(() => fired.push('b'), 100);
    systemClock.clearTimeout(b);
    systemClock.clearTimeout(b);
    vi.advanceTimersByTime(99);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['a']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('honours a delay longer than Node’s 2^31 - 1 ms instead of firing after 1 ms', () => {
    fakeNodeTimers();
    const warn = vi.spyOn(process, 'emitWarning');
    const ms = 2 ** 31 + 1000; // about 24.9 days
    let fired = 0;
    systemClock.setTimeout(() => fired++, ms);
    vi.advanceTimersByTime(2 ** 31 - 1);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(1000);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  it('clears a long timer whichever slice it is in', () => {
    fakeNodeTimers();
    let fired = 0;
    const t = systemClock.setTimeout(() => fired++, 3 * 2 ** 31);
    vi.advanceTimersByTime(2 ** 31 + 5);
    expect(vi.getTimerCount()).toBe(1);
    systemClock.clearTimeout(t);
    systemClock.clearTimeout(t);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(4 * 2 ** 31);
    expect(fired).toBe(0);
  });

  it('an Infinity delay sets no timer at all and never fires', () => {
    fakeNodeTimers();
    let fired = 0;
    const t = systemClock.setTimeout(() => fired++, Infinity);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10 * 2 ** 31);
    expect(fired).toBe(0);
    systemClock.clearTimeout(t);
  });

  it('re-arms a Node timer that fires before the due time as now() reads it', () => {
    fakeNodeTimers();
    let fired = 0;
    systemClock.setTimeout(() => fired++, 10.4); // Node would run it at 10 ms; it is due at 10.4
    const now = vi.mocked(performance.now);
    const fakeNow = Date.now;
    now.mockImplementation(() => fakeNow() - 3); // Node's loop time runs 3 ms ahead of the clock
    vi.advanceTimersByTime(11);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(2);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('systemClock on the real clock', () => {
  // The one place a real clock is what is tested: Node runs a timer from its cached loop time and
  // truncates fractional delays, so without the re-arm most of these fire up to ~1.7 ms early.
  it('never runs a timer before its due time (300 fractional delays, bounded to ~40 ms)', async () => {
    const early: number[] = [];
    await Promise.all(
      Array.from({ length: 300 }, (_, i) => {
        const ms = 1 + ((i * 7.3) % 30) + 0.7;
        const due = systemClock.now() + ms;
        return new Promise<void>((resolve) => {
          const timer = systemClock.setTimeout(() => {
            const late = systemClock.now() - due;
            if (late < 0) early.push(late);
            releaseProcess();
            resolve();
          }, ms);
          holdProcess(timer);
        });
      }),
    );
    expect(early).toEqual([]);
  });
});
