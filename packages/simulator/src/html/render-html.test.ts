import { exportsWithoutExample } from '@breakwater/test-support';
import { describe, expect, it } from 'vitest';
import * as simulator from '../index.js';
import type { SimulationReport } from '../report.js';
import { type ChartData, chartData } from './chart-data.js';
import { CHART_SCRIPT } from './client-script.generated.js';
import { CONTENT_SECURITY_POLICY } from './page.js';
import { renderHtml } from './render-html.js';
import { reportFixture } from '../../test/report-fixture.js';
import { uplotAssets } from './uplot-assets.js';

const SCRIPT_NAME = '<script>alert(1)</script>';
const BREAKOUT_NAME = '</script><img src=x onerror=alert(1)>';

function dataBlock(html: string): ChartData {
  const open = '<script type="application/json" id="report-data">';
  const start = html.indexOf(open) + open.length;
  return JSON.parse(html.slice(start, html.indexOf('</script>', start))) as ChartData;
}

/** The fixture with user input everywhere a scenario can put it. */
function hostileReport(): SimulationReport {
  const base = reportFixture({ names: [SCRIPT_NAME, BREAKOUT_NAME, 'A & B "quoted" \u2028 <!-- x'], scenarioName: `<b>${BREAKOUT_NAME}` });
  return {
    ...base,
    scenario: {
      ...base.scenario,
      file: '"><script>alert(2)</script>',
      phases: base.scenario.phases.map((p, i) => (i === 1 ? { ...p, name: BREAKOUT_NAME } : p)),
    },
    configurations: base.configurations.map((c, i) =>
      i === 0
        ? {
            ...c,
            settings: { ...c.settings, [`<i>${SCRIPT_NAME}`]: BREAKOUT_NAME },
            phases: c.phases.map((p, j) => (j === 1 ? { ...p, name: BREAKOUT_NAME } : p)),
            transitions: c.transitions.map((t) => ({ ...t, cause: `${SCRIPT_NAME}` })),
          }
        : c,
    ),
  };
}

describe('renderHtml', () => {
  const report = reportFixture();
  const html = renderHtml(report);

  it('is one self-contained document: uPlot and its CSS inlined, a CSP that forbids the network, no URL', () => {
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`);
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(html).toContain(uplotAssets().css);
    expect(html).toContain('var uPlot=function(){');
    expect(html).not.toMatch(/https?:\/\/|\/\/[a-z0-9.-]+\.[a-z]{2,}\//i);
    expect(html).not.toMatch(/<(link|img|iframe|object|embed|base)\b/i);
    expect(html).not.toMatch(/\ssrc=/i);
    expect([...html.matchAll(/\shref="([^"]*)"/g)].map((m) => m[1]).every((h) => h?.startsWith('#config-'))).toBe(true);
    expect(html.match(/<script\b/g)).toHaveLength(3); // the data, uPlot, the chart script
    expect(html.match(/<\/script>/g)).toHaveLength(3);
  });

  it("holds every configuration's name, totals, phases, state changes with cause, and the ranking", () => {
    for (const c of report.configurations) {
      expect(html).toContain(c.name);
      expect(html).toContain(c.totals.requests.toLocaleString('en-US'));
      for (const cause of new Set(c.transitions.map((t) => t.cause))) expect(html).toContain(`<td>${cause}</td>`);
    }
    for (const p of report.scenario.phases) expect(html).toContain(`<th scope="row">${p.name}</th>`);
    expect(html).toContain('<section id="ranking">');
    const ranking = html.slice(html.indexOf('<section id="ranking">'), html.indexOf('</ol>'));
    const order = report.ranking.map((name) => ranking.indexOf(name));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    for (const id of ['timeline', 'failure-rate', 'slow-call-rate', 'rejected', 'failed', 'window-fill']) {
      expect(html).toContain(`data-chart="${id}"`);
    }
  });

  it('a run with latencies and an adaptive limiter: p50 and p99 per phase, the limit and the capacity in the chart data', () => {
    const scenario = simulator.parseScenario(
      `
pipelines:
  al: [{ adaptiveLimiter: { algorithm: { vegas: { initialLimit: 2, minLimit: 2, maxLimit: 2 } }, window: false } }]
traffic: { phases: [{ name: only, duration: 1s, users: 4, requests: 4, latency: 40ms, capacity: 1 }] }
`,
      'adaptive.yml',
    );
    const html = renderHtml(simulator.simulate(scenario));
    expect(html).toContain('<th title="median latency of the requests that succeeded">p50</th><th title="99th percentile">p99</th>');
    // Limit 2 (no wait: the other two calls are refused), one server: the second waits 40 ms for it, so 40 and 80 ms.
    expect(html).toContain('<td>40 ms</td><td>80 ms</td></tr>');
    const data = dataBlock(html);
    expect(data.hasLatency).toBe(true);
    expect(data.configurations[0]!.limit!.slice(0, 3)).toEqual([2, 2, 2]);
    expect(data.capacity!.slice(0, 3)).toEqual([1, 1, 1]);
    // A report made by hand without them: no latency columns, no limit, no capacity.
    const plain = renderHtml(reportFixture());
    expect(plain).not.toContain('>p50</th>');
    expect([dataBlock(plain).hasLatency, dataBlock(plain).capacity, dataBlock(plain).configurations[0]!.limit]).toEqual([false, null, null]);
  });

  it('puts the chart data in a JSON block that parses back to the aligned series', () => {
    const data = dataBlock(html);
    expect(data).toEqual(chartData(report));
    expect(data.x).toHaveLength(360);
    expect(data.configurations.map((c) => c.name)).toEqual(report.ranking); // best first
    expect(data.configurations.map((c) => [c.rank, c.highlighted])).toEqual([
      [1, true],
      [2, true],
      [3, true],
    ]);
    expect(data.states).toEqual(['CLOSED', 'HALF_OPEN', 'OPEN']);
    expect(data.sameRequests).toBe(true); // the same traffic for every configuration
    const fill = data.configurations[0]!.windowFill;
    expect(Math.max(...fill.map((v) => v ?? 0))).toBeLessThanOrEqual(100);
  });

  it('stays light: the fixture (3 configurations x 360 buckets) renders under 250 KB', () => {
    expect(Buffer.byteLength(html)).toBeLessThan(250_000);
  });

  it('has no ranking section with a single configuration', () => {
    const one = renderHtml(reportFixture({ count: 1 }));
    expect(one).not.toContain('<section id="ranking">');
    expect(one).toContain('· 1 configuration</p>');
  });

  it('shows an unfinished column only when some requests were still waiting at the end', () => {
    expect(html).not.toContain('<th>unfinished</th>');
    const base = reportFixture({ count: 2 });
    const [a, b] = base.configurations;
    const hung = { ...a!, totals: { ...a!.totals, unfinished: 7 }, phases: a!.phases.map((p, i) => (i === 1 ? { ...p, unfinished: 7 } : p)) };
    const withHung = renderHtml({ ...base, configurations: [hung, b!] });
    expect(withHung.match(/<th>unfinished<\/th>/g)).toHaveLength(2); // the totals, and the per-phase table of the first
  });

  it('gives a pipeline without a breaker (state NONE) its own lane colour', () => {
    const base = reportFixture({ count: 1 });
    const c = base.configurations[0]!;
    const none = { ...c, transitions: [], series: { ...c.series, state: c.series.state.map(() => 'NONE'), failureRate: c.series.failureRate.map(() => null) } };
    const data = chartData({ ...base, configurations: [none] });
    expect(data.states).toEqual(['NONE']);
    expect(data.stateColors).toHaveLength(1);
    expect(data.configurations[0]!.state.every((s) => s === 0)).toBe(true);
  });

  it('aligns configurations whose buckets differ on the union of their bucket starts', () => {
    const [a, b] = reportFixture({ count: 2 }).configurations;
    const shifted = { ...b!, series: { ...b!.series, t: b!.series.t.map((t) => t + 500) } };
    const data = chartData({ ...reportFixture({ count: 2 }), configurations: [a!, shifted] });
    expect(data.x).toHaveLength(720);
    expect(data.configurations[0]!.state.filter((s) => s !== null)).toHaveLength(360);
    expect(data.configurations[1]!.state[0]).toBeNull();
  });
});

describe('renderHtml with hostile names (a scenario is user input)', () => {
  const report = hostileReport();
  const html = renderHtml(report);

  it('renders names, labels, phases, settings, causes and the file as text, never markup', () => {
    expect(html).not.toContain(SCRIPT_NAME);
    expect(html).not.toContain(BREAKOUT_NAME);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).not.toContain('<i>');
    expect(html).not.toContain('"><script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('A &amp; B &quot;quoted&quot;');
    expect(html.match(/<script\b/g)).toHaveLength(3);
    expect(html.match(/<\/script>/g)).toHaveLength(3);
    expect(html.match(/<!--/g)).toBeNull();
    const block = html.slice(html.indexOf('id="report-data">'), html.indexOf('</script>'));
    expect(block).not.toMatch(/[\u2028\u2029<&]/); // U+2028 / U+2029 only as \u escapes in the JSON
  });

  it('keeps the JSON block whole: it ends at its own </script> and parses back to the exact names', () => {
    const data = dataBlock(html);
    expect(data.configurations.map((c) => c.name).sort()).toEqual(report.configurations.map((c) => c.name).sort());
    expect(data.configurations.map((c) => c.name)).toEqual(report.ranking);
    expect(data.phases[1]!.name).toBe(BREAKOUT_NAME);
  });
});

describe('the chart script', () => {
  it('is plain JavaScript that parses, with nothing that could end its <script> element', () => {
    expect(() => new Function(CHART_SCRIPT)).not.toThrow();
    expect(CHART_SCRIPT.toLowerCase()).not.toContain('</script');
    expect(CHART_SCRIPT).not.toContain('<!--');
    expect(CHART_SCRIPT).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
  });
});

describe('the public surface', () => {
  it('exports renderHtml from the package, with TSDoc and an @example', () => {
    expect(simulator.renderHtml).toBe(renderHtml);
    const { names, undocumented } = exportsWithoutExample(new URL('.', import.meta.url));
    expect(names).toEqual(['renderHtml']);
    expect(undocumented).toEqual([]);
  });
});
