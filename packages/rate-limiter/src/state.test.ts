import { describe, expect, it } from 'vitest';
import { drain, giveBack, initialState, isReserved, nextState, refresh } from './state.js';

// Resilience4j AtomicRateLimiterTest's arithmetic, on the pure function: a cycle of 250 ms,
// one permission per cycle, cycles counted from the limiter's origin (here t = 0).
const CYCLE = 250;
const look = (s: ReturnType<typeof initialState>, now: number) => {
  const r = refresh(s, now);
  return { available: r.permissions, waitMs: r.waitMs, cycle: r.cycle };
};

describe('nextState (Resilience4j AtomicRateLimiter arithmetic)', () => {
  it('starts with a full cycle of permissions', () => {
    const s = initialState(1, CYCLE, 0);
    expect(look(s, CYCLE - 10)).toEqual({ available: 1, waitMs: 0, cycle: 0 });
  });

  it('grants at once, then says how long to the next refill; a refused call reserves nothing', () => {
    let s = initialState(1, CYCLE, 0);
    s = nextState(s, 1, 0, CYCLE);
    expect(isReserved(s, 0)).toBe(true);
    expect(s.waitMs).toBe(0);
    expect(look(s, CYCLE)).toEqual({ available: 0, waitMs: CYCLE, cycle: 1 });
    s = nextState(s, 1, 0, CYCLE);
    expect(isReserved(s, 0)).toBe(false);
    expect(s.waitMs).toBe(CYCLE);
    expect(look(s, CYCLE)).toEqual({ available: 0, waitMs: CYCLE, cycle: 1 });
    s = nextState(s, 1, 0, 2 * CYCLE);
    expect(isReserved(s, 0)).toBe(true);
    expect(look(s, 2 * CYCLE)).toEqual({ available: 0, waitMs: CYCLE, cycle: 2 });
    s = nextState(s, 1, 0, 2 * CYCLE);
    expect(isReserved(s, 0)).toBe(false);
  });

  it('reserves a permission of the next cycle when the caller may wait that long', () => {
    let s = nextState(initialState(1, CYCLE, 0), 1, CYCLE, CYCLE);
    s = nextState(s, 1, CYCLE, CYCLE);
    expect(isReserved(s, CYCLE)).toBe(true);
    expect(s.waitMs).toBe(CYCLE);
    expect(look(s, CYCLE)).toEqual({ available: -1, waitMs: 2 * CYCLE, cycle: 1 });
    expect(look(s, 2 * CYCLE + 10)).toEqual({ available: 0, waitMs: CYCLE - 10, cycle: 2 });
  });

  it('refuses what would need more than the timeout, and refills to the limit only after idle cycles', () => {
    let s = nextState(initialState(1, CYCLE, 0), 1, CYCLE, CYCLE);
    s = nextState(s, 1, CYCLE, CYCLE);
    s = nextState(s, 1, CYCLE, CYCLE);
    expect(isReserved(s, CYCLE)).toBe(false);
    expect(s.waitMs).toBe(2 * CYCLE);
    expect(look(s, CYCLE)).toEqual({ available: -1, waitMs: 2 * CYCLE, cycle: 1 });
    // Five idle cycles later: one permission, not five (no burst carry-over).
    expect(look(s, 6 * CYCLE + 10)).toEqual({ available: 1, waitMs: 0, cycle: 6 });
  });

  it('computes the exact wait for a weight above the limit (several cycles)', () => {
    const s = nextState(initialState(1, CYCLE, 0), 3, 5 * CYCLE, CYCLE);
    expect(s.waitMs).toBe(2 * CYCLE);
    expect(isReserved(s, 5 * CYCLE)).toBe(true);
    expect(s.permissions).toBe(-2);
  });

  it('counts the wait to the very nanosecond (here ms) left in the cycle', () => {
    let s = nextState(initialState(1, CYCLE, 0), 1, 0, CYCLE);
    s = nextState(s, 1, 0, CYCLE);
    expect(look(s, 2 * CYCLE - 1)).toEqual({ available: 0, waitMs: 1, cycle: 1 });
  });

  it('hands out reservations up front while they fit in the timeout (reservePermissionsUpfront)', () => {
    // Resilience4j: a 10 ms cycle, a 12 ms timeout, calls 1 ns apart; here 10 000 units, 12 000, 1 apart.
    const period = 10_000;
    let s = initialState(3, period, 0);
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      s = nextState(s, 1, 12_000, period + i + 1);
      waits.push(isReserved(s, 12_000) ? s.waitMs : -1);
    }
    expect(waits).toEqual([0, 0, 0, period - 4, period - 5, period - 6, -1, -1, -1]);
  });

  it('applies a new limit from the next refill; the current cycle keeps what it has', () => {
    let s = nextState(initialState(1, CYCLE, 0), 1, CYCLE, CYCLE);
    s = nextState(s, 1, CYCLE, CYCLE); // reserved in cycle 2
    s = { ...s, limitForPeriod: 2 };
    expect(look(s, CYCLE)).toEqual({ available: -1, waitMs: CYCLE, cycle: 1 });
    expect(look(s, 2 * CYCLE + 10)).toEqual({ available: 1, waitMs: 0, cycle: 2 });
  });

  it('counts cycles from its own origin, not from a global epoch', () => {
    // A limiter created at t = 100 refills at 350, 600, ...
    let s = nextState(initialState(1, CYCLE, 100), 1, 0, 100);
    expect(look(s, 349)).toEqual({ available: 0, waitMs: 1, cycle: 0 });
    expect(look(s, 350)).toEqual({ available: 1, waitMs: 0, cycle: 1 });
    s = nextState(s, 1, 1000, 300);
    expect(s.waitMs).toBe(50);
  });

  it('fractions of a millisecond are kept', () => {
    const s = nextState(nextState(initialState(1, 0.5, 0), 1, 0, 0.1), 1, 1, 0.2);
    expect(s.waitMs).toBeCloseTo(0.3, 12);
  });
});

describe('drain and giveBack', () => {
  it('drain leaves min(available, 0)', () => {
    const full = initialState(5, CYCLE, 0);
    expect(drain(full, 10).permissions).toBe(0);
    const reserved = nextState(nextState(initialState(1, CYCLE, 0), 1, 0, 0), 1, CYCLE, 0);
    expect(reserved.permissions).toBe(-1);
    expect(drain(reserved, 10).permissions).toBe(-1);
  });

  it('drain takes the refill of the current cycle first (an old state is brought up to now)', () => {
    const used = nextState(initialState(3, CYCLE, 0), 3, 0, 0);
    expect(used.permissions).toBe(0);
    const drained = drain(used, 3 * CYCLE);
    expect(drained.cycle).toBe(3);
    expect(drained.permissions).toBe(0);
    expect(refresh(drained, 3 * CYCLE + 1).permissions).toBe(0);
    expect(refresh(drained, 4 * CYCLE).permissions).toBe(3);
  });

  it('giveBack returns reserved permits, never above the limit', () => {
    const s = nextState(nextState(initialState(2, CYCLE, 0), 2, 0, 0), 2, CYCLE, 0);
    expect(s.permissions).toBe(-2);
    expect(giveBack(s, 2, 100).permissions).toBe(0);
    expect(giveBack(initialState(2, CYCLE, 0), 2, 0).permissions).toBe(2);
  });
});
