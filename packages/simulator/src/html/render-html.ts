import type { SimulationReport } from '../report.js';
import { chartData } from './chart-data.js';
import { page } from './page.js';
import { uplotAssets } from './uplot-assets.js';

/**
 * Renders a simulation report as one self-contained HTML page (the CLI's `--html report.html`):
 * uPlot and the chart code inlined, a Content-Security-Policy that forbids any network fetch, so
 * the file opens anywhere, offline, from disk or as a CI artifact.
 *
 * The page holds, for every configuration compared: the ranking (with more than one), a totals
 * table, and over simulated time the breaker's state (a lane per configuration), the failure and
 * slow-call rates against their thresholds, rejections and failures per second against the
 * requests, and the window's fill; then per configuration its counts per phase and every state
 * change with its cause. Charts share a cursor and zoom.
 *
 * Names and labels are user input: they reach the page escaped (text, never markup). The charts'
 * data is a `<script type="application/json">` block written so that nothing in it can close the
 * block (`<`, `>`, `&`, U+2028, U+2029 as `\uXXXX`), read with `JSON.parse`.
 *
 * @example
 * ```ts
 * import { writeFileSync } from 'node:fs';
 * import { renderHtml } from '@breakwater/simulator';
 *
 * writeFileSync('report.html', renderHtml(report)); // report: a SimulationReport from a run
 * ```
 */
export function renderHtml(report: SimulationReport): string {
  return page(report, chartData(report), uplotAssets());
}
