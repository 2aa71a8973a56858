import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseScenario, parseScenarioFile } from './parse-scenario.js';
import type { ConfigurationResult, SimulationReport } from './report.js';
import { simulate } from './simulate.js';

// Issue 21's chaos experiment, rehearsed on the virtual clock (examples/scenarios/chaos.yml;
// contract: docs/simulator.md): 5 % injected faults and 2 % of 1 s latencies innermost in a
// Retry → CircuitBreaker → TimeLimiter pipeline, its counts on the shipped seed; then the outage
// rehearsal (60 % faults) and the baseline whose chaos layers are disabled.
const FILE = fileURLToPath(new URL('../../../examples/scenarios/chaos.yml', import.meta.url));

let report: SimulationReport;

beforeAll(() => {
  report = simulate(parseScenarioFile(FILE));
}, 60_000);

const config = (name: string): ConfigurationResult => report.configurations.find((c) => c.name === name)!;

describe('examples/scenarios/chaos.yml: a chaos experiment rehearsed (issue 21)', () => {
  it('5 % faults + 2 % latency: injected as drawn, absorbed by the retry, the breaker never opens', () => {
    const t = config('chaos 5 % + 2 %').totals;
    expect(t).toMatchObject({ requests: 14_963, succeeded: 14_960, failed: 3, rejected: 0, retries: 1084, timeouts: 318, breakerCalls: 16_047 });
    expect([t.injectedFaults, t.injectedLatencies, t.injectedOutcomes, t.chaosCalls]).toEqual([769, 314, 0, 31_325]);
    // Every breaker call reaches the fault layer; those it lets through reach the latency layer.
    expect(t.chaosCalls).toBe(t.breakerCalls + (t.breakerCalls - t.injectedFaults!));
    expect(t.injectedFaults! / t.breakerCalls).toBeCloseTo(0.05, 2);
    expect(t.injectedLatencies! / (t.breakerCalls - t.injectedFaults!)).toBeCloseTo(0.02, 2);
    // Each injected latency (1 s) outlasts the 500 ms time limiter: a time-out each, a few more from the backend's own tail.
    expect(t.timeouts).toBeGreaterThanOrEqual(t.injectedLatencies!);
    expect(config('chaos 5 % + 2 %').transitions).toEqual([]);
    expect(t.latencyP99Ms).toBeGreaterThan(600); // a time-out, the retry's wait, a second call
  });

  it('60 % faults: the breaker opens in the first second and refuses 99 % of the requests; the retry does not retry its refusals', () => {
    const c = config('chaos 60 %');
    expect(Math.round(c.timeToOpenMs!)).toBe(277);
    // Its half-open trials (10 calls at 60 % faults) fail 25 times in 29; the 4 that close it open it again.
    const count = (from: string, to: string) => c.transitions.filter((x) => x.from === from && x.to === to).length;
    expect([count('OPEN', 'HALF_OPEN'), count('HALF_OPEN', 'OPEN'), count('HALF_OPEN', 'CLOSED'), count('CLOSED', 'OPEN')]).toEqual([29, 25, 4, 5]);
    expect(c.totals).toMatchObject({ requests: 14_963, succeeded: 159, failed: 7, rejected: 14_797, retries: 234 });
    expect([c.totals.injectedFaults, c.totals.chaosCalls]).toEqual([241, 400]);
  });

  it('the baseline: disabled chaos layers draw nothing, so the run is the one without them', () => {
    const baseline = config('no chaos');
    expect(baseline.totals).toMatchObject({ succeeded: 14_963, failed: 0, injectedFaults: 0, injectedLatencies: 0, chaosCalls: 2 * 14_963 });
    const scenario = parseScenarioFile(FILE);
    const spec = scenario.pipelines[0]!;
    if (spec.kind !== 'layers') throw new Error('layers');
    const without = simulate({ ...scenario, pipelines: [{ ...spec, layers: spec.layers.filter((l) => l.kind !== 'chaos') }] }).configurations[0]!;
    const { chaosCalls, injectedFaults, injectedLatencies, injectedOutcomes, ...rest } = baseline.totals;
    expect(without.totals).toEqual(rest);
  });
});

describe('chaos.yml is reproduced by its seed', () => {
  it('a second run gives the same report; another seed other injections', () => {
    const scenario = parseScenarioFile(FILE);
    expect(JSON.stringify(simulate(scenario))).toBe(JSON.stringify(report));
    const other = simulate({ ...scenario, seed: 8 }).configurations.find((c) => c.name === 'chaos 5 % + 2 %')!.totals;
    expect(other.injectedFaults).not.toBe(config('chaos 5 % + 2 %').totals.injectedFaults);
  });
});

describe('chaos layers in a scenario file', () => {
  const pipeline = (layers: string) =>
    parseScenario(`pipelines:\n  p:\n${layers}\ntraffic: { phases: [{ duration: 1s, rate: 10, arrivals: constant, latency: 100ms }] }\n`, 'case.yml');

  it('an outcome answers at once without calling below; a latency delays each call by its amount', () => {
    const run = (layer: string) => simulate(pipeline(`    - chaos: ${layer}`)).configurations[0]!.totals;
    expect(run('{ outcome: ok, rate: 1, enabled: true }')).toMatchObject({ succeeded: 10, injectedOutcomes: 10, latencyP50Ms: 0 });
    expect(run('{ latency: 250ms, rate: 1, enabled: true }')).toMatchObject({ succeeded: 10, injectedLatencies: 10, latencyP50Ms: 350 });
    expect(run("{ fault: 'boom', rate: 1, enabled: true }")).toMatchObject({ failed: 10, injectedFaults: 10 });
    expect(run('{ fault: boom, rate: 1 }')).toMatchObject({ succeeded: 10, injectedFaults: 0, chaosCalls: 10 }); // off unless enabled
  });

  it('a time limiter above an injected latency cuts it, as a caller abort does the real one', () => {
    const t = simulate(pipeline('    - timeLimiter: { timeoutDuration: 200ms }\n    - chaos: { latency: 1s, rate: 1, enabled: true }')).configurations[0]!
      .totals;
    expect(t).toMatchObject({ failed: 10, timeouts: 10, injectedLatencies: 10 });
  });

  it('refuses a behaviour, a layer below chaos, no strategy or two, with the line and why', () => {
    expect(() => pipeline('    - chaos: { behavior: x, rate: 1 }')).toThrow(/chaos\.behavior.*is code \(a function\).*latency.*fault/s);
    expect(() => pipeline('    - chaos: { fault: x }\n    - retry: {}')).toThrow(/a chaos layer goes innermost.*here a retry is below it/);
    expect(() => pipeline('    - chaos: { rate: 0.1 }')).toThrow(/exactly one of fault, latency or outcome.*got none/);
    expect(() => pipeline('    - chaos: { fault: x, latency: 1s }')).toThrow(/exactly one of fault, latency or outcome.*got fault and latency/);
    expect(() => pipeline('    - chaos: { fault: x, rate: 2 }')).toThrow(/rate/);
  });
});
