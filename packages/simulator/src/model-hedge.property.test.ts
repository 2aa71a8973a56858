import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chaosLayer, hedgeLayer, type Layer, layer, library, phase, yamlOf } from '../test/model-property-support.js';
import { parseScenario } from './parse-scenario.js';
import { runConfiguration } from './simulate.js';

// The engine-vs-decorate() property with a hedge and chaos (contract: docs/simulator.md): a hedge
// at any place among up to three other random layers, and a chaos layer innermost or none; the
// engine and the real components composed by decorate() (withHedge, withChaos) on a VirtualClock — the same arrivals, the
// same backend draws, the chaos layer drawing from the same seeded random — agree on every state
// change, every count, the hedge's metrics (hedged attempts, wins by attempt) and the chaos
// layer's (calls injected and not).
//
// Left out, two orders of one instant the engine and the library take apart (README, "Hedging"):
// - `delay: 0` with a layer below the hedge that holds a slot or a permit (an adaptive limiter, a
//   bulkhead, a breaker's half-open permits): the library starts every attempt before any of them
//   reaches that layer's answer, so an attempt refused at once still holds its slot when the next one
//   asks; the engine starts them one after the other, and the refusal has given the slot back first.
// - an adaptive limiter or a bulkhead below the hedge whose callers wait for a slot: when the winner
//   frees its slot, the engine hands it to the next waiter at once — maybe a losing attempt of the
//   same call, which reaches the backend and is cancelled there — where the library aborts the losers
//   first (the waiter granted the slot starts a few microtasks later, by then aborted).
// - a time limiter that cancels below the hedge, with such a layer below it: when it gives up, the
//   engine frees the cancelled call's slot before the hedge hears of the time-out and starts its next
//   attempt; in the library the hedge hears first, and the cancelled call settles a few microtasks later.
// - a retry below the hedge: its waits and the hedge's delays add up to the same instants by
//   construction (the primary's two retries then its delay, a hedge's delay then its two retries),
//   and at such a tie the library's Hedge — one clock timer for all its calls, re-armed as they come
//   and go — may fire after the retry's timer where the engine's wake-up fires first.
// And one difference of the breaker's permission API, which the engine drives: a call permitted in
// one state that ends in a later HALF_OPEN is recorded there and uses up one of that state's
// permission-API permits (`onSuccess` / `onError` cannot tell which state permitted it, where
// `execute`'s permits can), so a losing attempt cancelled afterwards cannot give its trial permit
// back. The property gives a breaker below the hedge an OPEN wait longer than any call.

describe('the engine and decorate() agree with a hedge and chaos (property)', () => {
  it('on random pipelines and traffic: every state change, every count, the hedge and chaos metrics', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(layer, { minLength: 0, maxLength: 3, selector: (l) => l.kind }),
        fc.nat(),
        hedgeLayer,
        fc.option(chaosLayer, { nil: undefined }),
        fc.array(phase, { minLength: 1, maxLength: 2 }),
        fc.nat(),
        async (others, at, hedge, chaos, phases, seed) => {
          const kinds = new Set(others.map((l) => l.kind));
          fc.pre(!(kinds.has('adaptiveLimiter') && kinds.has('bulkhead'))); // as in model.property.test.ts
          const layers: Layer[] = [...others.slice(0, at % (others.length + 1)), hedge, ...others.slice(at % (others.length + 1))];
          if (chaos !== undefined) layers.push(chaos);
          const below = layers.slice(layers.indexOf(hedge) + 1);
          const holding = (l: Layer) => l.kind === 'adaptiveLimiter' || l.kind === 'bulkhead' || l.kind === 'circuitBreaker';
          const queues = below.some((l) => (l.kind === 'adaptiveLimiter' || l.kind === 'bulkhead') && l.waitMs > 0);
          const cuts = below.findIndex((l) => l.kind === 'timeLimiter' && l.cancel);
          const retries = below.some((l) => l.kind === 'retry');
          // A breaker below the hedge whose OPEN wait outlasts every call (latency ≤ 500 ms, a time-out ≤ 500 ms, an injected latency ≤ 300 ms).
          const spans = below.some((l) => l.kind === 'circuitBreaker' && l.waitMs <= 1000);
          fc.pre(!(hedge.delay === '0' && below.some(holding)) && !queues && !(cuts >= 0 && below.slice(cuts + 1).some(holding)) && !retries && !spans);
          const scenario = parseScenario(yamlOf(layers, phases, seed));
          let backendCalls = 0;
          const engine = runConfiguration(scenario, scenario.pipelines[0]!, { observer: () => ({ finished: (v) => void (backendCalls = v.backendCalls) }) });
          const real = await library(scenario);
          expect(engine.transitions).toEqual(real.transitions);
          expect([engine.totals.succeeded, engine.totals.failed, engine.totals.rejected]).toEqual([real.succeeded, real.failed, real.rejected]);
          expect(backendCalls).toBe(real.backendCalls);
          const built = real.layers.find((l) => l.kind === 'hedge');
          const m = built?.kind === 'hedge' ? built.hedge.metrics : undefined;
          expect(engine.totals.hedgedAttempts).toBe(m?.numberOfHedgedAttempts);
          expect(engine.totals.hedgeWins).toEqual(m?.winsByAttempt);
          const injector = real.layers.find((l) => l.kind === 'chaos');
          if (injector?.kind === 'chaos') {
            const t = engine.totals;
            const injected = (t.injectedFaults ?? 0) + (t.injectedLatencies ?? 0) + (t.injectedOutcomes ?? 0);
            expect([injected, t.chaosCalls]).toEqual([
              injector.chaos.metrics.numberOfInjectedCalls,
              injector.chaos.metrics.numberOfInjectedCalls + injector.chaos.metrics.numberOfCallsNotInjected,
            ]);
          }
        },
      ),
      { numRuns: Number(process.env['SIMULATOR_PROPERTY_RUNS'] ?? 40), endOnFailure: process.env['SIMULATOR_PROPERTY_END'] === '1' },
    );
  }, 60_000);
});
