import { VirtualClock } from '@breakwater/core';
import { track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { Hedge, HEDGE_EVENT_TYPES, RetryBudget } from './index.js';
import { manualAttempts } from '../test/hedge-support.js';

/** Where a VirtualClock's wall time (an event's `time`) starts. */
const WALL = VirtualClock.DEFAULT_WALL_START;

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

function emitted(): [string, string][] {
  return warnings.mock.calls.map(([message, options]) => [String(message), (options as { type: string }).type]);
}

describe('Hedge: events (contract: docs/hedging.md)', () => {
  it('publishes hedge, hedgeRefused, success and error, exactly, to their listeners and to *', async () => {
    const budget = new RetryBudget({ ratio: 0, minRetriesPerSecond: 1, ttl: '1s', clock });
    const hedge = new Hedge('search', { clock, delay: 100, maxHedgedAttempts: 2, budget });
    const all: unknown[] = [];
    hedge.on('*', (e) => all.push(e));
    const { fn, attempts } = manualAttempts(clock);
    const first = track(hedge.execute(fn));
    await clock.advance(200);
    attempts[1]!.resolve('b');
    attempts[0]!.resolve('a');
    await clock.advance(0);
    expect(first.value).toBe('b');
    await clock.advance(1000); // the budget's window forgets the first call's hedge
    const second = track(hedge.execute(fn));
    attempts[2]!.reject('x');
    await clock.advance(0);
    attempts[3]!.reject('y');
    await clock.advance(0);
    expect(second.error).toBe('x');
    expect(all).toEqual([
      { type: 'hedge', name: 'search', at: 100, time: WALL + 100, attempt: 2, delayMs: 100, reason: 'delay' },
      { type: 'hedgeRefused', name: 'search', at: 200, time: WALL + 200, attempt: 3 },
      { type: 'success', name: 'search', at: 200, time: WALL + 200, attempts: 2, winner: 2 },
      { type: 'hedge', name: 'search', at: 1200, time: WALL + 1200, attempt: 2, delayMs: 0, reason: 'failure' },
      { type: 'hedgeRefused', name: 'search', at: 1200, time: WALL + 1200, attempt: 3 },
      { type: 'error', name: 'search', at: 1200, time: WALL + 1200, attempts: 2, error: 'x' },
    ]);
    expect(hedge.metrics).toEqual({
      numberOfSuccessfulCalls: 1,
      numberOfFailedCalls: 1,
      numberOfHedgedAttempts: 2,
      numberOfHedgesRefusedByBudget: 2,
      winsByAttempt: [1, 1, 0],
    });
  });

  it('calls onHedging as each hedged attempt starts, before the attempt', async () => {
    const seen: unknown[] = [];
    const { fn, attempts } = manualAttempts(clock);
    const hedge = new Hedge('search', {
      clock,
      delay: 50,
      maxHedgedAttempts: 2,
      onHedging: (e) => seen.push([e.attempt, e.delayMs, attempts.length, clock.now()]),
    });
    const call = track(hedge.execute(fn));
    await clock.advance(100);
    expect(seen).toEqual([
      [2, 50, 1, 50],
      [3, 50, 2, 100],
    ]);
    for (const a of attempts) a.resolve('ok');
    await clock.advance(0);
    expect(call.value).toBe('ok');
  });

  it('refuses an unknown event type with a did-you-mean, and unsubscribes', () => {
    const hedge = new Hedge('search', { clock });
    expect(() => hedge.on('hedged' as never, () => {})).toThrow("unknown event type 'hedged' (did you mean 'hedge'?)");
    const off = hedge.on('success', () => {});
    off();
    off();
    expect(HEDGE_EVENT_TYPES).toEqual(['hedge', 'hedgeRefused', 'success', 'error']);
  });
});

describe('Hedge: user callbacks that throw are contained (contract: docs/conventions.md)', () => {
  it('a shouldHandle that throws: reported once, and the outcome is not handled (the caller gets it)', async () => {
    const shouldHandle = (): boolean => {
      throw new Error('predicate bug');
    };
    const hedge = new Hedge('search', { clock, delay: 0, shouldHandle });
    const { fn, attempts } = manualAttempts(clock);
    const call = track(hedge.execute(fn));
    attempts[0]!.reject('down');
    attempts[1]!.resolve('late');
    await clock.advance(0);
    expect(call.error).toBe('down');
    expect(attempts[1]!.ctx.signal.aborted).toBe(true);
    const again = track(hedge.execute(fn));
    attempts[2]!.resolve('ok');
    attempts[3]!.resolve('ok');
    await clock.advance(0);
    expect(again.value).toBe('ok');
    expect(emitted()).toHaveLength(1);
    const [message, type] = emitted()[0]!;
    expect(type).toBe('BreakwaterCallbackWarning');
    expect(message).toContain("Hedge 'search': shouldHandle threw; the outcome is not handled");
    expect(message).toContain('predicate bug');
  });

  it('an onHedging that throws: reported once, and the hedged attempt starts as if it had returned', async () => {
    const hedge = new Hedge('search', {
      clock,
      delay: 10,
      onHedging: () => {
        throw new Error('log bug');
      },
    });
    const { fn, attempts } = manualAttempts(clock);
    const call = track(hedge.execute(fn));
    await clock.advance(10);
    expect(attempts).toHaveLength(2);
    attempts[1]!.resolve('hedged');
    attempts[0]!.resolve('primary');
    await clock.advance(0);
    expect(call.value).toBe('hedged');
    expect(emitted()).toHaveLength(1);
    expect(emitted()[0]![0]).toContain("Hedge 'search': onHedging threw; the hedged attempt starts as if it had returned");
  });

  it('a listener that throws changes nothing', async () => {
    const hedge = new Hedge('search', { clock, delay: 0 });
    hedge.on('hedge', () => {
      throw new Error('listener bug');
    });
    const { fn, attempts } = manualAttempts(clock);
    const call = track(hedge.execute(fn));
    expect(attempts).toHaveLength(2);
    attempts[0]!.resolve(1);
    attempts[1]!.resolve(2);
    await clock.advance(0);
    expect(call.value).toBe(1);
    expect(emitted().map(([, type]) => type)).toEqual(['BreakwaterListenerWarning']);
  });

  it('an onHedging that aborts the caller: the hedged attempt does not start', async () => {
    const caller = new AbortController();
    const hedge = new Hedge('search', { clock, delay: 10, onHedging: () => caller.abort('enough') });
    const { fn, attempts } = manualAttempts(clock);
    const call = track(hedge.execute(fn, { signal: caller.signal }));
    await clock.advance(10);
    expect(call.error).toBe('enough');
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.ctx.signal.reason).toBe('enough');
    expect(hedge.metrics.numberOfHedgedAttempts).toBe(1); // counted as it was about to start
  });
});
