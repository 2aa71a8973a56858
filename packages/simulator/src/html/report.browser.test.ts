// The HTML report in a real browser: Debian's headless Chromium driven by playwright-core opens the
// page from a file URL with the network blocked, and every chart must be drawn (non-blank canvases,
// legends naming each configuration) with no console or page error. Under CI (CI=true) a missing
// Chromium fails; locally the suite is skipped, loudly. The screenshot is kept in test-artifacts/.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../parse-scenario.js';
import type { SimulationReport } from '../report.js';
import { simulate } from '../simulate.js';
import { applySweep, parseSweep } from '../sweep.js';
import { renderHtml } from './render-html.js';
import { reportFixture } from '../../test/report-fixture.js';

const CHROMIUM = process.env['BREAKWATER_CHROMIUM'] ?? '/usr/bin/chromium';
const CI = process.env['CI'] === 'true';
const available = existsSync(CHROMIUM);
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const CHARTS = ['timeline', 'failure-rate', 'slow-call-rate', 'rejected', 'failed', 'window-fill'];

if (!available && !CI) {
  console.warn(
    `\n*** SKIPPED: the HTML report's browser test needs Chromium at ${CHROMIUM} (apt-get install -y chromium, or set BREAKWATER_CHROMIUM). CI fails without it. ***\n`,
  );
}

// The package type-checks against Node's types only (no DOM lib): the few browser globals that the
// functions given to page.evaluate / waitForFunction use (they run in the page, not here).
interface PageElement {
  readonly dataset: Record<string, string | undefined>;
  readonly scrollWidth: number;
  readonly clientWidth: number;
  readonly textContent: string | null;
  readonly width: number;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
  getBoundingClientRect(): { left: number; top: number; width: number; height: number };
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
}
declare const document: PageElement & { readonly documentElement: PageElement; readonly scripts: ArrayLike<unknown> };
declare function getComputedStyle(element: PageElement): { readonly backgroundColor: string };

/** What a page did while it was open: requests that tried to leave the machine, errors. */
interface Visit {
  page: Page;
  blocked: string[];
  errors: string[];
}

async function visit(context: BrowserContext, html: string, file: string, width?: number): Promise<Visit> {
  const path = join(ARTIFACTS, file);
  writeFileSync(path, html);
  const page = await context.newPage();
  if (width !== undefined) await page.setViewportSize({ width, height: 900 });
  const errors: string[] = [];
  page.on('console', (m) => void (m.type() === 'error' && errors.push(`console: ${m.text()}`)));
  page.on('pageerror', (e) => void errors.push(`page: ${e.message}`));
  page.on('dialog', (d) => void (errors.push(`dialog: ${d.message()}`), d.dismiss()));
  await page.goto(pathToFileURL(path).href, { waitUntil: 'load' });
  await page.waitForFunction(() => document.documentElement.dataset['charts'] !== undefined, undefined, { timeout: 10_000 });
  return { page, blocked, errors };
}

// Every request that is not a file: URL is aborted and recorded (the page must make none).
const blocked: string[] = [];

/** Per chart: the legend's labels and the colours found in the plot area of its canvas. */
interface DrawnChart {
  chart: string;
  labels: string[];
  colors: number;
  inked: number;
  pixels: number;
}

function drawnCharts(page: Page): Promise<DrawnChart[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('[data-chart]')).map((el) => {
      const canvas = el.querySelector('canvas');
      const over = el.querySelector('.u-over');
      const labels = Array.from(el.querySelectorAll('.u-legend .u-label')).map((l) => l.textContent ?? '');
      if (canvas === null || over === null) return { chart: el.dataset['chart'] ?? '', labels, colors: 0, inked: 0, pixels: 0 };
      const ratio = canvas.width / canvas.getBoundingClientRect().width;
      const box = over.getBoundingClientRect();
      const origin = canvas.getBoundingClientRect();
      const [x, y] = [Math.round((box.left - origin.left) * ratio), Math.round((box.top - origin.top) * ratio)];
      const [w, h] = [Math.round(box.width * ratio), Math.round(box.height * ratio)];
      const pixels = canvas.getContext('2d')!.getImageData(x, y, w, h).data;
      const colors = new Set<number>();
      let inked = 0;
      for (let i = 0; i < pixels.length; i += 4) {
        colors.add(((pixels[i]! << 24) | (pixels[i + 1]! << 16) | (pixels[i + 2]! << 8) | pixels[i + 3]!) >>> 0);
        if (pixels[i + 3]! > 0) inked++;
      }
      return { chart: el.dataset['chart'] ?? '', labels, colors: colors.size, inked, pixels: w * h };
    }),
  );
}

describe.skipIf(!available && !CI)('the HTML report in headless Chromium', () => {
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    if (!available) throw new Error(`CI: Chromium is required at ${CHROMIUM} for the HTML report's browser test (.ci/run installs Debian's chromium)`);
    mkdirSync(ARTIFACTS, { recursive: true });
    profile = mkdtempSync(join(tmpdir(), 'breakwater-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: { width: 1000, height: 900 },
      deviceScaleFactor: 1,
    });
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      blocked.push(url);
      return route.abort();
    });
    context.on('request', (r) => void (!/^(file|data|blob|about):/.test(r.url()) && !blocked.includes(r.url()) && blocked.push(r.url())));
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('draws every chart, legends naming each configuration, with no network request and no error', async () => {
    const report = reportFixture();
    const { page, errors } = await visit(context, renderHtml(report), 'report.html');
    expect(await page.evaluate(() => document.documentElement.dataset['charts'])).toBe(String(CHARTS.length));
    const charts = await drawnCharts(page);
    expect(charts.map((c) => c.chart)).toEqual(CHARTS);
    for (const c of charts) {
      expect(c.pixels, c.chart).toBeGreaterThan(10_000);
      expect(c.colors, `${c.chart}: the plot area is one colour`).toBeGreaterThan(3);
      expect(c.inked / c.pixels, `${c.chart}: almost nothing drawn`).toBeGreaterThan(0.002);
      for (const [i, name] of report.ranking.entries()) expect(c.labels, c.chart).toContain(`#${i + 1} ${name}`); // best first, with its rank
    }
    await page.screenshot({ path: join(ARTIFACTS, 'report.png'), fullPage: true });
    await page.locator('#charts').screenshot({ path: join(ARTIFACTS, 'charts.png') }); // the README's docs/report.png
    // One cursor for all charts: hovering the failure-rate chart shows each lane's state at that instant.
    const over = page.locator('[data-chart="failure-rate"] .u-over');
    await over.scrollIntoViewIfNeeded();
    const box = (await over.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
    await page.waitForFunction(() => document.querySelector('[data-chart="timeline"] .u-legend .u-value')?.textContent !== '—');
    const lanes = await page.evaluate(() => Array.from(document.querySelectorAll('[data-chart="timeline"] .u-legend .u-value')).map((v) => v.textContent));
    expect(lanes[0]).toMatch(/^\d+:\d\d$/); // the time
    for (const state of lanes.slice(1)) expect(['CLOSED', 'HALF_OPEN', 'OPEN']).toContain(state);
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('opens without an error when there is nothing to draw (no configuration; no bucket)', async () => {
    const one = reportFixture({ count: 1 });
    const c = one.configurations[0]!;
    const noBuckets = {
      ...c,
      series: {
        ...c.series,
        t: [],
        requestsPerSecond: [],
        rejectedPerSecond: [],
        failedPerSecond: [],
        failureRate: [],
        slowCallRate: [],
        windowFill: [],
        state: [],
      },
    };
    for (const [file, report] of [
      ['empty.html', { scenario: { name: 'empty', seed: 1, durationMs: 0, phases: [] }, configurations: [], ranking: [] }],
      ['no-buckets.html', { ...one, configurations: [noBuckets] }],
    ] as const) {
      const { page, errors } = await visit(context, renderHtml(report), file);
      expect(await page.evaluate(() => document.documentElement.dataset['charts']), file).toBe(String(CHARTS.length));
      expect(errors, file).toEqual([]);
      await page.close();
    }
    expect(blocked).toEqual([]);
  }, 60_000);

  it('a report with latencies and an adaptive limiter draws two more charts: the median latency, and the limit against the capacity', async () => {
    const scenario = parseScenario(
      `
pipelines:
  bulkhead 50: [{ bulkhead: { maxConcurrentCalls: 50 } }]
  adaptive: [{ adaptiveLimiter: { window: { minWindowTime: 100ms, maxWindowTime: 100ms } } }]
traffic:
  phases:
    - { name: full, duration: 10s, rate: 2500, latency: 40ms, capacity: 50 }
    - { name: halved, duration: 10s, rate: 2500, capacity: 25 }
`,
      'adaptive.yml',
    );
    const { page, errors } = await visit(context, renderHtml(simulate(scenario)), 'adaptive.html');
    expect(await page.evaluate(() => document.documentElement.dataset['charts'])).toBe(String(CHARTS.length + 2));
    const charts = await drawnCharts(page);
    expect(charts.map((c) => c.chart)).toEqual([...CHARTS, 'latency', 'adaptive-limit']);
    for (const c of charts.slice(-2)) expect(c.inked, c.chart).toBeGreaterThan(0);
    const limit = charts.at(-1)!;
    expect(limit.labels.some((l) => l === 'backend capacity')).toBe(true);
    expect(limit.labels.some((l) => l.endsWith(' adaptive'))).toBe(true);
    expect(limit.labels.some((l) => l.endsWith(' bulkhead 50'))).toBe(false); // a pipeline without a limiter has no line there
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows hostile names as text in the browser: no element, no script, no dialog from them', async () => {
    const names = ['<script>alert(1)</script>', '</script><img src=x onerror=alert(1)>', '<!-- \u2028 & "x"'];
    const { page, errors } = await visit(context, renderHtml(reportFixture({ names, scenarioName: '<img src=x onerror=alert(2)>' })), 'hostile.html');
    expect(await page.evaluate(() => document.querySelectorAll('img, iframe').length)).toBe(0);
    expect(await page.evaluate(() => document.scripts.length)).toBe(3);
    expect(await page.evaluate(() => document.querySelector('h1')?.textContent)).toBe('<img src=x onerror=alert(2)>');
    const charts = await drawnCharts(page);
    expect(charts).toHaveLength(CHARTS.length);
    for (const c of charts) for (const name of names) expect(c.labels.some((l) => l.endsWith(` ${name}`))).toBe(true);
    const summary = await page.evaluate(() => Array.from(document.querySelectorAll('#summary tbody a')).map((a) => a.textContent));
    expect([...summary].sort()).toEqual([...names].sort());
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('12 configurations at 1400 px: the table ranked with its scores, every column in view, distinct colours for the leaders, legends no taller than their charts', async () => {
    const report = twelveConfigurations();
    expect(report.configurations).toHaveLength(12);
    const { page, errors } = await visit(context, renderHtml(report), 'report-12.html', 1400);
    // The totals table: in ranking order, numbered, each with its score; nothing cut off.
    const rows = await page.evaluate(() =>
      Array.from(document.querySelectorAll('#summary tbody tr')).map((tr) => ({
        rank: tr.querySelector('td.rank')?.textContent ?? '',
        name: tr.querySelector('th a')?.textContent ?? '',
        score: tr.querySelector('td.score')?.textContent ?? '',
        color: getComputedStyle(tr.querySelector('.swatch')!).backgroundColor,
      })),
    );
    expect(rows.map((r) => r.name)).toEqual(report.ranking);
    expect(rows.map((r) => r.rank)).toEqual(report.ranking.map((_, i) => String(i + 1)));
    const figure = (v: number | null): string => v!.toLocaleString('en-US', { maximumFractionDigits: 1 });
    report.standings!.forEach((st, i) => {
      const { mean, min, max } = st.score.notSucceeded;
      expect(rows[i]!.score.startsWith(`${figure(mean)}${min === max ? '' : `range ${figure(min)}–${figure(max)}`}`), rows[i]!.score).toBe(true);
    });
    const table = await page.evaluate(() => {
      const scroll = document.querySelector('#summary .scroll')!;
      const box = scroll.getBoundingClientRect();
      const heads = Array.from(document.querySelectorAll('#summary thead th')).map((th) => ({
        text: th.textContent ?? '',
        right: th.getBoundingClientRect().left + th.getBoundingClientRect().width,
      }));
      return { scrollWidth: scroll.scrollWidth, clientWidth: scroll.clientWidth, right: box.left + box.width, heads };
    });
    expect(table.scrollWidth).toBeLessThanOrEqual(table.clientWidth); // no column hidden behind a scroll bar
    expect(table.heads.map((h) => h.text)).toEqual([
      '#',
      'configuration',
      'failed + rejected',
      'requests',
      'succeeded',
      'failed',
      'rejected',
      'slow',
      'time-outs',
      'retries',
      'breaker calls / req',
      'time to open',
      'time to recover',
      'state changes',
    ]);
    for (const h of table.heads) expect(h.right, h.text).toBeLessThanOrEqual(table.right + 0.5);
    // Colours: the best 6 their own, pairwise distinct (CIE76 ΔE ≥ 20), the other 6 one grey, distinct from them all.
    const leaders = rows.slice(0, 6).map((r) => r.color);
    const rest = new Set(rows.slice(6).map((r) => r.color));
    expect(rest.size).toBe(1);
    const grey = [...rest][0]!;
    const all = [...leaders, grey];
    for (let a = 0; a < all.length; a++)
      for (let b = a + 1; b < all.length; b++) expect(deltaE(all[a]!, all[b]!), `${all[a]} vs ${all[b]}`).toBeGreaterThanOrEqual(20);
    // The ranking: names with their numbers, and what the seeds can tell.
    const ranking = await page.evaluate(() => ({
      items: Array.from(document.querySelectorAll('#ranking ol li')).map((li) => li.textContent ?? ''),
      verdict: document.querySelector('#ranking .verdict')?.textContent ?? '',
    }));
    for (const [i, item] of ranking.items.entries())
      expect(item).toMatch(new RegExp(`^${escapeRegExp(report.ranking[i]!)} — [\\d,.]+ \\([\\d,.]+–[\\d,.]+\\) failed \\+ rejected · [\\d,.]+ failed`));
    expect(ranking.verdict).toContain('Ranked by the means over 3 seeds (1, 2, 3)');
    for (const st of report.standings!.filter((x) => x.tie === x.rank)) expect(ranking.verdict).toContain(`A tie: #${st.rank}–`);
    // Every chart's legend: no taller than its plot, naming the 6 leaders only (the others are grey lanes, named in the timeline).
    const legends = await page.evaluate(() =>
      Array.from(document.querySelectorAll('[data-chart]')).map((el) => ({
        chart: el.dataset['chart'] ?? '',
        legend: el.querySelector('.u-legend')!.getBoundingClientRect().height,
        plot: el.querySelector('.u-wrap')!.getBoundingClientRect().height,
        shown: Array.from(el.querySelectorAll('.u-legend .u-series'))
          .filter((row) => row.getBoundingClientRect().height > 0)
          .map((row) => row.querySelector('.u-label')?.textContent ?? ''),
      })),
    );
    expect(legends.map((l) => l.chart)).toEqual([...CHARTS, 'latency']); // a simulated report has latencies; no adaptive limiter here
    for (const l of legends) {
      expect(l.legend, l.chart).toBeLessThanOrEqual(l.plot);
      for (const [i, name] of report.ranking.entries()) expect(l.shown.includes(`#${i + 1} ${name}`), `${l.chart}: #${i + 1}`).toBe(i < 6);
    }
    expect(await page.evaluate(() => document.querySelector('#colors')?.textContent ?? '')).toContain('the other 6 (#7–#12) are grey');
    await page.locator('#ranking').screenshot({ path: join(ARTIFACTS, 'ranking-12.png') });
    await page.locator('#summary').screenshot({ path: join(ARTIFACTS, 'totals-12.png') }); // the README's docs/totals-12.png
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});

/** A sweep of 12 breaker configurations through an outage, each run on 3 seeds. */
function twelveConfigurations(): SimulationReport {
  const scenario = parseScenario(`
name: twelve windows
pipelines:
  breaker:
    - retry: { maxAttempts: 2, waitDuration: 100ms }
    - circuitBreaker: { minimumNumberOfCalls: 10, permittedNumberOfCallsInHalfOpenState: 5 }
    - timeLimiter: { timeoutDuration: 800ms }
traffic:
  phases:
    - { name: normal, duration: 1m, rate: 30, errorRatio: 0.02, latency: { logNormal: { p50: 60ms, p99: 600ms } } }
    - { name: outage, duration: 1m, rate: 30, errorRatio: 0.6, hangRatio: 0.05 }
    - { name: back, duration: 1m, rate: 30, errorRatio: 0.02 }
`);
  return simulate(applySweep(scenario, [parseSweep('slidingWindowSize=10,20,50,100'), parseSweep('waitDurationInOpenState=5s,10s,30s')]), { seeds: 3 });
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** CIE76 colour difference of two CSS rgb() colours. */
function deltaE(a: string, b: string): number {
  const lab = (css: string): number[] => {
    const [r, g, bl] = css
      .match(/\d+/g)!
      .slice(0, 3)
      .map((v) => Number(v) / 255)
      .map((c) => (c > 0.04045 ? ((c + 0.055) / 1.055) ** 2.4 : c / 12.92)) as [number, number, number];
    const f = (t: number): number => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
    const [x, y, z] = [
      (r * 0.4124 + g * 0.3576 + bl * 0.1805) / 0.95047,
      r * 0.2126 + g * 0.7152 + bl * 0.0722,
      (r * 0.0193 + g * 0.1192 + bl * 0.9505) / 1.08883,
    ];
    return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
  };
  const [p, q] = [lab(a), lab(b)];
  return Math.hypot(p[0]! - q[0]!, p[1]! - q[1]!, p[2]! - q[2]!);
}
