import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { drain, initialState, isReserved, nextState, refresh, type RateLimiterState } from './state.js';

/**
 * A brute-force model of the limiter: every cycle has `limit` slots; a request of `permits` at
 * time `now` fills free slots from the current cycle onwards, one cycle after the other, and is
 * released at the start of the last cycle it needed (at once if that is the current one); it is
 * taken only if that wait is within its timeout. Nothing from an idle cycle carries over. A
 * request of more than `limit` permits (Resilience4j allows it) spans several cycles this way.
 */
class Model {
  readonly used = new Map<number, number>();
  constructor(
    readonly limit: number,
    readonly period: number,
    readonly origin: number,
  ) {}

  cycleOf(now: number): number {
    return Math.floor((now - this.origin) / this.period);
  }

  request(permits: number, timeout: number, now: number): { waitMs: number; reserved: boolean; cycles: Map<number, number> } {
    const current = this.cycleOf(now);
    const takes = new Map<number, number>();
    let need = permits;
    let cycle = current;
    for (;;) {
      const take = Math.min(this.limit - (this.used.get(cycle) ?? 0), need);
      if (take > 0) takes.set(cycle, take);
      need -= take;
      if (need === 0) break;
      cycle++;
    }
    const waitMs = cycle === current ? 0 : this.origin + cycle * this.period - now;
    const reserved = waitMs <= timeout;
    if (reserved) for (const [c, n] of takes) this.used.set(c, (this.used.get(c) ?? 0) + n);
    return { waitMs, reserved, cycles: takes };
  }

  drain(now: number): void {
    const current = this.cycleOf(now);
    const free = this.available(now);
    if (free > 0) this.used.set(current, (this.used.get(current) ?? 0) + free);
  }

  /** Permissions of the current cycle not yet used, minus everything reserved in later ones. */
  available(now: number): number {
    const current = this.cycleOf(now);
    let reserved = 0;
    for (const [c, n] of this.used) if (c >= current) reserved += n;
    return this.limit - reserved;
  }
}

const op = (limit: number, period: number) =>
  fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record({
        kind: fc.constant('take' as const),
        dt: fc.integer({ min: 0, max: 2 * period }),
        permits: fc.integer({ min: 1, max: 3 * limit }),
        timeout: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 4 * period })),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('drain' as const), dt: fc.integer({ min: 0, max: period }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('idle' as const), dt: fc.integer({ min: 0, max: 6 * period }) }) },
  );

const scenario = fc
  .record({ limit: fc.integer({ min: 1, max: 5 }), period: fc.integer({ min: 1, max: 40 }), origin: fc.integer({ min: 0, max: 1000 }) })
  .chain((c) =>
    fc.record({
      limit: fc.constant(c.limit),
      period: fc.constant(c.period),
      origin: fc.constant(c.origin),
      ops: fc.array(op(c.limit, c.period), { maxLength: 60 }),
    }),
  );

describe('nextState against a brute-force model of every cycle', () => {
  it('waits, reservations and available permissions agree with the model, weights above the limit included; no cycle gives more than the limit', () => {
    let heavyReserved = 0;
    fc.assert(
      fc.property(scenario, ({ limit, period, origin, ops }) => {
        const model = new Model(limit, period, origin);
        let state: RateLimiterState = initialState(limit, period, origin);
        let now = origin;
        /** Per cycle: the permits of the requests released in it, when each request is single. */
        const releasedSingles = new Map<number, number>();
        for (const o of ops) {
          now += o.dt;
          if (o.kind === 'drain') {
            state = drain(state, now);
            model.drain(now);
          } else if (o.kind === 'take') {
            const expected = model.request(o.permits, o.timeout, now);
            state = nextState(state, o.permits, o.timeout, now);
            expect(state.waitMs).toBe(expected.waitMs);
            expect(isReserved(state, o.timeout)).toBe(expected.reserved);
            if (expected.reserved) {
              // The release is exactly the start of the cycle that covers the permits.
              const releasedAt = now + state.waitMs;
              const cycle = model.cycleOf(releasedAt);
              expect(state.waitMs === 0 || releasedAt === origin + cycle * period).toBe(true);
              expect(cycle).toBe(Math.max(...expected.cycles.keys()));
              if (o.permits === 1) releasedSingles.set(cycle, (releasedSingles.get(cycle) ?? 0) + 1);
              if (o.permits > limit) {
                heavyReserved++;
                // A weight above the limit spans ceil-many cycles and waits at least to the next one.
                expect(expected.cycles.size).toBeGreaterThanOrEqual(Math.ceil(o.permits / limit));
                expect(state.waitMs).toBeGreaterThan(0);
              }
            }
          }
          const seen = refresh(state, now);
          expect(seen.permissions).toBe(model.available(now));
          expect(seen.cycle).toBe(model.cycleOf(now));
        }
        for (const n of model.used.values()) expect(n).toBeLessThanOrEqual(limit);
        for (const n of releasedSingles.values()) expect(n).toBeLessThanOrEqual(limit);
      }),
      { numRuns: 400 },
    );
    // The runs did exercise reservations across cycles.
    expect(heavyReserved).toBeGreaterThan(50);
  });

  it('single-permit calls: never more than limitForPeriod released in one cycle, whatever the traffic', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 30 }),
        fc.array(fc.record({ dt: fc.integer({ min: 0, max: 15 }), timeout: fc.integer({ min: 0, max: 120 }) }), { maxLength: 120 }),
        (limit, period, calls) => {
          let state = initialState(limit, period, 0);
          let now = 0;
          const perCycle = new Map<number, number>();
          for (const c of calls) {
            now += c.dt;
            state = nextState(state, 1, c.timeout, now);
            if (!isReserved(state, c.timeout)) continue;
            const cycle = Math.floor((now + state.waitMs) / period);
            perCycle.set(cycle, (perCycle.get(cycle) ?? 0) + 1);
          }
          for (const n of perCycle.values()) expect(n).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 300 },
    );
  });
});
