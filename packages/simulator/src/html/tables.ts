// The report's tables, rendered on the server side as static HTML (readable with scripts off):
// the ranking, the totals of every configuration, and per configuration its settings, its counts
// per phase and its state changes with their cause. Written with `html`, which escapes every value.
import { meanCounts } from '../counts.js';
import { formatMs } from '../format.js';
import { RANKING_CRITERIA, standingsOf, type Spread, type Standing } from '../ranking.js';
import type { ConfigurationResult, Counts, SimulationReport } from '../report.js';
import { configurationColors } from './chart-data.js';
import { hedgeChaosHtml } from './hedge-chaos.js';
import { type Html, html } from './html.js';

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

/** A count, or the mean of counts over seeds: whole when it is, else with one decimal. */
function int(n: number | null): string {
  if (n === null || !Number.isFinite(n)) return '—';
  return n.toLocaleString('en-US', { maximumFractionDigits: Number.isInteger(n) ? 0 : 1 });
}

function swatch(color: string): Html {
  return html`<span class="swatch" style="background:${color}"></span>`;
}

// `unfinished` (requests still waiting when the run ended) gets a column only where there were some.
function countHeaders(unfinished: boolean): Html {
  return html`<th>requests</th><th>succeeded</th><th>failed</th><th>rejected</th>${unfinished && html`<th>unfinished</th>`}<th>slow</th><th>time-outs</th><th>retries</th><th title="breaker calls per request">breaker calls / req</th>`;
}

function hasUnfinished(counts: readonly Counts[]): boolean {
  return counts.some((c) => (c.unfinished ?? 0) > 0);
}

function countCells(c: Counts, unfinished: boolean): Html {
  const pct = (n: number): Html | false => c.requests > 0 && html` <small>${trim((n / c.requests) * 100, 1)} %</small>`;
  const cells: (string | [string, Html | false])[] = [
    int(c.requests),
    [int(c.succeeded), pct(c.succeeded)],
    [int(c.failed), pct(c.failed)],
    [int(c.rejected), pct(c.rejected)],
    ...(unfinished ? [[int(c.unfinished ?? 0), pct(c.unfinished ?? 0)] as [string, Html | false]] : []),
    int(c.slow),
    int(c.timeouts),
    int(c.retries),
    c.breakerCallsPerRequest.toFixed(2),
  ];
  return html`${cells.map((v) => html`<td>${v}</td>`)}`;
}

function settingsText(c: ConfigurationResult): Html {
  // One unbreakable span per setting: a narrow column wraps between settings, not inside one.
  // A sweep's configuration is named by its settings: they are not written twice.
  const settings = Object.entries(c.settings).map(([k, v]) => `${k}=${String(v)}`);
  if (settings.join(' ') === c.name) return html``;
  return html`${settings.map((s, i) => html`${i > 0 && ' '}<span>${s}</span>`)}`;
}

/** The seeds of a report: `scenario.seeds`, or the one seed. */
const seedsOf = (report: SimulationReport): readonly number[] => report.scenario.seeds ?? [report.scenario.seed];

/** A score's mean, and its range over the seeds when there are several. */
function spreadHtml(s: Spread, several: boolean, inline = false): Html {
  if (!several || s.min === s.max) return html`${int(s.mean)}`;
  const range = `${int(s.min)}–${int(s.max)}`;
  return html`${int(s.mean)}${inline ? html` <small class="range">(${range})</small>` : html`<small class="range">range ${range}</small>`}`;
}

/** A tie group's badge: `tie #2–#3`. */
function tieText(standing: readonly Standing[], tie: number): string {
  const last = standing.filter((st) => st.tie === tie).at(-1)?.rank ?? tie;
  return `tie #${tie}–#${last}`;
}

/** What the standings say about ties, or that one seed cannot tell noise from a difference. */
function verdictHtml(report: SimulationReport, standing: readonly Standing[]): Html {
  const seeds = seedsOf(report);
  const groups = new Map<number, Standing[]>();
  for (const st of standing) if (st.tie !== null) groups.set(st.tie, [...(groups.get(st.tie) ?? []), st]);
  const ties = [...groups.values()].map((g) => {
    const why = seeds.length > 1 ? `each did as well as #${g[0]!.rank} on at least one of the ${seeds.length} seeds` : 'the same failed + rejected';
    return html`<li><strong>A tie: #${g[0]!.rank}–#${g.at(-1)!.rank}</strong> (${why}): the data cannot tell them apart on what users saw go wrong.</li>`;
  });
  const noise =
    seeds.length > 1
      ? html`<li>Ranked by the means over ${seeds.length} seeds (${seeds.join(', ')}); a range is the lowest and highest over them. The charts and the details below are the run with seed ${seeds[0]}.</li>`
      : html`<li>Ranked on one seed (${seeds[0]}): a difference of a few requests may be noise. <code>--seeds 5</code> runs each configuration on 5 seeds and says which are a tie.</li>`;
  return html`<ul class="verdict">${ties}${noise}</ul>`;
}

/**
 * The ranking (best first, each with its score and tie group) and what it can tell, or nothing
 * with a single configuration.
 *
 * @example
 * ```ts
 * String(rankingHtml(report)); // '<section id="ranking">…<ol>…</ol></section>'
 * ```
 */
export function rankingHtml(report: SimulationReport): Html {
  const standing = standingsOf(report);
  if (report.configurations.length < 2 || standing.length === 0) return html``;
  const colors = colorsByName(report);
  const several = seedsOf(report).length > 1;
  const items = standing.map((st) => {
    const tie = st.tie !== null && html` <span class="tie">${tieText(standing, st.tie)}</span>`;
    const score = html`${spreadHtml(st.score.notSucceeded, several, true)} failed + rejected · ${int(st.score.failed.mean)} failed`;
    return html`<li value="${st.rank}">${swatch(colors.get(st.name) ?? '#888')}<span class="name">${st.name}</span> — ${score}${tie}</li>`;
  });
  return html`<section id="ranking"><h2>Ranking</h2><p class="note">Best first, by ${RANKING_CRITERIA.join(', then ')} (fewest / shortest first).</p>${verdictHtml(report, standing)}<ol>${items}</ol></section>`;
}

function colorsByName(report: SimulationReport): Map<string, string> {
  const colors = configurationColors(report);
  return new Map(report.configurations.map((c, i) => [c.name, colors[i]!]));
}

/** The configurations best first (run order without a ranking), with their run index. */
function ranked(report: SimulationReport): { c: ConfigurationResult; i: number; st: Standing | undefined }[] {
  const standing = new Map(standingsOf(report).map((st) => [st.name, st]));
  const all = report.configurations.map((c, i) => ({ c, i, st: standing.get(c.name) }));
  return all.sort((a, b) => (a.st?.rank ?? Infinity) - (b.st?.rank ?? Infinity) || a.i - b.i);
}

/**
 * One row per configuration, best first: its rank and score (failed + rejected, its range over the
 * seeds, its tie), settings, totals (means over the seeds), time to open and to recover, state changes.
 *
 * @example
 * ```ts
 * String(summaryHtml(report)); // '<section id="summary">…<table>…</table></section>'
 * ```
 */
export function summaryHtml(report: SimulationReport): Html {
  const unfinished = hasUnfinished(report.configurations.map((c) => c.totals));
  const colors = configurationColors(report);
  const several = seedsOf(report).length > 1;
  const scored = report.ranking.length > 0;
  const standings = standingsOf(report);
  const rows = ranked(report).map(({ c, i, st }) => {
    const rank = scored && html`<td class="rank">${st?.rank ?? ''}</td>`;
    const score =
      scored &&
      (st !== undefined
        ? html`<td class="score">${spreadHtml(st.score.notSucceeded, several)}${st.tie !== null && html`<small class="tie">${tieText(standings, st.tie)}</small>`}</td>`
        : html`<td></td>`);
    return html`<tr>${rank}<th scope="row">${swatch(colors[i]!)}<a href="#config-${i}">${c.name}</a><div class="settings">${settingsText(c)}</div></th>${score}${countCells(meanCounts(c), unfinished)}<td>${formatMs(c.timeToOpenMs)}</td><td>${formatMs(c.timeToRecoverMs)}</td><td>${c.transitions.length}</td></tr>`;
  });
  const scoreTitle = `the ranking's first criterion${several ? ': the mean over the seeds, and its range' : ''}`;
  const head = html`${scored && html`<th title="rank">#</th>`}<th class="name">configuration</th>${scored && html`<th title="${scoreTitle}">failed + rejected</th>`}${countHeaders(unfinished)}<th>time to open</th><th>time to recover</th><th>state changes</th>`;
  const note =
    several &&
    html`<p class="note">Counts are means over ${seedsOf(report).length} seeds; times and state changes are the run with seed ${report.scenario.seed}.</p>`;
  return html`<section id="summary"><h2>Totals</h2>${note}<div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

/**
 * Every configuration's details, best first (see {@link configurationHtml}).
 *
 * @example
 * ```ts
 * String(configurationsHtml(report)); // '<section class="configuration" id="config-2">…'
 * ```
 */
export function configurationsHtml(report: SimulationReport): Html {
  const colors = configurationColors(report);
  return html`${ranked(report).map(({ c, i, st }, n) => html`${n > 0 && '\n'}${configurationHtml(c, i, colors[i]!, st?.rank)}`)}`;
}

/**
 * Per configuration: its settings and thresholds, its counts per phase with the total, and every
 * state change with its cause. `index` is its place in the run order (the anchor `#config-N`),
 * `color` its colour in the charts, `rank` its place in the ranking.
 *
 * @example
 * ```ts
 * String(configurationHtml(report.configurations[0]!, 0, '#0072B2', 1)); // '<section class="configuration" id="config-0">…'
 * ```
 */
export function configurationHtml(c: ConfigurationResult, index: number, color: string, rank?: number): Html {
  const unfinished = hasUnfinished([c.totals, ...c.phases]);
  // The latencies of the requests that succeeded, when the report has them (a run's does; one made by hand may not).
  const latency = c.totals.latencyP50Ms !== undefined;
  const latencyCells = (n: Counts) => latency && html`<td>${formatMs(n.latencyP50Ms ?? null)}</td><td>${formatMs(n.latencyP99Ms ?? null)}</td>`;
  const phases = c.phases.map((p) => html`<tr><th scope="row">${p.name}</th>${countCells(p, unfinished)}${latencyCells(p)}</tr>`);
  const total = html`<tr class="total"><th scope="row">total</th>${countCells(c.totals, unfinished)}${latencyCells(c.totals)}</tr>`;
  const changes = c.transitions.map(
    (t) => html`<tr><td>${formatClock(t.atMs)}</td><td><span class="state">${t.from}</span> → <span class="state">${t.to}</span></td><td>${t.cause}</td></tr>`,
  );
  const changesTable =
    changes.length === 0
      ? html`<p class="note">No state change: the breaker stayed in its initial state.</p>`
      : html`<table class="changes"><thead><tr><th>at</th><th>change</th><th>cause</th></tr></thead><tbody>${changes}</tbody></table>`;
  return html`<section class="configuration" id="config-${index}"><h3>${swatch(color)}${rank !== undefined && `#${rank} `}${c.name}</h3>
<p class="settings">${settingsText(c)}</p>
<p class="note">Thresholds: failure rate ${trim(c.thresholds.failureRateThreshold, 2)} %, slow calls ${trim(c.thresholds.slowCallRateThreshold, 2)} %. ${openedText(c)}</p>
<h4>Per phase</h4><div class="scroll"><table><thead><tr><th>phase</th>${countHeaders(unfinished)}${latency && html`<th title="median latency of the requests that succeeded">p50</th><th title="99th percentile">p99</th>`}</tr></thead><tbody>${phases}${total}</tbody></table></div>
${hedgeChaosHtml(c)}<h4>State changes</h4>${changesTable}</section>`;
}

function openedText(c: ConfigurationResult): string {
  if (c.timeToOpenMs === null) return 'It never opened.';
  const recovered = c.timeToRecoverMs === null ? 'it did not close again' : `it was CLOSED again ${formatMs(c.timeToRecoverMs)} later`;
  return `It first opened at ${formatMs(c.timeToOpenMs)}; ${recovered}.`;
}
