import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from './clock.js';

interface Refable {
  ref(): Refable;
  unref(): Refable;
  hasRef(): boolean;
}

afterEach(() => {
  vi.useRealTimers();
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
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
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
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
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
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
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
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
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
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let fired = 0;
    const t = systemClock.setTimeout(() => fired++, Infinity);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10 * 2 ** 31);
    expect(fired).toBe(0);
    systemClock.clearTimeout(t);
  });
});
