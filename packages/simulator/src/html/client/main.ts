// The report page's own script, bundled into the page at build time (scripts/bundle-client.mjs
// writes ../client-script.generated.ts): reads the JSON block (JSON.parse, never eval) and draws
// the charts with the inlined uPlot (the global `uPlot`). Names reach the page only through
// uPlot's legend (textContent) and the canvas (fillText): never as HTML.
// It expects a `<script type="application/json" id="report-data">` holding ChartData and one
// `<div data-chart="…">` per chart (timeline, failure-rate, slow-call-rate, rejected, failed,
// window-fill; latency and adaptive-limit when the report has them). When every chart is drawn it sets `data-charts` on `<html>` to their count.
import type { ChartConfiguration, ChartData } from '../chart-data.js';

type Values = (number | null)[];
type SeriesKey = 'failureRate' | 'slowCallRate' | 'rejected' | 'failed' | 'windowFill' | 'latencyP50';
type ThresholdKey = 'failureRateThreshold' | 'slowCallRateThreshold';
type Range = (u: uPlot, min: number, max: number) => uPlot.Range.MinMax;
interface Line {
  readonly series: uPlot.Series;
  readonly values: Values;
  readonly hidden: boolean;
}

const data = JSON.parse(document.getElementById('report-data')!.textContent!) as ChartData;
const x = data.x;
const configs = data.configurations;
const SYNC = 'breakwater';
const charts: uPlot[] = [];
let zooming = false;
const first = x.length ? x[0]! : 0;
const last = x.length ? x[x.length - 1]! + data.bucketSeconds : Math.max(data.durationSeconds, 1);

function labelOf(c: ChartConfiguration): string {
  return c.rank ? `#${c.rank} ${c.name}` : c.name;
}
function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}
/** Seconds from the start as a clock reading, m:ss or h:mm:ss (tenths when not whole), as formatClock writes them in the tables. */
function clock(sec: number | null): string {
  if (sec == null) return '—';
  const s = Math.round(sec * 10) / 10;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  const rs = r % 1 === 0 ? pad2(r) : (r < 10 ? '0' : '') + r.toFixed(1);
  return h > 0 ? `${h}:${pad2(m)}:${rs}` : `${m}:${rs}`;
}
function unit(suffix: string, digits: number): (u: uPlot, v: number | null) => string {
  return (_u, v) => (v == null ? '—' : v.toFixed(digits) + suffix);
}
function constant(v: number): Values {
  return x.map(() => v);
}
function px(n: number): number {
  return n * uPlot.pxRatio;
}

// Phase boundaries as dashed lines, their names in the strip above the plot.
function drawPhases(u: uPlot): void {
  const ctx = u.ctx;
  const b = u.bbox;
  ctx.save();
  ctx.strokeStyle = '#9a9a9a';
  ctx.fillStyle = '#555';
  ctx.lineWidth = px(1);
  ctx.setLineDash([px(4), px(4)]);
  ctx.font = `${px(11)}px system-ui, sans-serif`;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'bottom';
  data.phases.forEach((p, i) => {
    const x0 = Math.max(u.valToPos(p.start, 'x', true), b.left);
    const x1 = Math.min(u.valToPos(p.end, 'x', true), b.left + b.width);
    if (x1 <= x0) return;
    if (i > 0 && x0 > b.left) {
      ctx.beginPath();
      ctx.moveTo(Math.round(x0), b.top);
      ctx.lineTo(Math.round(x0), b.top + b.height);
      ctx.stroke();
    }
    ctx.save();
    ctx.beginPath();
    ctx.rect(x0, b.top - px(18), x1 - x0 - px(4), px(18));
    ctx.clip();
    ctx.fillText(p.name, x0 + px(4), b.top - px(3));
    ctx.restore();
  });
  ctx.restore();
}

// The state timeline: one lane per configuration, a band per run of one state.
function drawLanes(u: uPlot): void {
  const ctx = u.ctx;
  const b = u.bbox;
  const lane = b.height / Math.max(configs.length, 1);
  ctx.save();
  ctx.beginPath();
  ctx.rect(b.left, b.top, b.width, b.height);
  ctx.clip();
  configs.forEach((c, ci) => {
    const top = b.top + ci * lane + px(3);
    const height = lane - px(6);
    let start = 0;
    for (let i = 1; i <= x.length; i++) {
      if (i < x.length && c.state[i] === c.state[start]) continue;
      const s = c.state[start];
      if (s != null) {
        const x0 = u.valToPos(x[start]!, 'x', true);
        const x1 = u.valToPos(i < x.length ? x[i]! : x[x.length - 1]! + data.bucketSeconds, 'x', true);
        ctx.fillStyle = data.stateColors[s]!;
        ctx.fillRect(x0, top, Math.max(x1 - x0, px(1)), height);
      }
      start = i;
    }
    ctx.font = `bold ${px(12)}px system-ui, sans-serif`;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    const name = labelOf(c);
    const w = ctx.measureText(name).width;
    ctx.fillStyle = 'rgba(255,255,255,0.85)';
    ctx.fillRect(b.left + px(4), top + height / 2 - px(9), Math.min(w + px(10), b.width - px(8)), px(18));
    ctx.fillStyle = c.color;
    ctx.fillRect(b.left + px(4), top + height / 2 - px(9), px(3), px(18));
    ctx.fillStyle = '#222';
    ctx.fillText(name, b.left + px(10), top + height / 2, b.width - px(20));
  });
  ctx.restore();
}

function syncZoom(u: uPlot, key: string): void {
  if (key !== 'x' || zooming) return;
  zooming = true;
  for (const o of charts) if (o !== u) o.setScale('x', { min: u.scales['x']!.min!, max: u.scales['x']!.max! });
  zooming = false;
}

function xRange(_u: uPlot, min: number, max: number): uPlot.Range.MinMax {
  return min <= first && max >= x[x.length - 1]! ? [first, last] : [min, max];
}

function xAxis(): uPlot.Axis {
  return {
    values: (_u, splits) => splits.map(clock),
    incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400],
    space: 60,
  };
}

// Rows of the legend to leave out (index 0 is the time): the configurations in grey, and lines
// drawn per configuration that the caption explains (thresholds, requests).
function hideLegendRows(u: uPlot, hidden: readonly boolean[]): void {
  const rows = u.root.querySelectorAll<HTMLElement>('.u-legend .u-series');
  hidden.forEach((h, i) => {
    const row = rows[i + 1];
    if (h && row) row.style.display = 'none';
  });
}

type ChartOptions = Omit<uPlot.Options, 'width'>;

function make(el: HTMLElement, opts: ChartOptions, columns: Values[], hidden: readonly boolean[]): uPlot {
  const hooks = opts.hooks ?? {};
  const options: uPlot.Options = {
    ...opts,
    width: el.clientWidth || 900,
    padding: [20, 28, null, null], // room on the right for the last time label (1:00:00)
    scales: { ...opts.scales, x: { time: false, range: xRange } },
    cursor: { ...opts.cursor, sync: { key: SYNC } },
    legend: { live: true },
    hooks: { ...hooks, draw: [...(hooks.draw ?? []), drawPhases], setScale: [syncZoom] },
    series: [{ label: 'time', value: (_u, v) => clock(v) }, ...opts.series],
  };
  const u = new uPlot(options, [x, ...columns] as uPlot.AlignedData, el);
  hideLegendRows(u, hidden);
  charts.push(u);
  return u;
}

// A value with no value on either side (the window reached the minimum for one bucket) has no
// line to sit on: it is drawn as a dot, and only such values are.
function isolated(values: Values): number[] {
  const out: number[] = [];
  for (let i = 0; i < values.length; i++) {
    if (values[i] != null && values[i - 1] == null && values[i + 1] == null) out.push(i);
  }
  return out;
}

function line(label: string, color: string, values: Values, extra: uPlot.Series, hidden = false): Line {
  const lone = isolated(values);
  const points: uPlot.Series.Points = lone.length ? { show: true, size: 5, width: 1, fill: color, filter: lone } : { show: false };
  return { series: { label, stroke: color, width: 1.5, points, spanGaps: false, ...extra }, values, hidden };
}

// The configurations in drawing order: the grey ones first (under), then the highlighted, best first.
const drawOrder = [...configs.filter((c) => !c.highlighted), ...configs.filter((c) => c.highlighted)];
const highlighted = configs.filter((c) => c.highlighted);

// One series per configuration for each chart, plus threshold lines and a requests backdrop.
function linesChart(name: string, yLabel: string, range: Range, lines: readonly Line[]): void {
  const el = document.querySelector<HTMLElement>(`[data-chart="${name}"]`);
  if (!el) return;
  make(
    el,
    {
      height: 240,
      series: lines.map((l) => l.series),
      scales: { y: { range } },
      axes: [xAxis(), { label: yLabel, size: 56 }],
    },
    lines.map((l) => l.values),
    lines.map((l) => l.hidden),
  );
}

function thresholds(key: ThresholdKey): Line[] {
  const values = configs.map((c) => c[key]);
  const same = values.every((v) => v === values[0]);
  if (same && configs.length) {
    return [line(`threshold ${values[0]} %`, '#555', constant(values[0]!), { dash: [6, 4], width: 1, value: unit(' %', 0) })];
  }
  // One dashed line per highlighted configuration, in its colour (the caption says so; not in the legend).
  return highlighted.map((c) => line(`threshold · ${c.name}`, c.color, constant(c[key]), { dash: [6, 4], width: 1, value: unit(' %', 0) }, true));
}

function requestsBackdrop(): Line[] {
  if (data.sameRequests && configs.length) {
    return [line('requests', '#b9b9b9', configs[0]!.requests, { fill: 'rgba(0,0,0,0.06)', value: unit('/s', 1) })];
  }
  return highlighted.map((c) => line(`requests · ${c.name}`, c.color, c.requests, { dash: [2, 3], width: 1, value: unit('/s', 1) }, true));
}

function perConfiguration(key: SeriesKey, suffix: string, digits: number): Line[] {
  return drawOrder.map((c) =>
    line(labelOf(c), c.color, c[key], c.highlighted ? { value: unit(suffix, digits) } : { value: unit(suffix, digits), width: 1 }, !c.highlighted),
  );
}

const laneHeight = configs.length <= 12 ? 44 : Math.max(20, Math.floor(528 / configs.length));
const timeline = document.querySelector<HTMLElement>('[data-chart="timeline"]');
if (timeline) {
  make(
    timeline,
    {
      height: Math.max(laneHeight * configs.length, 60) + 50,
      series: configs.map(
        (c): uPlot.Series => ({
          label: labelOf(c),
          stroke: c.color,
          scale: 'lane',
          points: { show: false },
          paths: () => null,
          value: (_u, v) => (v == null ? '—' : data.states[v]!),
        }),
      ),
      scales: { lane: { range: [0, Math.max(configs.length, 1)] } },
      // An axis as wide as the other charts' (no ticks, no values), so every chart's time lines up.
      axes: [xAxis(), { scale: 'lane', label: 'state', size: 56, ticks: { show: false }, grid: { show: false }, values: (_u, splits) => splits.map(() => '') }],
      cursor: { y: false, points: { show: false } },
      hooks: { draw: [drawLanes] },
    },
    configs.map((c) => c.state),
    configs.map((c) => !c.highlighted),
  );
}
const upTo100: Range = (_u, _min, max) => [0, Math.max(100, max || 0)];
const fromZero: Range = (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1];
linesChart('failure-rate', 'failure rate %', upTo100, [...perConfiguration('failureRate', ' %', 1), ...thresholds('failureRateThreshold')]);
linesChart('slow-call-rate', 'slow calls %', upTo100, [...perConfiguration('slowCallRate', ' %', 1), ...thresholds('slowCallRateThreshold')]);
linesChart('rejected', 'per second', fromZero, [...requestsBackdrop(), ...perConfiguration('rejected', '/s', 1)]);
linesChart('failed', 'per second', fromZero, [...requestsBackdrop(), ...perConfiguration('failed', '/s', 1)]);
linesChart('window-fill', 'window fill %', upTo100, perConfiguration('windowFill', ' %', 0));
linesChart('latency', 'p50 latency ms', fromZero, perConfiguration('latencyP50', ' ms', 1));
const capacity = data.capacity ? [line('backend capacity', '#9a9a9a', data.capacity, { width: 2, dash: [6, 4], value: unit('', 0) })] : [];
const limits = drawOrder
  .filter((c) => c.limit !== null)
  .map((c) => line(labelOf(c), c.color, c.limit!, c.highlighted ? { value: unit('', 0) } : { value: unit('', 0), width: 1 }, !c.highlighted));
if (limits.length) linesChart('adaptive-limit', 'concurrent calls', fromZero, [...capacity, ...limits]);

let resizing: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('resize', () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => {
    for (const u of charts) u.setSize({ width: (u.root.parentNode as HTMLElement).clientWidth, height: u.height });
  }, 100);
});
document.documentElement.setAttribute('data-charts', String(charts.length));
