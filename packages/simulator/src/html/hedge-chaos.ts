// A configuration's hedge and chaos counts in the HTML report, per phase with the total: the extra
// calls a hedge cost and which attempt answered, what the chaos layers injected. Nothing for a
// configuration with neither. Written with `html`, which escapes every value.
import { hedgeLoadText, hedgeWinsText } from '../hedge-chaos-counts.js';
import type { ConfigurationResult, Counts } from '../report.js';
import { type Html, html } from './html.js';

const int = (v: number | undefined): string => (v === undefined ? '—' : v.toLocaleString('en-US', { maximumFractionDigits: Number.isInteger(v) ? 0 : 1 }));

/**
 * The "Hedging and chaos" table of one configuration, or nothing when it has neither layer.
 *
 * @example
 * ```ts
 * String(hedgeChaosHtml(report.configurations[1]!)); // '<h4>Hedging</h4><p class="note">8.5 % more calls …'
 * ```
 */
export function hedgeChaosHtml(c: ConfigurationResult): Html {
  const hedge = c.totals.hedgeCalls !== undefined;
  const chaos = c.totals.chaosCalls !== undefined;
  if (!hedge && !chaos) return html``;
  const width = c.totals.hedgeWins?.length ?? 0;
  const wins = Array.from({ length: width }, (_, i) => (i === 0 ? 'won by the primary' : `won by hedge ${i}`));
  const head = html`<th>phase</th>${hedge && html`<th>hedge calls</th><th title="attempts beyond the primary">hedged attempts</th><th title="hedged attempts per call">more calls</th>${wins.map((w) => html`<th>${w}</th>`)}`}${chaos && html`<th>chaos calls</th><th>faults</th><th>latencies</th><th>outcomes</th>`}`;
  const row = (name: string, n: Counts, total = false) =>
    html`<tr${total ? html` class="total"` : ''}><th scope="row">${name}</th>${
      hedge &&
      html`<td>${int(n.hedgeCalls)}</td><td>${int(n.hedgedAttempts)}</td><td>${n.hedgeCalls ? `${((n.hedgedAttemptsPerCall ?? 0) * 100).toFixed(1)} %` : '—'}</td>${Array.from(
        { length: width },
        (_, i) => html`<td>${int(n.hedgeWins?.[i])}</td>`,
      )}`
    }${chaos && html`<td>${int(n.chaosCalls)}</td><td>${int(n.injectedFaults)}</td><td>${int(n.injectedLatencies)}</td><td>${int(n.injectedOutcomes)}</td>`}</tr>`;
  const title = hedge && chaos ? 'Hedging and chaos' : hedge ? 'Hedging' : 'Chaos';
  const note = hedge
    ? html`<p class="note">The hedge: ${hedgeLoadText(c.totals)}; calls answered by ${hedgeWinsText(c.totals)}.</p>`
    : html`<p class="note">Each chaos layer counts the calls through it; a fault or an outcome ends a call there, a latency delays it.</p>`;
  return html`<h4>${title}</h4>${note}<div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>${c.phases.map((p) => row(p.name, p))}${row('total', c.totals, true)}</tbody></table></div>`;
}
