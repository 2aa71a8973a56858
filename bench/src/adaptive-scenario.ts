// Row 15 (issue 20): not a speed — the adaptive limiter's targets on the scenario the repository
// ships (examples/scenarios/adaptive.yml), judged on the simulator's report, so a change to an
// algorithm or a default that loses them shows in `pnpm bench:check` as it does in the simulator's
// tests (packages/simulator/src/adaptive-scenario.test.ts).
import { fileURLToPath } from 'node:url';
import { parseScenarioFile, simulate } from '@breakwater/simulator';
import type { AdaptiveScenarioResult, PipelineFigures, Results, Target } from './results.js';

const FILE = fileURLToPath(new URL('../../examples/scenarios/adaptive.yml', import.meta.url));
/** The scenario's backend: servers per phase, and the service time (ms). */
const SERVERS = [50, 25, 50] as const;
const SERVICE_MS = 40;
const ADAPTIVE = 'adaptive (gradient2)';
const STATIC = ['bulkhead 200', 'bulkhead 50', 'bulkhead 25'] as const;

/** Runs the scenario once (every pipeline) and keeps each pipeline's figures per phase, and when the adaptive limit followed the drop. */
export function measureAdaptiveScenario(): AdaptiveScenarioResult {
  const limitChanges: { atMs: number; limit: number }[] = [];
  const t0 = performance.now();
  const report = simulate(parseScenarioFile(FILE), {
    observer: (spec, layers) => {
      if (spec.name === ADAPTIVE)
        for (const layer of layers)
          if (layer.kind === 'adaptiveLimiter') layer.limiter.on('limitChanged', (e) => void limitChanges.push({ atMs: e.at, limit: e.limit }));
      return undefined;
    },
  });
  const ms = performance.now() - t0;
  const phases = report.scenario.phases;
  const pipelines: PipelineFigures[] = [ADAPTIVE, ...STATIC].map((name) => {
    const c = report.configurations.find((x) => x.name === name);
    if (c === undefined) throw new Error(`row 15: no pipeline '${name}' in ${FILE}`);
    return {
      name,
      phases: c.phases.map((p, i) => {
        const seconds = (phases[i]!.endMs - phases[i]!.startMs) / 1000;
        return {
          goodputOfCapacity: p.succeeded / seconds / (SERVERS[i]! / (SERVICE_MS / 1000)),
          p50Ms: p.latencyP50Ms ?? Number.NaN,
          p99Ms: p.latencyP99Ms ?? Number.NaN,
          rejected: p.rejected,
        };
      }),
    };
  });
  const dropAt = phases[1]!.startMs;
  const followed = limitChanges.find((e) => e.atMs >= dropAt && e.limit <= 1.5 * SERVERS[1]);
  return {
    id: '15',
    title: 'adaptive limiter against static bulkheads (examples/scenarios/adaptive.yml)',
    pipelines,
    secondsToFollowDrop: followed === undefined ? Infinity : (followed.atMs - dropAt) / 1000,
    ms,
  };
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const phaseList = (xs: readonly number[], f: (x: number) => string) => xs.map(f).join(' / ');

function figures(results: Results): AdaptiveScenarioResult {
  const r = results.adaptiveScenario;
  if (r === undefined) throw new Error('no row 15 in the results');
  return r;
}

function pipeline(r: AdaptiveScenarioResult, name: string): PipelineFigures {
  return r.pipelines.find((p) => p.name === name)!;
}

/** A target of row 15: `holds` on the figures, `detail` saying them. */
function scenarioTarget(description: string, judge: (r: AdaptiveScenarioResult) => { pass: boolean; detail: string }): Target {
  return { description: `row 15: ${description}`, judge: (results) => ({ target: `row 15: ${description}`, ...judge(figures(results)) }) };
}

/** Issue 20's targets on the scenario. */
export const ADAPTIVE_SCENARIO_TARGETS: readonly Target[] = [
  scenarioTarget("the adaptive limiter's goodput ≥ 90 % of the backend's capacity in each phase", (r) => {
    const g = pipeline(r, ADAPTIVE).phases.map((p) => p.goodputOfCapacity);
    return { pass: g.every((x) => x >= 0.9), detail: `${phaseList(g, pct)} (capacity 50 / 25 / 50)` };
  }),
  scenarioTarget(`its p50 latency ≤ 1.5 × the no-load latency (${1.5 * SERVICE_MS} ms) in each phase`, (r) => {
    const p = pipeline(r, ADAPTIVE).phases.map((x) => x.p50Ms);
    return { pass: p.every((x) => x <= 1.5 * SERVICE_MS), detail: `${phaseList(p, (x) => `${x} ms`)}` };
  }),
  scenarioTarget('after the capacity halves, its limit is within 1.5 × the new capacity in ≤ 10 s of simulated time', (r) => ({
    pass: r.secondsToFollowDrop <= 10,
    detail: `≤ ${1.5 * SERVERS[1]} after ${r.secondsToFollowDrop.toFixed(1)} s`,
  })),
  scenarioTarget('side by side: the bulkhead of 200 has a worse p50 in every phase, the one of 50 after the drop', (r) => {
    const a = pipeline(r, ADAPTIVE).phases.map((x) => x.p50Ms);
    const b200 = pipeline(r, 'bulkhead 200').phases.map((x) => x.p50Ms);
    const b50 = pipeline(r, 'bulkhead 50').phases.map((x) => x.p50Ms);
    return {
      pass: b200.every((x, i) => x > a[i]!) && b50[1]! > a[1]!,
      detail: `p50 bulkhead 200: ${phaseList(b200, (x) => `${x} ms`)}; bulkhead 50 during the drop: ${b50[1]} ms; adaptive: ${phaseList(a, (x) => `${x} ms`)}`,
    };
  }),
  scenarioTarget('the bulkhead sized for the drop (25) wastes about half the capacity outside it (goodput ≤ 60 %)', (r) => {
    const g = pipeline(r, 'bulkhead 25').phases.map((p) => p.goodputOfCapacity);
    return { pass: g[0]! <= 0.6 && g[2]! <= 0.6, detail: `goodput ${phaseList(g, pct)}` };
  }),
];

/** Row 15's lines, as plain text. */
export function formatAdaptiveScenarioText(r: AdaptiveScenarioResult | undefined): string[] {
  if (r === undefined) return [];
  return [
    `\n${r.id}. ${r.title} (simulated in ${(r.ms / 1000).toFixed(1)} s)`,
    `  ${'pipeline'.padEnd(22)} ${'goodput (of capacity)'.padEnd(28)} ${'p50 ms'.padEnd(20)} ${'p99 ms'.padEnd(20)} rejected`,
    ...r.pipelines.map(
      (p) =>
        `  ${p.name.padEnd(22)} ${phaseList(
          p.phases.map((x) => x.goodputOfCapacity),
          pct,
        ).padEnd(28)} ${phaseList(
          p.phases.map((x) => x.p50Ms),
          String,
        ).padEnd(20)} ${phaseList(
          p.phases.map((x) => x.p99Ms),
          String,
        ).padEnd(20)} ${phaseList(
          p.phases.map((x) => x.rejected),
          String,
        )}`,
    ),
    `  the adaptive limit within 1.5 × the halved capacity ${r.secondsToFollowDrop.toFixed(1)} s after the drop`,
  ];
}

/** Row 15's table, as Markdown. */
export function formatAdaptiveScenarioMarkdown(r: AdaptiveScenarioResult | undefined): string[] {
  if (r === undefined) return [];
  return [
    `### ${r.id}. ${r.title}`,
    '',
    'Each cell: the phases capacity 50 / capacity 25 / recovered (40 ms a call; 2 500 requests/s offered, twice the capacity).',
    '',
    '| pipeline | goodput (of capacity) | p50 | p99 | rejected |',
    '|---|---|---|---|---|',
    ...r.pipelines.map(
      (p) =>
        `| ${p.name} | ${phaseList(
          p.phases.map((x) => x.goodputOfCapacity),
          pct,
        )} | ${phaseList(
          p.phases.map((x) => x.p50Ms),
          (x) => `${x} ms`,
        )} | ${phaseList(
          p.phases.map((x) => x.p99Ms),
          (x) => `${x} ms`,
        )} | ${phaseList(
          p.phases.map((x) => x.rejected),
          String,
        )} |`,
    ),
    '',
    `The adaptive limit was within 1.5 × the halved capacity ${r.secondsToFollowDrop.toFixed(1)} s after the drop.`,
    '',
  ];
}
