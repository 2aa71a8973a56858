import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { EventPublisher } from './events.js';
import { VirtualClock } from './virtual-clock.js';
import { systemClock, type Clock } from './clock.js';

/** Where the suite's VirtualClock(1000) starts its wall time (an event's `time`): WALL at `at` = 1000. */
const WALL = VirtualClock.DEFAULT_WALL_START;

type Events = {
  success: { elapsed: number };
  error: { error: unknown; elapsed: number };
  reset: Record<never, never>;
};

let clock: VirtualClock;
let events: EventPublisher<Events>;
let warn: MockInstance<typeof process.emitWarning>;

beforeEach(() => {
  clock = new VirtualClock(1000);
  events = new EventPublisher<Events>('pg', clock, "CircuitBreaker 'pg'");
  warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
});

afterEach(() => {
  warn.mockRestore();
  expect(clock.pendingTimers).toBe(0);
});

describe('EventPublisher: events', () => {
  it('builds { type, name, at: clock.now(), time: clock.wallNow(), ...fields }', async () => {
    const seen: unknown[] = [];
    events.on('success', (e) => seen.push(e));
    events.emit('success', { elapsed: 12 });
    await clock.advance(250);
    events.emit('success', { elapsed: 7 });
    expect(seen).toEqual([
      { type: 'success', name: 'pg', at: 1000, time: WALL, elapsed: 12 },
      { type: 'success', name: 'pg', at: 1250, time: WALL + 250, elapsed: 7 },
    ]);
  });

  it('carries the wall-clock time as time: new Date(e.time) is when it happened, not 1970 (issue 18.15)', async () => {
    const wallClock = new VirtualClock(5000, { wallStart: Date.UTC(2026, 11, 2, 9, 30) });
    const publisher = new EventPublisher<Events>('pg', wallClock);
    const seen: { at: number; time: number }[] = [];
    publisher.on('success', (e) => seen.push(e));
    await wallClock.advance(1500);
    publisher.emit('success', { elapsed: 3 });
    expect(seen[0]!.at).toBe(6500);
    expect(new Date(seen[0]!.time).toISOString()).toBe('2026-12-02T09:30:01.500Z');
  });

  it('reads Date.now() for time on systemClock, and on a clock of your own without wallNow', () => {
    const custom: Clock = { now: () => 42, setTimeout: () => ({}), clearTimeout: () => {} };
    for (const source of [systemClock, custom]) {
      const publisher = new EventPublisher<Events>('pg', source);
      const seen: { at: number; time: number }[] = [];
      publisher.on('success', (e) => seen.push(e));
      const before = Date.now();
      publisher.emit('success', { elapsed: 1 });
      const after = Date.now();
      expect(seen[0]!.time).toBeGreaterThanOrEqual(before);
      expect(seen[0]!.time).toBeLessThanOrEqual(after);
    }
  });

  it('gives a plain object, with no fields beyond the event’s', () => {
    let event: unknown;
    events.on('reset', (e) => (event = e));
    events.emit('reset', {});
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
    expect(Object.keys(event as object)).toEqual(['type', 'name', 'at', 'time']);
  });

  it('hands the listeners of a type only that type’s events', () => {
    const seen: string[] = [];
    events.on('success', (e) => seen.push(`success ${e.elapsed}`));
    events.on('error', (e) => seen.push(`error ${String(e.error)}`));
    events.emit('error', { error: 'x', elapsed: 1 });
    events.emit('success', { elapsed: 2 });
    expect(seen).toEqual(['error x', 'success 2']);
  });

  it("calls the listeners of the type first, then those of '*', each in the order subscribed", () => {
    const order: string[] = [];
    events.on('*', () => order.push('any-1'));
    events.on('success', () => order.push('direct-1'));
    events.on('*', () => order.push('any-2'));
    events.on('success', () => order.push('direct-2'));
    events.emit('success', { elapsed: 1 });
    expect(order).toEqual(['direct-1', 'direct-2', 'any-1', 'any-2']);
  });

  it("'*' gets every type, and every listener gets the same event object", () => {
    const any: unknown[] = [];
    let direct: unknown;
    events.on('*', (e) => any.push(e));
    events.on('success', (e) => (direct = e));
    events.emit('success', { elapsed: 3 });
    events.emit('reset', {});
    expect(any.map((e) => (e as { type: string }).type)).toEqual(['success', 'reset']);
    expect(any[0]).toBe(direct);
  });

  it('calls the same function twice when subscribed twice, and unsubscribes one subscription at a time', () => {
    const calls: number[] = [];
    const listener = (e: { elapsed: number }) => calls.push(e.elapsed);
    const offFirst = events.on('success', listener);
    events.on('success', listener);
    events.emit('success', { elapsed: 1 });
    expect(calls).toEqual([1, 1]);
    offFirst();
    events.emit('success', { elapsed: 2 });
    expect(calls).toEqual([1, 1, 2]);
    expect(events.wants('success')).toBe(true);
  });

  it('refuses a listener that is not a function', () => {
    expect(() => events.on('success', 'log' as never)).toThrow(new TypeError("CircuitBreaker 'pg': on('success', listener) needs a function"));
    expect(events.wants('success')).toBe(false);
  });

  it("names itself by default as 'name' in messages", () => {
    const plain = new EventPublisher<Events>('db', clock);
    expect(plain.source).toBe("'db'");
    expect(() => plain.on('*', undefined as never)).toThrow("'db': on('*', listener) needs a function");
  });
});

describe('EventPublisher: known event types', () => {
  it('with its types, on() refuses an unknown type, suggesting the closest', () => {
    const typed = new EventPublisher<Events>('pg', clock, "CircuitBreaker 'pg'", ['success', 'error', 'reset']);
    expect(() => typed.on('sucess' as 'success', () => {})).toThrow(
      new TypeError("CircuitBreaker 'pg': unknown event type 'sucess' (did you mean 'success'?) (event types: success, error, reset, or '*')"),
    );
    expect(() => typed.on('nothing' as 'success', () => {})).toThrow(
      new TypeError("CircuitBreaker 'pg': unknown event type 'nothing' (event types: success, error, reset, or '*')"),
    );
    expect(() => typed.on('success', () => {})()).not.toThrow();
    expect(() => typed.on('*', () => {})()).not.toThrow();
  });

  it('without types, any type is taken (a registry of a user’s own kind)', () => {
    expect(() => events.on('sucess' as 'success', () => {})()).not.toThrow();
  });
});

describe('EventPublisher: unsubscribe and wants()', () => {
  it('wants() is false with no listener, true with one of the type or of *', () => {
    expect(events.wants('success')).toBe(false);
    const off = events.on('error', () => {});
    expect(events.wants('success')).toBe(false);
    expect(events.wants('error')).toBe(true);
    off();
    expect(events.wants('error')).toBe(false);
    const offAny = events.on('*', () => {});
    expect(events.wants('success')).toBe(true);
    expect(events.wants('reset')).toBe(true);
    offAny();
    expect(events.wants('success')).toBe(false);
  });

  it('with no listener, emit does not build the event (clock.now() is not read)', () => {
    const now = vi.spyOn(clock, 'now');
    events.emit('success', { elapsed: 1 });
    expect(now).not.toHaveBeenCalled();
    events.on('error', () => {});
    events.emit('success', { elapsed: 1 });
    expect(now).not.toHaveBeenCalled();
  });

  it('the returned function unsubscribes; calling it again does nothing', () => {
    const seen: number[] = [];
    const off = events.on('success', (e) => seen.push(e.elapsed));
    const other = events.on('success', (e) => seen.push(e.elapsed * 10));
    events.emit('success', { elapsed: 1 });
    off();
    off();
    events.emit('success', { elapsed: 2 });
    expect(seen).toEqual([1, 10, 20]);
    expect(events.wants('success')).toBe(true);
    other();
    expect(events.wants('success')).toBe(false);
  });

  it('a listener subscribed during an emit does not receive that event, only the next', () => {
    const seen: string[] = [];
    events.on('success', (e) => {
      seen.push(`first ${e.elapsed}`);
      if (e.elapsed === 1) {
        events.on('success', (e2) => seen.push(`late ${e2.elapsed}`));
        events.on('*', (e2) => seen.push(`late-any ${e2.type}`));
      }
    });
    events.emit('success', { elapsed: 1 });
    expect(seen).toEqual(['first 1']);
    events.emit('success', { elapsed: 2 });
    expect(seen).toEqual(['first 1', 'first 2', 'late 2', 'late-any success']);
  });

  it('a listener unsubscribed during an emit still receives that event (like EventEmitter), not the next', () => {
    const seen: string[] = [];
    let offSecond = (): void => {};
    events.on('success', (e) => {
      seen.push(`first ${e.elapsed}`);
      offSecond();
    });
    offSecond = events.on('success', (e) => seen.push(`second ${e.elapsed}`));
    events.emit('success', { elapsed: 1 });
    events.emit('success', { elapsed: 2 });
    expect(seen).toEqual(['first 1', 'second 1', 'first 2']);
  });
});

describe('EventPublisher: a listener that throws', () => {
  it('does not stop the other listeners nor escape emit', () => {
    const seen: string[] = [];
    events.on('success', () => {
      throw new Error('listener bug');
    });
    events.on('success', () => seen.push('direct'));
    events.on('*', () => {
      throw 'not an error';
    });
    events.on('*', () => seen.push('any'));
    expect(() => events.emit('success', { elapsed: 1 })).not.toThrow();
    expect(seen).toEqual(['direct', 'any']);
  });

  it('is reported once, through process.emitWarning, however often it throws', () => {
    const bad = () => {
      throw new Error('listener bug');
    };
    events.on('success', bad);
    events.emit('success', { elapsed: 1 });
    events.emit('success', { elapsed: 2 });
    events.emit('success', { elapsed: 3 });
    expect(warn).toHaveBeenCalledTimes(1);
    const [message, options] = warn.mock.calls[0]!;
    expect(message).toMatch(/^A listener of CircuitBreaker 'pg' threw; the call goes on as if it had not \(reported once per listener\): Error: listener bug/);
    expect(options).toEqual({ type: 'BreakwaterListenerWarning' });
  });

  it('each throwing listener is reported once', () => {
    events.on('success', () => {
      throw new Error('one');
    });
    events.on('*', () => {
      throw new Error('two');
    });
    events.emit('success', { elapsed: 1 });
    events.emit('success', { elapsed: 1 });
    expect(warn).toHaveBeenCalledTimes(2);
    expect(String(warn.mock.calls[0]![0])).toContain('Error: one');
    expect(String(warn.mock.calls[1]![0])).toContain('Error: two');
  });

  it('reports a thrown non-Error as text, even one that cannot be turned into a string', () => {
    events.on('success', () => {
      throw 'plain string';
    });
    events.on('success', () => {
      throw Object.create(null);
    });
    expect(() => events.emit('success', { elapsed: 1 })).not.toThrow();
    expect(warn).toHaveBeenCalledTimes(2);
    expect(String(warn.mock.calls[0]![0])).toMatch(/: plain string$/);
    expect(String(warn.mock.calls[1]![0])).toMatch(/: \[object Object\]$/);
  });

  it('does not report a listener that does not throw', () => {
    events.on('success', () => {});
    events.emit('success', { elapsed: 1 });
    expect(warn).not.toHaveBeenCalled();
  });
});
