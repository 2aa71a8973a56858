import { getEventListeners } from 'node:events';
import { VirtualClock } from '@breakwater/core';
import { track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Retry, type RetryConfig } from './index.js';
import { scripted } from '../test/test-support.js';

let clock: VirtualClock;
let caller: AbortController;

beforeEach(() => {
  clock = new VirtualClock();
  caller = new AbortController();
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
  expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
});

const FAILED_WITHOUT = { numberOfFailedCallsWithoutRetryAttempt: 1, numberOfFailedCallsWithRetryAttempt: 0 };

describe("Retry: the caller's signal", () => {
  it('rejects without any attempt when the signal has already aborted', async () => {
    const r = new Retry('pg', { clock });
    caller.abort('gone');
    const { fn, starts } = scripted(clock, [{ value: 1 }]);
    await expect(r.execute(fn, { signal: caller.signal })).rejects.toBe('gone');
    expect(starts).toHaveLength(0);
  });

  it("ends the wait at once with the signal's reason, clears its timer, and starts no further attempt", async () => {
    const r = new Retry('pg', { clock, waitDuration: 1000, maxAttempts: 5 });
    const { fn, starts } = scripted(clock, [{ reject: new Error('down') }]);
    const call = track(r.execute(fn, { signal: caller.signal }));
    await clock.advance(300);
    expect(clock.pendingTimers).toBe(1);
    const reason = new Error('client left');
    caller.abort(reason);
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(0);
    expect(call.error).toBe(reason);
    await clock.advance(10_000);
    expect(starts).toEqual([0]);
    expect(r.metrics).toMatchObject(FAILED_WITHOUT);
  });

  it('ends a running attempt at once (the attempt ignores its signal) and never retries it', async () => {
    const r = new Retry('pg', { clock, waitDuration: 0, maxAttempts: 5 });
    const { fn, starts } = scripted(clock, [{ reject: 'first' }, { hang: true }]);
    const call = track(r.execute(fn, { signal: caller.signal }));
    await clock.advance(0);
    expect(starts).toHaveLength(2);
    caller.abort('stop');
    await clock.advance(0);
    expect(call.error).toBe('stop');
    expect(starts).toHaveLength(2);
    expect(r.metrics).toMatchObject({ numberOfFailedCallsWithRetryAttempt: 1 });
  });

  it("does not retry an attempt that failed because of the abort, and rejects with the signal's reason", async () => {
    const r = new Retry('pg', { clock, waitDuration: 0, maxAttempts: 5 });
    let attempts = 0;
    const call = track(
      r.execute(
        (ctx) =>
          new Promise((_, reject) => {
            attempts++;
            ctx.signal.addEventListener('abort', () => reject(new Error('AbortError from the driver')), { once: true });
          }),
        { signal: caller.signal },
      ),
    );
    caller.abort('user cancelled');
    await clock.advance(0);
    expect(call.error).toBe('user cancelled');
    expect(attempts).toBe(1);
  });

  it('starts no attempt after an abort that comes as a wait ends', async () => {
    const r = new Retry('pg', { clock, waitDuration: 100, maxAttempts: 3 });
    const { fn, starts } = scripted(clock, [{ reject: 'e' }]);
    // Set before the retry's own wait, so at t = 100 it fires first.
    clock.setTimeout(() => caller.abort('at 100'), 100);
    const call = track(r.execute(fn, { signal: caller.signal }));
    await clock.runAll();
    expect(call.error).toBe('at 100');
    expect(starts).toEqual([0]);
  });

  it('publishes the abort as the error that ended the call', async () => {
    const r = new Retry('pg', { clock, waitDuration: 100 });
    const events: unknown[] = [];
    r.on('*', (e) => events.push({ type: e.type, ...('error' in e ? { error: e.error } : {}) }));
    const { fn } = scripted(clock, [{ reject: 'e' }]);
    const call = track(r.execute(fn, { signal: caller.signal }));
    await clock.advance(50); // the first attempt has failed; the retry waits
    caller.abort('bye');
    await clock.advance(0);
    expect(call.error).toBe('bye');
    expect(events).toEqual([
      { type: 'retry', error: 'e' },
      { type: 'error', error: 'bye' },
    ]);
  });

  it('leaves no listener on a long-lived signal across many calls, however they end', async () => {
    const r = new Retry('pg', { clock, waitDuration: 10, maxAttempts: 2, retryOnResult: (v) => v === 'busy' });
    const signal = caller.signal;
    await r.execute(() => 'ok', { signal });
    const pending = [
      track(r.execute(scripted(clock, [{ reject: 'a' }, { value: 'b' }]).fn, { signal })),
      track(r.execute(scripted(clock, [{ reject: 'x' }]).fn, { signal })),
      track(r.execute(scripted(clock, [{ value: 'busy' }]).fn, { signal })),
      track(r.execute(scripted(clock, [{ throw: 'sync' }, { value: 'fine' }]).fn, { signal })),
    ];
    await clock.runAll();
    expect(pending.map((p) => p.settled)).toEqual([true, true, true, true]);
    expect(pending.map((p) => p.error ?? p.value)).toEqual(['b', 'x', 'busy', 'fine']);
  });
});

describe('Retry: one abort listener per shared signal (contract: docs/conventions.md)', () => {
  const retry = (config: RetryConfig): Retry => new Retry('pg', { clock, ...config });

  it('50 calls in flight on one caller signal add one listener to it, and none is left after', async () => {
    const r = retry({ maxAttempts: 3, waitDuration: 100 });
    const caller = new AbortController();
    const calls = Array.from({ length: 50 }, (_, i) =>
      track(r.execute(scripted(clock, i % 2 === 0 ? [{ hang: true }] : [{ reject: 'e' }, { hang: true }]).fn, { signal: caller.signal })),
    );
    await clock.advance(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    await clock.advance(100); // the odd ones are in their second attempt
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    caller.abort(new Error('shutdown'));
    await clock.advance(0);
    expect(calls.every((c) => c.settled && (c.error as Error).message === 'shutdown')).toBe(true);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('none is left on a long-lived signal once the calls have ended', async () => {
    const r = retry({ maxAttempts: 2, waitDuration: 10 });
    const signal = new AbortController().signal;
    const calls = Array.from({ length: 20 }, (_, i) => track(r.execute(scripted(clock, [{ reject: 'e' }, { value: i }]).fn, { signal })));
    await clock.advance(0);
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    await clock.runAll();
    expect(calls.map((c) => c.value)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});
