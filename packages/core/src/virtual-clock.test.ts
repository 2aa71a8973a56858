import { describe, expect, it } from 'vitest';
import { VirtualClock } from './virtual-clock.js';

/** A timer that logs `label@now` when it fires. */
function logTimer(clock: VirtualClock, log: string[], label: string, ms: number) {
  return clock.setTimeout(() => log.push(`${label}@${clock.now()}`), ms);
}

describe('VirtualClock: time', () => {
  it('starts at 0', () => {
    expect(new VirtualClock().now()).toBe(0);
  });

  it('starts at the start given, negative or fractional included', () => {
    expect(new VirtualClock(1_700_000_000_000).now()).toBe(1_700_000_000_000);
    expect(new VirtualClock(-5.5).now()).toBe(-5.5);
  });

  it('refuses a start that is not a finite number', () => {
    expect(() => new VirtualClock(Number.NaN)).toThrow(new RangeError('VirtualClock: start must be a finite number, got NaN'));
    expect(() => new VirtualClock(Infinity)).toThrow(RangeError);
  });

  it('gives wall time from wallStart (default 2000-01-01T00:00:00Z), moving exactly as now() does', async () => {
    const clock = new VirtualClock(250);
    expect(clock.wallNow()).toBe(Date.UTC(2000, 0, 1));
    await clock.advance(1500);
    expect(new Date(clock.wallNow()).toISOString()).toBe('2000-01-01T00:00:01.500Z');
    const dated = new VirtualClock(0, { wallStart: Date.UTC(2026, 11, 2, 9, 30) });
    dated.set(60_000);
    expect(new Date(dated.wallNow()).toISOString()).toBe('2026-12-02T09:31:00.000Z');
  });

  it('refuses a wallStart that is not a finite number', () => {
    expect(() => new VirtualClock(0, { wallStart: '2026' as never })).toThrow(
      new TypeError("VirtualClock: wallStart must be a number of milliseconds since the Unix epoch, got '2026'"),
    );
    expect(() => new VirtualClock(0, { wallStart: Number.NaN })).toThrow(new RangeError('VirtualClock: wallStart must be a finite number, got NaN'));
  });

  it('moves only when told to', async () => {
    const clock = new VirtualClock(10);
    await Promise.resolve();
    expect(clock.now()).toBe(10);
    await clock.advance(5);
    expect(clock.now()).toBe(15);
    await clock.advanceTo(40);
    expect(clock.now()).toBe(40);
    clock.set(41.5);
    expect(clock.now()).toBe(41.5);
  });

  it('advance(0) and advanceTo(now) are allowed and keep the time', async () => {
    const clock = new VirtualClock(7);
    await clock.advance(0);
    await clock.advanceTo(7);
    clock.set(7);
    expect(clock.now()).toBe(7);
  });

  it('refuses to go backwards or to a time that is not finite', async () => {
    const clock = new VirtualClock(10);
    expect(() => clock.set(9)).toThrow(new RangeError('VirtualClock: set(9) would move time backwards from 10'));
    expect(() => clock.set(Number.NaN)).toThrow(RangeError);
    await expect(clock.advanceTo(5)).rejects.toThrow(new RangeError('VirtualClock: advanceTo(5) would move time backwards from 10'));
    await expect(clock.advanceTo(Infinity)).rejects.toThrow(RangeError);
    await expect(clock.advance(-1)).rejects.toThrow(new RangeError('VirtualClock: advance(ms) needs a finite ms >= 0, got -1'));
    await expect(clock.advance(Number.NaN)).rejects.toThrow(RangeError);
    await expect(clock.advance(Infinity)).rejects.toThrow(RangeError);
    expect(clock.now()).toBe(10);
  });
});

describe('VirtualClock: timers', () => {
  it('fires due timers in time order, ties in the order they were set, each at its own time', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    logTimer(clock, log, 'c', 30);
    logTimer(clock, log, 'a1', 10);
    logTimer(clock, log, 'late', 50);
    logTimer(clock, log, 'a2', 10);
    logTimer(clock, log, 'b', 20);
    logTimer(clock, log, 'a3', 10);
    await clock.advance(30);
    expect(log).toEqual(['a1@10', 'a2@10', 'a3@10', 'b@20', 'c@30']);
    expect(clock.now()).toBe(30);
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(20);
    expect(log.at(-1)).toBe('late@50');
    expect(clock.pendingTimers).toBe(0);
  });

  it('a timer is due at exactly its time: advance(99) leaves a 100 ms timer, advance(1) more fires it', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    logTimer(clock, log, 't', 100);
    await clock.advance(99);
    expect(log).toEqual([]);
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(1);
    expect(log).toEqual(['t@100']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('measures the delay from the time the timer is set', async () => {
    const clock = new VirtualClock(1000);
    await clock.advance(250);
    const log: string[] = [];
    logTimer(clock, log, 't', 100);
    expect(clock.nextTimerAt).toBe(1350);
    await clock.advanceTo(1350);
    expect(log).toEqual(['t@1350']);
  });

  it('fractional delays are kept', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    logTimer(clock, log, 't', 0.5);
    await clock.advance(0.25);
    expect(log).toEqual([]);
    await clock.advance(0.25);
    expect(log).toEqual(['t@0.5']);
  });

  it('a delay of 0, a negative one or NaN is due now', async () => {
    const clock = new VirtualClock(5);
    const log: string[] = [];
    logTimer(clock, log, 'zero', 0);
    logTimer(clock, log, 'negative', -20);
    logTimer(clock, log, 'nan', Number.NaN);
    expect(clock.nextTimerAt).toBe(5);
    await clock.advance(0);
    expect(log).toEqual(['zero@5', 'negative@5', 'nan@5']);
  });

  it('an Infinity delay is never due: it stays pending until cleared', async () => {
    const clock = new VirtualClock();
    let fired = false;
    const t = clock.setTimeout(() => (fired = true), Infinity);
    await clock.advance(1e12);
    clock.set(2e12);
    await clock.runAll();
    expect(fired).toBe(false);
    expect(clock.pendingTimers).toBe(1);
    expect(clock.nextTimerAt).toBe(Infinity);
    clock.clearTimeout(t);
    expect(clock.pendingTimers).toBe(0);
  });

  it('timers set by a timer callback fire in the same advance when due within the span', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    clock.setTimeout(() => {
      log.push(`outer@${clock.now()}`);
      logTimer(clock, log, 'inner0', 0);
      logTimer(clock, log, 'inner40', 40);
      logTimer(clock, log, 'inner41', 41);
    }, 10);
    logTimer(clock, log, 'other', 30);
    await clock.advance(50);
    expect(log).toEqual(['outer@10', 'inner0@10', 'other@30', 'inner40@50']);
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(1);
    expect(log.at(-1)).toBe('inner41@51');
  });

  it('lets promise callbacks settle between timers, so a then() can set a timer that fires in order', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    let resolve!: (v: string) => void;
    const p = new Promise<string>((r) => (resolve = r));
    void p.then((v) => {
      log.push(`then(${v})@${clock.now()}`);
      logTimer(clock, log, 'fromThen', 5);
    });
    clock.setTimeout(() => {
      log.push(`a@${clock.now()}`);
      resolve('x');
    }, 10);
    logTimer(clock, log, 'b', 12);
    logTimer(clock, log, 'c', 20);
    await clock.advance(20);
    expect(log).toEqual(['a@10', 'then(x)@10', 'b@12', 'fromThen@15', 'c@20']);
  });

  it('a long chain of awaits started by a timer completes before the next timer fires', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    clock.setTimeout(() => {
      void (async () => {
        for (let i = 0; i < 50; i++) await Promise.resolve();
        log.push(`chain@${clock.now()}`);
      })();
    }, 10);
    logTimer(clock, log, 'next', 11);
    await clock.advance(11);
    expect(log).toEqual(['chain@10', 'next@11']);
  });

  it('lets promise callbacks settle before the first timer and at the end', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    // Before: a then() already queued sets a timer due now; the advance sees it.
    void Promise.resolve().then(() => logTimer(clock, log, 'queued', 0));
    // After: the work a timer starts is done once advance() resolves.
    clock.setTimeout(() => void Promise.resolve().then(() => log.push('after-last')), 3);
    await clock.advance(3);
    expect(log).toEqual(['queued@0', 'after-last']);
  });

  it('lets a timer callback clear a later timer due at the same time', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    const victim = { handle: undefined as unknown as ReturnType<VirtualClock['setTimeout']> };
    clock.setTimeout(() => {
      log.push('first');
      clock.clearTimeout(victim.handle);
    }, 10);
    victim.handle = logTimer(clock, log, 'second', 10);
    await clock.advance(10);
    expect(log).toEqual(['first']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a timer callback that throws rejects the advance; time stays at that timer and later ones stay pending', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    clock.setTimeout(() => {
      throw new Error('boom');
    }, 10);
    logTimer(clock, log, 'later', 20);
    await expect(clock.advance(30)).rejects.toThrow('boom');
    expect(clock.now()).toBe(10);
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(20);
    expect(log).toEqual(['later@20']);
  });
});

describe('VirtualClock: clearTimeout', () => {
  it('a cleared timer never fires and no longer counts', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    const a = logTimer(clock, log, 'a', 10);
    logTimer(clock, log, 'b', 20);
    expect(clock.pendingTimers).toBe(2);
    clock.clearTimeout(a);
    expect(clock.pendingTimers).toBe(1);
    expect(clock.nextTimerAt).toBe(20);
    await clock.advance(100);
    expect(log).toEqual(['b@20']);
  });

  it('is idempotent', () => {
    const clock = new VirtualClock();
    const a = clock.setTimeout(() => {}, 10);
    clock.setTimeout(() => {}, 20);
    clock.clearTimeout(a);
    clock.clearTimeout(a);
    expect(clock.pendingTimers).toBe(1);
  });

  it('ignores a handle that already fired, and leaves the other timers alone', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    const a = logTimer(clock, log, 'a', 10);
    logTimer(clock, log, 'b', 20);
    logTimer(clock, log, 'c', 30);
    await clock.advance(10);
    clock.clearTimeout(a);
    expect(clock.pendingTimers).toBe(2);
    await clock.advance(20);
    expect(log).toEqual(['a@10', 'b@20', 'c@30']);
  });

  it('ignores foreign handles: another clock’s, a Node timer, plain values', async () => {
    const clock = new VirtualClock();
    const other = new VirtualClock();
    const log: string[] = [];
    logTimer(clock, log, 'mine', 10);
    const theirs = other.setTimeout(() => log.push('theirs'), 10);
    const node = setTimeout(() => {}, 1_000_000);
    for (const foreign of [theirs, node, {}, { index: 0 }, 0, null, undefined]) {
      clock.clearTimeout(foreign as never);
    }
    clearTimeout(node);
    expect(clock.pendingTimers).toBe(1);
    expect(other.pendingTimers).toBe(1);
    await clock.advance(10);
    await other.advance(10);
    expect(log).toEqual(['mine@10', 'theirs']);
  });

  it('clears timers from the middle of a large set without disturbing the order of the rest', async () => {
    const clock = new VirtualClock();
    const fired: number[] = [];
    const handles = Array.from({ length: 40 }, (_, i) => clock.setTimeout(() => fired.push(i), (i * 7) % 13));
    for (let i = 0; i < 40; i += 3) clock.clearTimeout(handles[i]!);
    await clock.advance(13);
    const kept = Array.from({ length: 40 }, (_, i) => i).filter((i) => i % 3 !== 0);
    const expected = [...kept].sort((x, y) => ((x * 7) % 13) - ((y * 7) % 13) || x - y);
    expect(fired).toEqual(expected);
  });
});

describe('VirtualClock: pendingTimers and nextTimerAt', () => {
  it('count the timers neither fired nor cleared, and say when the next one is due', async () => {
    const clock = new VirtualClock();
    expect(clock.pendingTimers).toBe(0);
    expect(clock.nextTimerAt).toBeUndefined();
    clock.setTimeout(() => {}, 30);
    const b = clock.setTimeout(() => {}, 10);
    clock.setTimeout(() => {}, 20);
    expect(clock.pendingTimers).toBe(3);
    expect(clock.nextTimerAt).toBe(10);
    clock.clearTimeout(b);
    expect(clock.nextTimerAt).toBe(20);
    await clock.advance(20);
    expect(clock.pendingTimers).toBe(1);
    expect(clock.nextTimerAt).toBe(30);
    await clock.advance(10);
    expect(clock.pendingTimers).toBe(0);
    expect(clock.nextTimerAt).toBeUndefined();
  });
});

describe('VirtualClock: set()', () => {
  it('is synchronous and fires the due timers synchronously, in order, each at its own time', () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    logTimer(clock, log, 'b', 20);
    logTimer(clock, log, 'a', 10);
    logTimer(clock, log, 'c', 31);
    const result = clock.set(30);
    expect(result).toBeUndefined();
    expect(log).toEqual(['a@10', 'b@20']);
    expect(clock.now()).toBe(30);
    expect(clock.pendingTimers).toBe(1);
  });

  it('fires timers set by fired timers when due by then', () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    clock.setTimeout(() => {
      logTimer(clock, log, 'child', 5);
      logTimer(clock, log, 'grandchild-too-late', 50);
    }, 10);
    clock.set(15);
    expect(log).toEqual(['child@15']);
    expect(clock.pendingTimers).toBe(1);
    clock.set(60);
    expect(log.at(-1)).toBe('grandchild-too-late@60');
  });

  it('does not let promise callbacks run between the timers it fires', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    clock.setTimeout(() => {
      log.push('a');
      void Promise.resolve().then(() => log.push('then-of-a'));
    }, 10);
    clock.setTimeout(() => log.push('b'), 20);
    clock.set(20);
    expect(log).toEqual(['a', 'b']);
    await Promise.resolve();
    expect(log).toEqual(['a', 'b', 'then-of-a']);
  });

  it('set(now()) fires the timers due now', () => {
    const clock = new VirtualClock(3);
    const log: string[] = [];
    logTimer(clock, log, 't', 0);
    clock.set(3);
    expect(log).toEqual(['t@3']);
  });
});

describe('VirtualClock: runaway timers and set() from a timer', () => {
  it('advance throws, with a message, once a timer has set itself again 10 000 times at one instant', async () => {
    const clock = new VirtualClock();
    const again = (): void => void clock.setTimeout(again, 0);
    clock.setTimeout(again, 3);
    await expect(clock.advance(10)).rejects.toThrow(
      new Error('VirtualClock: 10000 timers fired at 3 ms and more are due (a timer that sets itself again with 0 ms?)'),
    );
    expect(clock.now()).toBe(3);
  });

  it('advance counts per instant: a 1 ms timer that re-arms itself 20 000 times is fine', async () => {
    const clock = new VirtualClock();
    let fired = 0;
    const tick = (): void => {
      if (++fired < 20_000) clock.setTimeout(tick, 1);
    };
    clock.setTimeout(tick, 1);
    await clock.advance(20_000, 10_000);
    expect(fired).toBe(20_000);
  });

  it('set throws too rather than spin', () => {
    const clock = new VirtualClock();
    const again = (): void => void clock.setTimeout(again, 0);
    clock.setTimeout(again, 1);
    expect(() => clock.set(5, 100)).toThrow('VirtualClock: set(5) fired 100 timers and more are due');
  });

  it('a timer that calls set() during an advance moves time on; the advance never takes it back', async () => {
    const clock = new VirtualClock();
    const seen: number[] = [];
    clock.setTimeout(() => clock.set(50), 5);
    clock.setTimeout(() => seen.push(clock.now()), 7);
    await clock.advance(10);
    expect(clock.now()).toBe(50);
    expect(seen).toEqual([7]); // set() fires the timers due by then, each at its own time
  });

  it('refuses a start or a time that is not a number with a message naming it', () => {
    expect(() => new VirtualClock('5' as unknown as number)).toThrow(new TypeError("VirtualClock: start must be a number of milliseconds, got '5'"));
    expect(() => new VirtualClock({} as unknown as number)).toThrow(new TypeError('VirtualClock: start must be a number of milliseconds, got an object'));
    expect(() => new VirtualClock().set('10' as unknown as number)).toThrow(new RangeError("VirtualClock: set(time) needs a finite number, got '10'"));
  });
});

describe('VirtualClock: runAll()', () => {
  it('runs every timer, those they set included, and ends at the last one', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    logTimer(clock, log, 'a', 100);
    clock.setTimeout(() => {
      log.push(`b@${clock.now()}`);
      clock.setTimeout(() => {
        log.push(`c@${clock.now()}`);
        void Promise.resolve().then(() => logTimer(clock, log, 'd', 1000));
      }, 500);
    }, 50);
    await clock.runAll();
    expect(log).toEqual(['b@50', 'a@100', 'c@550', 'd@1550']);
    expect(clock.now()).toBe(1550);
    expect(clock.pendingTimers).toBe(0);
  });

  it('with no timer it does nothing', async () => {
    const clock = new VirtualClock(4);
    await clock.runAll();
    expect(clock.now()).toBe(4);
  });

  it('counts timers against its limit, several due at the same time included', async () => {
    const clock = new VirtualClock();
    let fired = 0;
    for (let i = 0; i < 5; i++) clock.setTimeout(() => fired++, 10);
    await expect(clock.runAll(3)).rejects.toThrow(new Error('VirtualClock: runAll fired 3 timers and more are pending'));
    expect(fired).toBe(3);
    await clock.runAll(2);
    expect(fired).toBe(5);
  });

  it('stops a timer that keeps setting itself, even with a zero delay', async () => {
    const clock = new VirtualClock();
    let ticks = 0;
    let handle: ReturnType<VirtualClock['setTimeout']>;
    const tick = (): void => {
      ticks++;
      handle = clock.setTimeout(tick, 0);
    };
    handle = clock.setTimeout(tick, 0);
    await expect(clock.runAll(100)).rejects.toThrow('runAll fired 100 timers');
    expect(ticks).toBe(100);
    clock.clearTimeout(handle);
    expect(clock.pendingTimers).toBe(0);
  });
});
