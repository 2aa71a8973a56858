// The page template: one self-contained HTML document, written with `html` (every value escaped;
// `raw` only for our own constants, inlined code and CSS, and the JSON block). Its Content-Security-Policy forbids every
// network fetch (default-src 'none'); the only code is inline (uPlot and the chart script), the
// only styles inline, images only data: URLs. The data sits in a JSON block that the chart
// script parses.
import type { SimulationReport } from '../report.js';
import type { ChartData } from './chart-data.js';
import { CHART_SCRIPT, PAGE_CSS } from './client-script.generated.js';
import { inlineScript, inlineStyle, jsonForScript } from './escape.js';
import { type Html, html, raw } from './html.js';
import { formatMs } from '../format.js';
import { configurationsHtml, formatClock, rankingHtml, summaryHtml } from './tables.js';
import type { UplotAssets } from './uplot-assets.js';

/** The page's Content-Security-Policy: nothing from the network, inline scripts and styles only (a constant with no `"`, `<` or `&`: the page inserts it with `raw`). */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

// Each chart: its container's data-chart name, its title and what it shows.
const CHARTS: readonly (readonly [string, string, string])[] = [
  ['timeline', 'Breaker state', 'one lane per configuration, coloured by the state the breaker was in'],
  ['failure-rate', 'Failure rate against its threshold', "the breaker's window at the end of each bucket, % (a gap: fewer calls than the minimum)"],
  ['slow-call-rate', 'Slow-call rate against its threshold', "the breaker's window at the end of each bucket, %"],
  [
    'rejected',
    'Rejections per second',
    'requests refused by a policy, against the requests that arrived (grey; dotted per configuration when their traffic differs)',
  ],
  ['failed', 'Failures per second', 'requests that ended with an error or a time-out, against the requests that arrived'],
  [
    'window-fill',
    "The window's fill",
    "calls in the breaker's window, % of its size (TIME_BASED: of the minimum number of calls); rates count from 100 % of the minimum",
  ],
];

function stateKey(data: ChartData): Html {
  const items = data.states.map((s, i) => html`<span><span class="swatch" style="background:${data.stateColors[i]}"></span>${s}</span>`);
  return html`<div class="key">${items}</div>`;
}

// How colours are given: by rank; past 8 configurations the best 6 keep theirs and the others are grey.
function colorsNote(data: ChartData): Html | false {
  const greys = data.configurations.filter((c) => !c.highlighted);
  if (greys.length === 0) return false;
  const shown = data.configurations.length - greys.length;
  return html`<p class="note" id="colors">Colours by rank: the best ${shown} have their own, in every chart and table; the other ${greys.length} (#${greys[0]!.rank ?? shown + 1}–#${greys.at(-1)!.rank ?? data.configurations.length}) are grey, thinner, under them, left out of the legends and named in the breaker-state lanes. Dashed lines of a colour are that configuration's threshold.</p>`;
}

// A last point wider than the others: answers long after the traffic, folded into it (the series is bounded).
function folded(data: ChartData): Html | false {
  if (data.foldedUntilSeconds === null) return false;
  return html`<p class="note" id="folded">The last point also holds what happened up to ${formatClock(data.foldedUntilSeconds * 1000)} (${formatMs(data.foldedUntilSeconds * 1000)}): answers that came long after the traffic, folded into it; its values are per second over its whole width.</p>`;
}

/** Charts a report has only with their data: latencies (a report made by an older version has none), an adaptive limit. */
const LATENCY_CHART = ['latency', 'Median latency', 'of the requests that succeeded in each bucket, ms, from arrival to answer'] as const;
const LIMIT_CHART = [
  'adaptive-limit',
  "Adaptive limit against the backend's capacity",
  "each adaptive limiter's limit at the end of each bucket; the backend's capacity (calls served at once) in grey",
] as const;

function charts(data: ChartData): Html {
  const shown = [...CHARTS, ...(data.hasLatency ? [LATENCY_CHART] : []), ...(data.configurations.some((c) => c.limit !== null) ? [LIMIT_CHART] : [])];
  const figures = shown.map(
    ([id, title, caption], n) =>
      html`${n > 0 && '\n'}<figure><figcaption>${title} <span>— ${caption}</span></figcaption>${id === 'timeline' && stateKey(data)}<div class="chart" data-chart="${id}"></div></figure>`,
  );
  return html`<section id="charts"><h2>Over time</h2><p class="note">Simulated time (m:ss), one point per ${formatMs(data.bucketSeconds * 1000)} bucket; dashed lines mark the phases. Hover to read every chart at one instant; drag to zoom, double-click to zoom out.</p>${colorsNote(data)}${folded(data)}${figures}</section>`;
}

function header(report: SimulationReport): Html {
  const s = report.scenario;
  const phases = s.phases.map((p, n) => html`${n > 0 && ', '}${p.name} ${formatClock(p.startMs)}–${formatClock(p.endMs)}`);
  const file = s.file !== undefined && html` · file <code>${s.file}</code>`;
  const count = report.configurations.length;
  return html`<header><h1>${s.name}</h1>
<p class="meta">Breakwater simulation · ${formatMs(s.durationMs)} of simulated traffic · seed ${s.seed}${file} · ${count} configuration${count === 1 ? '' : 's'}</p>
<p class="meta">Phases: ${phases.length === 0 ? '—' : phases}</p></header>`;
}

/**
 * Assembles the page from the report, its chart data and uPlot's assets.
 *
 * @example
 * ```ts
 * const html = page(report, chartData(report), uplotAssets());
 * ```
 */
export function page(report: SimulationReport, data: ChartData, uplot: UplotAssets): string {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${raw(CONTENT_SECURITY_POLICY)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="@breakwater/simulator">
<title>${report.scenario.name} · Breakwater simulation</title>
<style>${raw(inlineStyle(uplot.css))}</style>
<style>${raw(inlineStyle(PAGE_CSS))}</style>
</head>
<body>
<main>
${header(report)}
${rankingHtml(report)}
${summaryHtml(report)}
${charts(data)}
<section id="configurations"><h2>Per configuration</h2>
${configurationsHtml(report)}
</section>
<footer>Generated by @breakwater/simulator. Charts drawn with uPlot ${uplot.version} (MIT License), inlined: this page loads nothing from the network.</footer>
</main>
<script type="application/json" id="report-data">${raw(jsonForScript(data))}</script>
<script>${raw(inlineScript(uplot.js))}</script>
<script>${raw(inlineScript(CHART_SCRIPT))}</script>
</body>
</html>
`.toString();
}
