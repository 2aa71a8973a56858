import fc from 'fast-check';
import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';
import type { CircuitBreakerStateName } from './states.js';
import { BoomError, IgnoredError } from '../test/test-support.js';

type Op = { kind: 'call'; fail: boolean; ms: number } | { kind: 'advance'; ms: number };

interface Settings {
  type: 'COUNT_BASED' | 'TIME_BASED';
  size: number;
  minimum: number;
  failureRateThreshold: number;
  slowCallRateThreshold: number;
  permitted: number;
  wait: number;
  slowMs: number;
}

/**
 * The breaker as a reference model that keeps every call and recounts on each step: what
 * CLOSED, OPEN and HALF_OPEN should do for sequential calls (each recorded as soon as it starts).
 */
class Model {
  state: CircuitBreakerStateName = 'CLOSED';
  calls: { fail: boolean; slow: boolean; at: number }[] = [];
  deadline = 0;
  available = 0;
  notPermitted = 0;
  now = 0;

  constructor(readonly s: Settings) {}

  /** Whether the OPEN state kept the half-open window (a count window of `permitted`). */
  keptHalfOpen = false;

  window() {
    if (this.state === 'HALF_OPEN' || (this.state === 'OPEN' && this.keptHalfOpen)) return this.calls;
    if (this.s.type === 'COUNT_BASED') return this.calls.slice(-this.s.size);
    const second = Math.floor(this.now / 1000);
    return this.calls.filter((c) => Math.floor(c.at / 1000) > second - this.s.size);
  }

  minimum() {
    if (this.state === 'HALF_OPEN' || (this.state === 'OPEN' && this.keptHalfOpen)) return Math.min(this.s.minimum, this.s.permitted);
    return this.s.type === 'COUNT_BASED' ? Math.min(this.s.minimum, this.s.size) : this.s.minimum;
  }

  rates() {
    const w = this.window();
    if (w.length === 0 || w.length < this.minimum()) return { failureRate: -1, slowCallRate: -1 };
    return { failureRate: (w.filter((c) => c.fail).length * 100) / w.length, slowCallRate: (w.filter((c) => c.slow).length * 100) / w.length };
  }

  call(fail: boolean, ms: number): boolean {
    if (this.state === 'OPEN' && this.now > this.deadline) {
      this.state = 'HALF_OPEN';
      this.calls = [];
      this.available = this.s.permitted;
      this.notPermitted = 0;
    }
    if (this.state === 'OPEN' || (this.state === 'HALF_OPEN' && this.available === 0)) {
      this.notPermitted++;
      return false;
    }
    if (this.state === 'HALF_OPEN') this.available--;
    this.calls.push({ fail, slow: ms > this.s.slowMs, at: this.now });
    const { failureRate, slowCallRate } = this.rates();
    if (failureRate === -1) return true;
    const exceeded = failureRate >= this.s.failureRateThreshold || slowCallRate >= this.s.slowCallRateThreshold;
    if (exceeded) {
      // OPEN keeps the window that opened it.
      this.calls = this.window();
      this.keptHalfOpen = this.state === 'HALF_OPEN';
      this.state = 'OPEN';
      this.deadline = this.now + this.s.wait;
    } else if (this.state === 'HALF_OPEN') {
      this.state = 'CLOSED';
      this.calls = [];
      this.notPermitted = 0;
    }
    return true;
  }
}

const settings = fc.record<Settings>({
  type: fc.constantFrom('COUNT_BASED', 'TIME_BASED'),
  size: fc.integer({ min: 1, max: 8 }),
  minimum: fc.integer({ min: 1, max: 10 }),
  failureRateThreshold: fc.integer({ min: 1, max: 100 }),
  slowCallRateThreshold: fc.integer({ min: 1, max: 100 }),
  permitted: fc.integer({ min: 1, max: 4 }),
  wait: fc.integer({ min: 1, max: 5000 }),
  slowMs: fc.integer({ min: 1, max: 300 }),
});

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('call' as const), fail: fc.boolean(), ms: fc.integer({ min: 0, max: 600 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 6000 }) }) },
);

describe('CircuitBreaker against a reference model', () => {
  it('has the same state, permissions and metrics after any sequence of calls and clock moves', () => {
    fc.assert(
      fc.property(settings, fc.array(op, { maxLength: 80 }), (s, ops) => {
        const clock = new VirtualClock();
        const breaker = new CircuitBreaker('model', {
          slidingWindowType: s.type,
          slidingWindowSize: s.size,
          minimumNumberOfCalls: s.minimum,
          failureRateThreshold: s.failureRateThreshold,
          slowCallRateThreshold: s.slowCallRateThreshold,
          permittedNumberOfCallsInHalfOpenState: s.permitted,
          waitDurationInOpenState: s.wait,
          slowCallDurationThreshold: s.slowMs,
          clock,
        });
        const model = new Model(s);
        for (const o of ops) {
          if (o.kind === 'advance') {
            clock.set(clock.now() + o.ms);
            model.now += o.ms;
          } else {
            const permitted = breaker.tryAcquirePermission();
            expect(permitted).toBe(model.call(o.fail, o.ms));
            if (permitted) {
              if (o.fail) breaker.onError(o.ms, new BoomError());
              else breaker.onSuccess(o.ms);
            }
          }
          expect(breaker.state).toBe(model.state);
          const m = breaker.metrics;
          const w = model.window();
          expect(m.numberOfBufferedCalls).toBe(w.length);
          expect(m.numberOfFailedCalls).toBe(w.filter((c) => c.fail).length);
          expect(m.numberOfSlowCalls).toBe(w.filter((c) => c.slow).length);
          expect(m.numberOfNotPermittedCalls).toBe(model.notPermitted);
          const rates = model.rates();
          expect(m.failureRate).toBeCloseTo(rates.failureRate, 9);
          expect(m.slowCallRate).toBeCloseTo(rates.slowCallRate, 9);
          for (const rate of [m.failureRate, m.slowCallRate]) expect(rate === -1 || (rate >= 0 && rate <= 100)).toBe(true);
          for (const n of [m.numberOfSuccessfulCalls, m.numberOfSlowSuccessfulCalls, m.numberOfSlowFailedCalls]) expect(n).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('never has more half-open trial calls out than permitted, under any interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.constantFrom('success', 'failure', 'ignored', 'abort'), { minLength: 1, maxLength: 12 }),
        async (s, permitted, outcomes) => {
          const clock = new VirtualClock();
          const breaker = new CircuitBreaker('trial', {
            permittedNumberOfCallsInHalfOpenState: permitted,
            minimumNumberOfCalls: permitted,
            ignoreExceptions: [IgnoredError],
            clock,
          });
          breaker.transitionToOpenState();
          breaker.transitionToHalfOpenState();
          let epoch = 0;
          breaker.on('stateTransition', () => epoch++);
          const out = new Map<number, number>();
          let maxOut = 0;
          const calls = outcomes.map((outcome, i) => {
            const controller = new AbortController();
            return s.schedule(Promise.resolve(i)).then(() =>
              breaker
                .execute(
                  async (ctx) => {
                    const mine = epoch;
                    out.set(mine, (out.get(mine) ?? 0) + 1);
                    if (breaker.state === 'HALF_OPEN') maxOut = Math.max(maxOut, out.get(mine)!);
                    try {
                      await s.schedule(Promise.resolve());
                      if (outcome === 'abort') {
                        controller.abort(new Error('aborted'));
                        throw ctx.signal.reason;
                      }
                      if (outcome === 'failure') throw new BoomError();
                      if (outcome === 'ignored') throw new IgnoredError();
                      return outcome;
                    } finally {
                      out.set(mine, out.get(mine)! - 1);
                    }
                  },
                  { signal: controller.signal },
                )
                .catch(() => 'rejected'),
            );
          });
          await s.waitAll();
          await Promise.all(calls);
          expect(maxOut).toBeLessThanOrEqual(permitted);
          expect(clock.pendingTimers).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });
});
