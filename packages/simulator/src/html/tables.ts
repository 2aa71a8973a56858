// The report's tables, rendered on the server side as static HTML (readable with scripts off):
// the ranking, the totals of every configuration, and per configuration its settings, its counts
// per phase and its state changes with their cause. Every user-given string goes through escapeHtml.
import type { ConfigurationResult, Counts, SimulationReport } from '../report.js';
import { configurationColor } from './chart-data.js';
import { escapeHtml as e } from './escape.js';

/**
 * A simulated duration or instant for people: `850 ms`, `12.5 s`, `2 min 05 s`, `1 h 02 min`.
 *
 * @example
 * ```ts
 * formatMs(125_000); // '2 min 05 s'
 * ```
 */
export function formatMs(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '—';
  if (Math.abs(ms) < 1000) return `${trim(ms, 0)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${trim(s, 1)} s`;
  const whole = Math.round(s);
  const [h, m, r] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  return h > 0 ? `${h} h ${String(m).padStart(2, '0')} min` : `${m} min ${String(r).padStart(2, '0')} s`;
}

/**
 * A simulated instant as a clock reading from the start: `1:31.7`, `1:02:05.0`.
 *
 * @example
 * ```ts
 * formatClock(91_700); // '1:31.7'
 * ```
 */
export function formatClock(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const tenths = Math.round(ms / 100);
  const [h, m, s] = [Math.floor(tenths / 36_000), Math.floor((tenths % 36_000) / 600), (tenths % 600) / 10];
  const ss = s.toFixed(1).padStart(4, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

function trim(n: number, digits: number): string {
  return String(Number(n.toFixed(digits)));
}

function int(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—';
}

function swatch(index: number): string {
  return `<span class="swatch" style="background:${configurationColor(index)}"></span>`;
}

// `unfinished` (requests still waiting when the run ended) gets a column only where there were some.
function countHeaders(unfinished: boolean): string {
  return `<th>requests</th><th>succeeded</th><th>failed</th><th>rejected</th>${unfinished ? '<th>unfinished</th>' : ''}<th>slow</th><th>time-outs</th><th>retries</th><th title="breaker calls per request">breaker calls / req</th>`;
}

function hasUnfinished(counts: readonly Counts[]): boolean {
  return counts.some((c) => (c.unfinished ?? 0) > 0);
}

function countCells(c: Counts, unfinished: boolean): string {
  const pct = (n: number): string => (c.requests > 0 ? ` <small>${trim((n / c.requests) * 100, 1)} %</small>` : '');
  return [
    int(c.requests),
    int(c.succeeded) + pct(c.succeeded),
    int(c.failed) + pct(c.failed),
    int(c.rejected) + pct(c.rejected),
    ...(unfinished ? [int(c.unfinished ?? 0) + pct(c.unfinished ?? 0)] : []),
    int(c.slow),
    int(c.timeouts),
    int(c.retries),
    c.breakerCallsPerRequest.toFixed(2),
  ]
    .map((v) => `<td>${v}</td>`)
    .join('');
}

function settingsText(c: ConfigurationResult): string {
  // One unbreakable span per setting: a narrow column wraps between settings, not inside one.
  return Object.entries(c.settings)
    .map(([k, v]) => `<span>${e(`${k}=${String(v)}`)}</span>`)
    .join(' ');
}

/**
 * The ranking (an ordered list, best first), or an empty string with a single configuration.
 *
 * @example
 * ```ts
 * rankingHtml(report); // '<section id="ranking">…<ol>…</ol></section>'
 * ```
 */
export function rankingHtml(report: SimulationReport): string {
  if (report.configurations.length < 2 || report.ranking.length === 0) return '';
  const index = new Map(report.configurations.map((c, i) => [c.name, i]));
  const items = report.ranking.map((name) => {
    const i = index.get(name);
    return `<li>${i === undefined ? '' : swatch(i)}${e(name)}</li>`;
  });
  return `<section id="ranking"><h2>Ranking</h2><p class="note">Best first (the simulator's README says how configurations are ranked).</p><ol>${items.join('')}</ol></section>`;
}

/**
 * One row per configuration: settings, totals, time to open and to recover, state changes.
 *
 * @example
 * ```ts
 * summaryHtml(report); // '<section id="summary">…<table>…</table></section>'
 * ```
 */
export function summaryHtml(report: SimulationReport): string {
  const unfinished = hasUnfinished(report.configurations.map((c) => c.totals));
  const rows = report.configurations.map(
    (c, i) =>
      `<tr><th scope="row">${swatch(i)}<a href="#config-${i}">${e(c.name)}</a><div class="settings">${settingsText(c)}</div></th>${countCells(c.totals, unfinished)}<td>${formatMs(c.timeToOpenMs)}</td><td>${formatMs(c.timeToRecoverMs)}</td><td>${c.transitions.length}</td></tr>`,
  );
  return `<section id="summary"><h2>Totals</h2><div class="scroll"><table><thead><tr><th>configuration</th>${countHeaders(unfinished)}<th>time to open</th><th>time to recover</th><th>state changes</th></tr></thead><tbody>${rows.join('')}</tbody></table></div></section>`;
}

/**
 * Per configuration: its settings and thresholds, its counts per phase with the total, and every
 * state change with its cause.
 *
 * @example
 * ```ts
 * configurationHtml(report.configurations[0]!, 0); // '<section class="configuration" id="config-0">…'
 * ```
 */
export function configurationHtml(c: ConfigurationResult, index: number): string {
  const unfinished = hasUnfinished([c.totals, ...c.phases]);
  const phases = c.phases.map((p) => `<tr><th scope="row">${e(p.name)}</th>${countCells(p, unfinished)}</tr>`);
  const total = `<tr class="total"><th scope="row">total</th>${countCells(c.totals, unfinished)}</tr>`;
  const changes = c.transitions.map(
    (t) =>
      `<tr><td>${formatClock(t.atMs)}</td><td><span class="state">${e(t.from)}</span> → <span class="state">${e(t.to)}</span></td><td>${e(t.cause)}</td></tr>`,
  );
  const changesTable =
    changes.length === 0
      ? '<p class="note">No state change: the breaker stayed in its initial state.</p>'
      : `<table class="changes"><thead><tr><th>at</th><th>change</th><th>cause</th></tr></thead><tbody>${changes.join('')}</tbody></table>`;
  return `<section class="configuration" id="config-${index}"><h3>${swatch(index)}${e(c.name)}</h3>
<p class="settings">${settingsText(c)}</p>
<p class="note">Thresholds: failure rate ${trim(c.thresholds.failureRateThreshold, 2)} %, slow calls ${trim(c.thresholds.slowCallRateThreshold, 2)} %. ${openedText(c)}</p>
<h4>Per phase</h4><div class="scroll"><table><thead><tr><th>phase</th>${countHeaders(unfinished)}</tr></thead><tbody>${phases.join('')}${total}</tbody></table></div>
<h4>State changes</h4>${changesTable}</section>`;
}

function openedText(c: ConfigurationResult): string {
  if (c.timeToOpenMs === null) return 'It never opened.';
  const recovered = c.timeToRecoverMs === null ? 'it did not close again' : `it was CLOSED again ${formatMs(c.timeToRecoverMs)} later`;
  return `It first opened at ${formatMs(c.timeToOpenMs)}; ${recovered}.`;
}
