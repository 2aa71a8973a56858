import { fixed2, formatMs, percent, table } from './format.js';
import { RANKING_CRITERIA, standingsOf, type Standing } from './ranking.js';
import { meanCounts } from './counts.js';
import { hedgeChaosLines } from './hedge-chaos-counts.js';
import type { ConfigurationResult, Counts, SimulationReport } from './report.js';

const COUNT_HEADER = ['requests', 'succeeded', 'failed', 'rejected', 'slow', 'time-outs', 'retries', 'breaker calls/request', 'p50', 'p99'];

function countCells(c: Counts): (string | number)[] {
  return [
    mean(c.requests),
    mean(c.succeeded),
    mean(c.failed),
    mean(c.rejected),
    mean(c.slow),
    mean(c.timeouts),
    mean(c.retries),
    fixed2(c.breakerCallsPerRequest),
    latency(c.latencyP50Ms),
    latency(c.latencyP99Ms),
  ];
}

/** A latency for the table: `44 ms`, `1.25 s`; `—` when no request succeeded. */
const latency = (ms: number | null | undefined): string => formatMs(ms ?? null);

/** The adaptive limit at each phase's end, with its range over the phase (from the series' buckets). */
function limitLine(c: ConfigurationResult, phases: SimulationReport['scenario']['phases']): string | undefined {
  const { limit, t, capacity } = c.series;
  if (limit === undefined || limit.length === 0) return undefined;
  const parts = phases.map((p) => {
    const inPhase = limit.filter((_, i) => t[i]! >= p.startMs && t[i]! < p.endMs);
    if (inPhase.length === 0) return `${p.name} —`;
    const last = inPhase.at(-1)!;
    let end = -1;
    t.forEach((start, i) => {
      if (start >= p.startMs && start < p.endMs) end = i;
    });
    const cap = capacity?.[end];
    return `${p.name} ${last} (${Math.min(...inPhase)}–${Math.max(...inPhase)}${cap === undefined || cap === null ? '' : `; capacity ${cap}`})`;
  });
  return `   adaptive limit at each phase's end (its range over the phase): ${parts.join(', ')}`;
}

function settingsLine(c: ConfigurationResult): string {
  return Object.entries(c.settings)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}

function transitionsBlock(c: ConfigurationResult, shown: number): string[] {
  if (c.transitions.length === 0) return ['   the breaker never changed state'];
  const lines = c.transitions.slice(0, shown).map((t) => `   ${formatMs(t.atMs).padStart(10)}  ${t.from} → ${t.to}  (${t.cause.replaceAll('_', ' ')})`);
  if (c.transitions.length > shown) lines.push(`   … and ${c.transitions.length - shown} more state changes (--json has them all)`);
  return lines;
}

/**
 * Options of {@link renderTable}.
 *
 * @example
 * ```ts
 * console.log(renderTable(report, { transitions: 50 }));
 * ```
 */
export interface TableOptions {
  /** State changes listed per configuration before "… and N more" (default 12). */
  readonly transitions?: number;
}

/**
 * The report as the terminal shows it: the scenario, one row per configuration (ranked when there
 * are several, with the score that ranks them, its range over the seeds and the ties), then each
 * configuration's phases and state changes with their causes.
 *
 * @example
 * ```ts
 * console.log(renderTable(simulate(parseScenarioFile('examples/scenarios/count-vs-time.yml'))));
 * ```
 */
export function renderTable(report: SimulationReport, options: TableOptions = {}): string {
  const shown = options.transitions ?? 12;
  const s = report.scenario;
  const seeds = s.seeds ?? [s.seed];
  const out: string[] = [];
  out.push(`${s.name}${s.file === undefined ? '' : ` (${s.file})`}: ${seedsText(seeds)}, ${formatMs(s.durationMs)} of traffic`);
  out.push(`phases: ${s.phases.map((p) => `${p.name} ${formatMs(p.startMs)}–${formatMs(p.endMs)}`).join(', ')}`);
  out.push('');
  const standing = standingsOf(report);
  const byName = new Map(report.configurations.map((c) => [c.name, c]));
  const order = standing.length > 0 ? standing.map((st) => byName.get(st.name)!) : report.configurations;
  const ranked = standing.length > 0;
  const several = seeds.length > 1;
  const ties = standing.some((st) => st.tie !== null);
  const header = [
    ...(ranked ? ['#', 'configuration', 'failed + rejected', ...(several ? ['range'] : []), ...(ties ? ['tie'] : [])] : ['configuration']),
    ...COUNT_HEADER,
    'time to open',
    'time to recover',
  ];
  const rows = order.map((c, i) => {
    const st = standing[i];
    const score =
      st === undefined
        ? []
        : [
            i + 1,
            c.name,
            mean(st.score.notSucceeded.mean),
            ...(several ? [`${st.score.notSucceeded.min}–${st.score.notSucceeded.max}`] : []),
            ...(ties ? [st.tie === null ? '' : `=#${st.tie}`] : []),
          ];
    return [...(ranked ? score : [c.name]), ...countCells(meanCounts(c)), formatMs(c.timeToOpenMs), formatMs(c.timeToRecoverMs)];
  });
  out.push(table(header, rows));
  if (ranked) {
    out.push(`ranked by${several ? ` the means over ${seeds.length} seeds of` : ''}: ${RANKING_CRITERIA.join(', then ')} (fewest / shortest first)`);
    out.push(...tieLines(standing, seeds.length));
    if (!several)
      out.push(`ranked on one seed (${s.seed}): a difference of a few requests may be noise; --seeds 5 runs 5 seeds and says which configurations are a tie`);
    if (several) out.push(`counts are means over the seeds; times, phases and state changes are the run with seed ${s.seed}`);
  }
  for (const c of report.configurations) {
    out.push('', `${c.name}${Object.keys(c.settings).length > 0 ? `   [${settingsLine(c)}]` : ''}${several ? `   (seed ${s.seed})` : ''}`);
    out.push(
      table(
        ['phase', ...COUNT_HEADER, 'rejected %', 'succeeded/s'],
        c.phases.map((p, i) => [p.name, ...countCells(p), percent(p.rejected, p.requests), perSecond(p.succeeded, s.phases[i])]),
      )
        .split('\n')
        .map((l) => `   ${l}`)
        .join('\n'),
    );
    const unfinished = c.totals.unfinished ?? 0;
    if (unfinished > 0) out.push(`   ${unfinished} requests were still waiting at the end (a backend that hangs with no time limiter)`);
    const overloaded = c.totals.overloaded ?? 0;
    if (overloaded > 0) out.push(`   ${overloaded} backend calls failed at once with a 503 (every server busy, its queue full): counted in failed`);
    out.push(...hedgeChaosLines(meanCounts(c), c.phases));
    const limits = limitLine(c, s.phases);
    if (limits !== undefined) out.push(limits);
    out.push(...transitionsBlock(c, shown));
  }
  return out.join('\n');
}

function seedsText(seeds: readonly number[]): string {
  if (seeds.length === 1) return `seed ${seeds[0]}`;
  return seeds.length <= 6 ? `seeds ${seeds.join(', ')}` : `seeds ${seeds[0]} … ${seeds.at(-1)} (${seeds.length} seeds)`;
}

/** Requests per second over a phase (goodput, for the succeeded). */
const perSecond = (n: number, phase: { startMs: number; endMs: number } | undefined): string =>
  phase === undefined || phase.endMs <= phase.startMs ? '—' : ((n * 1000) / (phase.endMs - phase.startMs)).toFixed(1);

/** A mean for the table: whole when it is, else one decimal. */
const mean = (v: number | null): string => (v === null ? '—' : Number.isInteger(v) ? String(v) : v.toFixed(1));

/** Each tie group on a line: its ranks, and why it is one. */
function tieLines(standing: readonly Standing[], seeds: number): string[] {
  const groups = new Map<number, number[]>();
  for (const st of standing) if (st.tie !== null) groups.set(st.tie, [...(groups.get(st.tie) ?? []), st.rank]);
  return [...groups.values()].map((ranks) => {
    const why = seeds > 1 ? `each did as well as #${ranks[0]} on at least one of the ${seeds} seeds` : 'the same failed + rejected';
    return `a tie: #${ranks[0]}–#${ranks.at(-1)} (${why}: the data cannot tell them apart on what users saw go wrong)`;
  });
}
