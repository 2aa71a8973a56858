import { fixed2, formatMs, percent, table } from './format.js';
import { RANKING_CRITERIA } from './ranking.js';
import type { ConfigurationResult, Counts, SimulationReport } from './report.js';

const COUNT_HEADER = ['requests', 'succeeded', 'failed', 'rejected', 'slow', 'time-outs', 'retries', 'breaker calls/request'];

function countCells(c: Counts): (string | number)[] {
  return [c.requests, c.succeeded, c.failed, c.rejected, c.slow, c.timeouts, c.retries, fixed2(c.breakerCallsPerRequest)];
}

function settingsLine(c: ConfigurationResult): string {
  return Object.entries(c.settings).map(([k, v]) => `${k}=${v}`).join(' ');
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
 * are several), then each configuration's phases and state changes with their causes.
 *
 * @example
 * ```ts
 * console.log(renderTable(simulate(parseScenarioFile('examples/scenarios/count-vs-time.yml'))));
 * ```
 */
export function renderTable(report: SimulationReport, options: TableOptions = {}): string {
  const shown = options.transitions ?? 12;
  const s = report.scenario;
  const out: string[] = [];
  out.push(`${s.name}${s.file === undefined ? '' : ` (${s.file})`}: seed ${s.seed}, ${formatMs(s.durationMs)} of traffic`);
  out.push(`phases: ${s.phases.map((p) => `${p.name} ${formatMs(p.startMs)}–${formatMs(p.endMs)}`).join(', ')}`);
  out.push('');
  const order = report.ranking.length > 0 ? report.ranking.map((name) => report.configurations.find((c) => c.name === name)!) : report.configurations;
  const ranked = report.ranking.length > 0;
  out.push(
    table(
      [...(ranked ? ['#'] : []), 'configuration', ...COUNT_HEADER, 'time to open', 'time to recover'],
      order.map((c, i) => [...(ranked ? [i + 1] : []), c.name, ...countCells(c.totals), formatMs(c.timeToOpenMs), formatMs(c.timeToRecoverMs)]),
    ),
  );
  if (ranked) out.push(`ranked by: ${RANKING_CRITERIA.join(', then ')} (fewest / shortest first)`);
  for (const c of report.configurations) {
    out.push('', `${c.name}${Object.keys(c.settings).length > 0 ? `   [${settingsLine(c)}]` : ''}`);
    out.push(
      table(
        ['phase', ...COUNT_HEADER, 'rejected %'],
        c.phases.map((p) => [p.name, ...countCells(p), percent(p.rejected, p.requests)]),
      )
        .split('\n')
        .map((l) => `   ${l}`)
        .join('\n'),
    );
    const unfinished = c.totals.unfinished ?? 0;
    if (unfinished > 0) out.push(`   ${unfinished} requests were still waiting at the end (a backend that hangs with no time limiter)`);
    out.push(...transitionsBlock(c, shown));
  }
  return out.join('\n');
}
