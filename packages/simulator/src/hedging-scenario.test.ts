import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseScenarioFile } from './parse-scenario.js';
import type { ConfigurationResult, Counts, SimulationReport } from './report.js';
import { runConfiguration, simulate } from './simulate.js';

// Issue 21's hedging target, held on the scenario the repository ships (examples/scenarios/hedging.yml;
// contract: docs/simulator.md): a backend whose p99 is 10× its p50, and a hedge at the 90th percentile
// of recent calls must bring the p99 to at most half the unhedged one for at most 10 % more calls.
// Met on a backend with a slow tail of its own (5 % of calls slow); on a log-normal backend with the
// same p50 and p99 it is missed, and the figures say so. Targets are not weakened here.
const FILE = fileURLToPath(new URL('../../../examples/scenarios/hedging.yml', import.meta.url));
const SLOW_TAIL = 0;
const LOG_NORMAL = 2;

let report: SimulationReport;

beforeAll(() => {
  report = simulate(parseScenarioFile(FILE));
}, 60_000);

const config = (name: string): ConfigurationResult => report.configurations.find((c) => c.name === name)!;
const p99 = (c: ConfigurationResult, phase: number) => c.phases[phase]!.latencyP99Ms!;
/** Attempts beyond the primary per call: the extra load. */
const extra = (c: ConfigurationResult, phase: number) => c.phases[phase]!.hedgedAttemptsPerCall!;

describe('examples/scenarios/hedging.yml: hedging the slow tail (issue 21)', () => {
  it('the backend: p99 10× its p50 in both phases, every request answered', () => {
    const none = config('no hedge');
    expect(report.scenario.phases.map((p) => [p.name, p.startMs, p.endMs])).toEqual([
      ['slow tail', 0, 300_000],
      ['window empties', 300_000, 360_000],
      ['log-normal', 360_000, 660_000],
    ]);
    for (const phase of [SLOW_TAIL, LOG_NORMAL]) {
      const counts = none.phases[phase]!;
      expect(counts.latencyP50Ms).toBeGreaterThanOrEqual(19.5);
      expect(counts.latencyP50Ms).toBeLessThanOrEqual(20.5);
      expect(counts.latencyP99Ms! / counts.latencyP50Ms!).toBeGreaterThan(9.5);
      expect(counts.latencyP99Ms! / counts.latencyP50Ms!).toBeLessThan(10.5);
    }
    for (const c of report.configurations) expect([c.totals.failed, c.totals.rejected, c.totals.unfinished]).toEqual([0, 0, 0]);
  });

  it('slow tail: the hedge at p90 halves the p99 and more (≤ 0.5×) for at most 10 % more calls', () => {
    const hedged = config('hedge p90');
    expect(p99(hedged, SLOW_TAIL)).toBeLessThanOrEqual(0.5 * p99(config('no hedge'), SLOW_TAIL));
    expect(p99(hedged, SLOW_TAIL)).toBeLessThan(0.35 * p99(config('no hedge'), SLOW_TAIL)); // 61 ms of 200
    expect(extra(hedged, SLOW_TAIL)).toBeLessThanOrEqual(0.1);
    expect(extra(hedged, SLOW_TAIL)).toBeGreaterThan(0.05); // it does hedge: the p90 and the slow 5 % above it
  });

  it('log-normal: the same hedge misses (0.56×: a second attempt started at the p90 is slow too often); a fixed 50 ms reaches 0.5× for 18 % more calls', () => {
    const unhedged = p99(config('no hedge'), LOG_NORMAL);
    const hedged = config('hedge p90');
    expect(p99(hedged, LOG_NORMAL) / unhedged).toBeGreaterThan(0.5);
    expect(p99(hedged, LOG_NORMAL) / unhedged).toBeLessThan(0.6);
    expect(extra(hedged, LOG_NORMAL)).toBeLessThanOrEqual(0.1);
    const fixed = config('hedge 50ms');
    expect(p99(fixed, LOG_NORMAL)).toBeLessThanOrEqual(0.5 * unhedged);
    expect(extra(fixed, LOG_NORMAL)).toBeGreaterThan(0.15);
  });

  it('the counts add up: one hedge call per request, every call won by some attempt, a hedge wins only where one started', () => {
    for (const name of ['hedge p90', 'hedge 50ms', 'two hedges p90']) {
      const t: Counts = config(name).totals;
      expect(t.hedgeCalls).toBe(t.requests);
      expect(t.hedgeWins!.reduce((a, b) => a + b, 0)).toBe(t.requests);
      expect(t.hedgeWins!.slice(1).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(t.hedgedAttempts!);
      expect(t.hedgeWins!.slice(1).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    }
    expect(config('hedge p90').totals.hedgeWins).toHaveLength(2);
    expect(config('two hedges p90').totals.hedgeWins).toHaveLength(3);
    expect(config('no hedge').totals.hedgeWins).toBeUndefined();
  });
});

describe("examples/scenarios/hedging.yml on other seeds: the target is not one seed's luck", () => {
  it('slow tail: p99 ≤ 0.5× unhedged at ≤ 10 % more calls on seeds 1 to 5 too', () => {
    const scenario = parseScenarioFile(FILE);
    const none = scenario.pipelines.find((p) => p.name === 'no hedge')!;
    const hedge = scenario.pipelines.find((p) => p.name === 'hedge p90')!;
    for (let seed = 1; seed <= 5; seed++) {
      const unhedged = runConfiguration({ ...scenario, seed }, none);
      const hedged = runConfiguration({ ...scenario, seed }, hedge);
      expect(p99(hedged, SLOW_TAIL), `seed ${seed}`).toBeLessThanOrEqual(0.5 * p99(unhedged, SLOW_TAIL));
      expect(extra(hedged, SLOW_TAIL), `seed ${seed}`).toBeLessThanOrEqual(0.1);
    }
  }, 60_000);
});
