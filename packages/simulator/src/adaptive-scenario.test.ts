import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseScenarioFile } from './parse-scenario.js';
import type { ConfigurationResult, SimulationReport } from './report.js';
import { phasesOf, runConfiguration, simulate } from './simulate.js';

// Issue 20's targets, held on the scenario the repository ships (examples/scenarios/adaptive.yml):
// a backend of 50 servers at 40 ms (1 250 calls/s) offered 2 500 requests/s, its capacity halved
// to 25 for two minutes, then back. Targets are not weakened here: when one is missed, the
// scenario's algorithm or options change, not these figures.
const FILE = fileURLToPath(new URL('../../../examples/scenarios/adaptive.yml', import.meta.url));
const SERVICE_MS = 40;
const DROP_AT_MS = 60_000;
const ADAPTIVE = 'adaptive (gradient2)';

let report: SimulationReport;
const limitChanges: { atMs: number; limit: number }[] = [];

beforeAll(() => {
  report = simulate(parseScenarioFile(FILE), {
    observer: (spec, layers) => {
      if (spec.name !== ADAPTIVE) return undefined;
      for (const layer of layers)
        if (layer.kind === 'adaptiveLimiter') layer.limiter.on('limitChanged', (e) => void limitChanges.push({ atMs: e.at, limit: e.limit }));
      return undefined;
    },
  });
}, 60_000);

const config = (name: string): ConfigurationResult => report.configurations.find((c) => c.name === name)!;
/** Each phase's capacity, calls/s: servers / service time. */
const capacityPerSecond = (phase: number) => [50, 25, 50][phase]! / (SERVICE_MS / 1000);
/** Requests per second that succeeded, per phase (requests counted in the phase they arrived in). */
const goodput = (c: ConfigurationResult) =>
  c.phases.map((p, i) => {
    const { startMs, endMs } = report.scenario.phases[i]!;
    return p.succeeded / ((endMs - startMs) / 1000);
  });
const p50 = (c: ConfigurationResult) => c.phases.map((p) => p.latencyP50Ms!);

describe('examples/scenarios/adaptive.yml: the adaptive limiter against static bulkheads (issue 20)', () => {
  it('runs the three phases with the capacity the scenario gives, at 2 500 requests/s, twice what the backend serves', () => {
    expect(report.scenario.phases.map((p) => [p.name, p.startMs, p.endMs])).toEqual([
      ['capacity 50', 0, 60_000],
      ['capacity 25', 60_000, 180_000],
      ['recovered', 180_000, 240_000],
    ]);
    const c = config(ADAPTIVE);
    expect(c.series.capacity!.slice(0, 60).every((v) => v === 50)).toBe(true);
    expect(c.series.capacity!.slice(60, 180).every((v) => v === 25)).toBe(true);
    for (const [i, p] of c.phases.entries()) {
      const seconds = (report.scenario.phases[i]!.endMs - report.scenario.phases[i]!.startMs) / 1000;
      expect(p.requests / seconds / capacityPerSecond(0)).toBeCloseTo(2, 1);
    }
  });

  it("the adaptive limiter's goodput is at least 90 % of the backend's capacity in each phase", () => {
    for (const [phase, g] of goodput(config(ADAPTIVE)).entries()) expect(g).toBeGreaterThanOrEqual(0.9 * capacityPerSecond(phase));
  });

  it('its p50 latency is at most 1.5× the no-load latency (40 ms) in each phase', () => {
    for (const latency of p50(config(ADAPTIVE))) expect(latency).toBeLessThanOrEqual(1.5 * SERVICE_MS);
  });

  it('after the capacity halves, its limit is within 1.5× the new capacity (<= 37) in at most 10 s of simulated time', () => {
    const before = limitChanges.filter((e) => e.atMs < DROP_AT_MS).at(-1)!.limit;
    expect(before).toBeGreaterThan(1.5 * 25); // it had found the capacity before the drop, above where it must go
    const within = limitChanges.find((e) => e.atMs >= DROP_AT_MS && e.limit <= 1.5 * 25)!;
    expect(within.atMs - DROP_AT_MS).toBeLessThanOrEqual(10_000);
  });

  it('side by side: the bulkhead of 200 is worse on latency in every phase, the one of 50 after the drop', () => {
    const adaptive = p50(config(ADAPTIVE));
    for (const [phase, latency] of p50(config('bulkhead 200')).entries()) expect(latency).toBeGreaterThan(2 * adaptive[phase]!);
    const fifty = p50(config('bulkhead 50'));
    expect(fifty[1]).toBeGreaterThan(1.5 * adaptive[1]!); // capacity 25: 50 in flight wait a service time each
    expect(fifty[1]).toBeGreaterThan(1.5 * SERVICE_MS);
  });

  it('the bulkhead of 25, sized for the drop, wastes about half the capacity outside it', () => {
    const g = goodput(config('bulkhead 25'));
    for (const phase of [0, 2]) {
      expect(g[phase]! / capacityPerSecond(phase)).toBeGreaterThan(0.45);
      expect(g[phase]! / capacityPerSecond(phase)).toBeLessThan(0.55);
    }
    expect(g[1]! / capacityPerSecond(1)).toBeGreaterThan(0.95);
  });

  it("Gradient2 with Netflix's defaults misses two targets: a slow start (1 s windows) and a p50 held at its 1.5× tolerance", () => {
    const c = config("gradient2, Netflix's defaults");
    expect(goodput(c)[0]! / capacityPerSecond(0)).toBeLessThan(0.9); // climbing from 20 by 4 a window of 1 s
    expect(p50(c)[1]).toBeGreaterThan(1.5 * SERVICE_MS);
  });
});

describe("examples/scenarios/adaptive.yml on other seeds: the targets are not one seed's luck", () => {
  it('the adaptive limiter meets every target on seeds 1 to 5 too', () => {
    const scenario = parseScenarioFile(FILE);
    const spec = scenario.pipelines.find((p) => p.name === ADAPTIVE)!;
    const bounds = phasesOf(scenario.traffic);
    for (let seed = 1; seed <= 5; seed++) {
      const changes: { atMs: number; limit: number }[] = [];
      const c = runConfiguration({ ...scenario, seed }, spec, {
        observer: (_p, layers) => {
          for (const layer of layers)
            if (layer.kind === 'adaptiveLimiter') layer.limiter.on('limitChanged', (e) => void changes.push({ atMs: e.at, limit: e.limit }));
          return undefined;
        },
      });
      for (const [phase, p] of c.phases.entries()) {
        const { startMs, endMs } = bounds[phase]!;
        expect(p.succeeded / ((endMs - startMs) / 1000), `seed ${seed}, phase ${phase}`).toBeGreaterThanOrEqual(0.9 * capacityPerSecond(phase));
        expect(p.latencyP50Ms!, `seed ${seed}, phase ${phase}`).toBeLessThanOrEqual(1.5 * SERVICE_MS);
      }
      const within = changes.find((e) => e.atMs >= DROP_AT_MS && e.limit <= 1.5 * 25)!;
      expect(within.atMs - DROP_AT_MS, `seed ${seed}`).toBeLessThanOrEqual(10_000);
    }
  }, 60_000);
});
