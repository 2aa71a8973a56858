import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layer, library, phase, yamlOf } from '../test/model-property-support.js';
import { parseScenario } from './parse-scenario.js';
import { runConfiguration } from './simulate.js';

// A property: for random pipelines (retry, breaker, time limiter, rate limiter, bulkhead, adaptive limiter and throttle, at most one of each, in any order) and random
// traffic, the engine and decorate() on a VirtualClock — fed the same arrivals and the same
// backend draws — agree on every state change and every count. Latencies and waits are
// fractional, so no two events fall on the same instant (where the two may order them apart).

describe('the engine and decorate() agree (property)', () => {
  it('on random pipelines and traffic: every state change, every count', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(layer, { minLength: 1, maxLength: 5, selector: (l) => l.kind }),
        fc.array(phase, { minLength: 1, maxLength: 3 }),
        fc.nat(),
        async (layers, phases, seed) => {
          // An adaptive limiter and a bulkhead in one pipeline hand slots over at the same instant a
          // time-out frees the inner one: the engine frees the inner slot first, the library a few
          // microtasks after the outer one's next call reached it (refused). Left out here; see the README.
          const kinds = new Set(layers.map((l) => l.kind));
          fc.pre(!(kinds.has('adaptiveLimiter') && kinds.has('bulkhead')));
          const scenario = parseScenario(yamlOf(layers, phases, seed));
          let backendCalls = 0;
          const engine = runConfiguration(scenario, scenario.pipelines[0]!, { observer: () => ({ finished: (v) => void (backendCalls = v.backendCalls) }) });
          const real = await library(scenario);
          expect(engine.transitions).toEqual(real.transitions);
          expect([engine.totals.succeeded, engine.totals.failed, engine.totals.rejected]).toEqual([real.succeeded, real.failed, real.rejected]);
          expect(backendCalls).toBe(real.backendCalls);
        },
      ),
      { numRuns: Number(process.env['SIMULATOR_PROPERTY_RUNS'] ?? 40), endOnFailure: process.env['SIMULATOR_PROPERTY_END'] === '1' },
    );
  }, 60_000);
});
