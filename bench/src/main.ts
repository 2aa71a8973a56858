/**
 * `pnpm bench` (full run: prints the table and writes bench/RESULTS.md) and `pnpm bench:check`
 * (`--check`: a short run that exits 1 when a target is missed). Options: `--only=1a,2` to run
 * some rows (no RESULTS.md then), `--no-memory` to skip row 9, `--rounds` to print every round's figures.
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { timeGroup, type Budget, type Row } from './harness.js';
import { adaptiveRows } from './rows/adaptive.js';
import { measureMemory } from './memory.js';
import { formatMarkdown, formatText } from './report.js';
import type { MemoryResult, Results, RowResult } from './results.js';
import { breakerRows } from './rows/breaker.js';
import { exporterRows } from './rows/exporter.js';
import { hedgeChaosRows } from './rows/hedge-chaos.js';
import { measureScrape } from './scrape.js';
import { measureSimulator } from './simulator.js';
import { measureAdaptiveScenario } from './adaptive-scenario.js';
import { measureRedis } from './redis.js';
import { bulkheadRows } from './rows/bulkhead.js';
import { pipelineRows } from './rows/pipeline.js';
import { rateLimiterRows } from './rows/rate-limiter.js';
import { retryRows } from './rows/retry.js';
import { timeLimiterRows } from './rows/time-limiter.js';
import { tracingRows } from './rows/tracing.js';
import { TARGETS } from './targets.js';

const args = process.argv.slice(2);
const check = args.includes('--check');
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const verbose = args.includes('--rounds'); // print every round's figure of every case (stderr)
const withMemory = !args.includes('--no-memory') && (only === undefined || only.includes('9'));
const budget: Budget = check ? { msPerCase: 20, rounds: 20 } : { msPerCase: 40, rounds: 30 };

/** Which Breakwater code runs: the built dist (the default) or the sources (`tsx --conditions=@breakwater/source`). */
function breakwaterCode(): string {
  const resolved = import.meta.resolve('@breakwater/circuit-breaker');
  return resolved.includes('/src/') ? 'sources (packages/*/src, --conditions=@breakwater/source)' : 'built dist (packages/*/dist, as users run it)';
}

const withScrape = only === undefined || only.includes('10');
const rows: Row[] = [
  ...breakerRows(),
  ...exporterRows(),
  ...timeLimiterRows(),
  ...retryRows(),
  ...pipelineRows(),
  ...bulkheadRows(),
  ...rateLimiterRows(),
  ...adaptiveRows(),
  ...hedgeChaosRows(),
  ...tracingRows(),
].filter((r) => only === undefined || only.includes(r.id) || only.includes(r.id.replace(/[a-z]$/, '')));

const started = Date.now();
const measured: RowResult[] = [];
for (const row of rows) {
  await row.prepare?.();
  const all = [row.floor, ...row.cases];
  const { figures, perRound } = await timeGroup(all, budget);
  if (verbose) {
    for (let i = 0; i < all.length; i++) process.stderr.write(`  ${all[i]!.name.slice(0, 44).padEnd(44)} ${perRound[i]!.map((x) => x.toFixed(0)).join(' ')}\n`);
  }
  const [floorNs, ...caseNs] = figures;
  const result: RowResult = {
    id: row.id,
    title: row.title,
    floor: { name: row.floor.name, side: 'floor', ns: floorNs! },
    cases: row.cases.map((c, i) => ({ name: c.name, side: c.side, ns: caseNs[i]!, informational: c.informational })),
  };
  measured.push(result);
  process.stderr.write(`row ${row.id} done (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
}
const memory: MemoryResult[] = withMemory ? await measureMemory(check ? 200_000 : 1_000_000) : [];
const scrape = withScrape ? [await measureScrape(10_000, check ? 1 : 3)] : [];
const redis = only === undefined || only.includes('11') ? await measureRedis() : [];
// Row 13: the simulator's engine, 1 h of 1 000 requests/s (a quarter of it for --check: judged as a rate).
const simulator = only === undefined || only.includes('13') ? [measureSimulator(check ? 15 : 60, 1)] : [];
// Row 15: the adaptive limiter's targets on the scenario the repository ships (a quality, not a speed).
const adaptiveScenario = only === undefined || only.includes('15') ? measureAdaptiveScenario() : undefined;
const results: Results = { rows: measured, memory, scrape, redis, simulator, adaptiveScenario };

const applicable = TARGETS.filter((t) => {
  try {
    t.judge(results);
    return true;
  } catch {
    return false; // a row not run (--only, --no-memory)
  }
});
const verdicts = applicable.map((t) => t.judge(results));
const seconds = ((Date.now() - started) / 1000).toFixed(0);

const cpu = cpus();
const machine = `${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} cores`;
const header = [
  `Machine: ${machine}`,
  `Node ${process.version}, ${process.platform}/${process.arch}`,
  `Breakwater code: ${breakwaterCode()}`,
  `Date: ${new Date().toISOString()}`,
  `Run: ${check ? 'check' : 'full'} (${budget.rounds} rounds × ${budget.msPerCase} ms per case; a round is the median of its samples, a case's figure its fastest round), ${seconds} s`,
];
console.log(header.join('\n'));
console.log(formatText(results, verdicts));

const missed = verdicts.filter((v) => !v.pass);
if (!check && only === undefined && withMemory) {
  const path = fileURLToPath(new URL('../RESULTS.md', import.meta.url));
  writeFileSync(path, renderResults(header, results, verdicts));
  console.log(`\nwrote ${path}`);
}
if (check) {
  console.log(
    missed.length === 0 ? `\nbench:check: all ${verdicts.length} targets hold` : `\nbench:check: ${missed.length} of ${verdicts.length} targets missed`,
  );
  process.exitCode = missed.length === 0 ? 0 : 1;
}

function renderResults(head: readonly string[], r: Results, v: Parameters<typeof formatMarkdown>[1]): string {
  return [
    '# Breakwater benchmarks — results',
    '',
    'Written by `pnpm bench` (see [README.md](README.md) for what each row measures and how the peers are configured).',
    "ns/op is per operation: the median of a round's samples, in the case's fastest round (README.md, Method);",
    '"× floor" divides by the row\'s floor (the bare work with no library);',
    '"× best peer" by the fastest peer of the row. A target speaks of *overhead*: ns/op minus the floor.',
    '',
    ...head.map((l) => `- ${l}`),
    '',
    formatMarkdown(r, v),
  ].join('\n');
}
