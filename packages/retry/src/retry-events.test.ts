import { VirtualClock } from '@breakwater/core';
import { track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Retry, type RetryConfig } from './index.js';
import { scripted } from '../test/test-support.js';

/** Where a VirtualClock's wall time (an event's `time`) starts: events carry `time` = WALL + `at`. */
const WALL = VirtualClock.DEFAULT_WALL_START;

let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

function retry(config: RetryConfig = {}): Retry {
  return new Retry('pg', { clock, ...config });
}

describe('Retry: events', () => {
  it('publishes retry {attempt, error, waitMs} before each wait and one final event, in order', async () => {
    const r = retry({ maxAttempts: 3, waitDuration: 250 });
    const events: unknown[] = [];
    r.on('*', (e) => events.push(e));
    const e1 = new Error('1');
    const e2 = new Error('2');
    const { fn } = scripted(clock, [{ reject: e1 }, { reject: e2 }, { value: 'ok' }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call.value).toBe('ok');
    expect(events).toEqual([
      { type: 'retry', name: 'pg', at: 0, time: WALL + 0, attempt: 1, error: e1, waitMs: 250 },
      { type: 'retry', name: 'pg', at: 250, time: WALL + 250, attempt: 2, error: e2, waitMs: 250 },
      { type: 'success', name: 'pg', at: 500, time: WALL + 500, attempts: 3 },
    ]);
  });

  it('publishes retry {attempt, result, waitMs} for a retried value, and error {attempts, error} on exhaustion', async () => {
    const r = retry({ maxAttempts: 2, waitDuration: 5, retryOnResult: (v) => v === 'busy' });
    const events: unknown[] = [];
    r.on('*', (e) => events.push(e));
    const boom = new Error('boom');
    const { fn } = scripted(clock, [{ value: 'busy' }, { reject: boom }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call.error).toBe(boom);
    expect(events).toEqual([
      { type: 'retry', name: 'pg', at: 0, time: WALL + 0, attempt: 1, result: 'busy', waitMs: 5 },
      { type: 'error', name: 'pg', at: 5, time: WALL + 5, attempts: 2, error: boom },
    ]);
  });

  it('publishes success {attempts: 1} for a call that needed no retry', async () => {
    const r = retry();
    const events: unknown[] = [];
    r.on('success', (e) => events.push(e));
    await r.execute(() => 'ok');
    expect(events).toEqual([{ type: 'success', name: 'pg', at: 0, time: WALL + 0, attempts: 1 }]);
  });

  it('a throwing listener changes nothing', async () => {
    const r = retry({ waitDuration: 0 });
    r.on('retry', () => {
      throw new Error('listener bug');
    });
    const emitWarning = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const { fn, starts } = scripted(clock, [{ reject: 'x' }, { value: 'ok' }]);
      await expect(r.execute(fn)).resolves.toBe('ok');
      expect(starts).toHaveLength(2);
      expect(emitWarning).toHaveBeenCalledTimes(1);
    } finally {
      emitWarning.mockRestore();
    }
  });

  it('unsubscribes', async () => {
    const r = retry();
    const seen: string[] = [];
    const off = r.on('success', (e) => seen.push(e.type));
    await r.execute(() => 1);
    off();
    await r.execute(() => 2);
    expect(seen).toEqual(['success']);
  });
});
