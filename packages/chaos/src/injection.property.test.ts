import { VirtualClock } from '@breakwater/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FAKE, FAULT, makeChaos, realFn } from '../test/strategies.js';

// The decision against a model (contract: docs/chaos.md): for any sequence of calls, each with its
// own `enabled`, rate and draw, a call is injected iff enabled and draw < clamp(rate); a draw is
// taken iff enabled. Counts, the calls injected and the draws taken all match.

type Call = { readonly enabled: boolean; readonly rate: number; readonly draw: number };

const rate = fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0, 1, 0.3, -1, 2, Number.NaN), fc.double({ noNaN: false }));
const calls: fc.Arbitrary<Call[]> = fc.array(
  fc.record({ enabled: fc.boolean(), rate, draw: fc.oneof(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.constantFrom(0, 0.3, 0.999)) }),
  { maxLength: 60 },
);

const model = (call: Call): boolean => {
  if (!call.enabled) return false;
  const r = Number.isNaN(call.rate) ? 0 : Math.min(1, Math.max(0, call.rate));
  return call.draw < r;
};

describe('which calls are injected, against a model (fast-check)', () => {
  it.each(['fault', 'outcome', 'behavior', 'latency'] as const)('%s: the injected calls, their count and the draws taken are the model’s', async (strategy) => {
    await fc.assert(
      fc.asyncProperty(calls, async (script) => {
        let i = 0;
        let drawn = 0;
        const clock = new VirtualClock();
        const { chaos, behaved } = makeChaos(strategy, {
          clock,
          enabled: () => script[i]!.enabled,
          rate: () => script[i]!.rate,
          random: () => {
            drawn++;
            return script[i]!.draw;
          },
        });
        const injected: boolean[] = [];
        for (; i < script.length; i++) {
          const start = clock.now();
          const before = behaved.length;
          const call = chaos.execute(realFn()).then(
            (v) => v,
            (e: unknown) => e,
          );
          await clock.runAll();
          const outcome = await call;
          injected.push(
            strategy === 'fault'
              ? outcome === FAULT
              : strategy === 'outcome'
                ? outcome === FAKE
                : strategy === 'behavior'
                  ? behaved.length > before
                  : clock.now() > start,
          );
        }
        const expected = script.map(model);
        expect(injected).toEqual(expected);
        expect(drawn).toBe(script.filter((c) => c.enabled).length);
        const count = expected.filter(Boolean).length;
        expect(chaos.metrics).toEqual({ numberOfInjectedCalls: count, numberOfCallsNotInjected: script.length - count });
        expect(clock.pendingTimers).toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  it('a constant rate over a random sequence: exactly the draws under it are injected', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { maxLength: 80 }),
        async (r, draws) => {
          let i = 0;
          const { chaos } = makeChaos('fault', { enabled: true, rate: r, random: () => draws[i++]! });
          let rejected = 0;
          for (let n = 0; n < draws.length; n++) await chaos.execute(realFn()).catch(() => rejected++);
          const expected = draws.filter((d) => d < r).length;
          expect(rejected).toBe(expected);
          expect(chaos.metrics).toEqual({ numberOfInjectedCalls: expected, numberOfCallsNotInjected: draws.length - expected });
        },
      ),
    );
  });
});
