// The report's time series as the page's chart script reads them (the JSON block): one x axis in
// seconds shared by every configuration, states as indexes into one list, values rounded.
import type { ConfigurationResult, SimulationReport, TimeSeries } from '../report.js';

/** One configuration's series, aligned on {@link ChartData.x}. */
export interface ChartConfiguration {
  readonly name: string;
  readonly color: string;
  /** Its place in the ranking (1 is best), null when there is no ranking (one configuration). */
  readonly rank: number | null;
  /** Whether it has a colour of its own (else grey: more than 8 configurations, ranked past 6). */
  readonly highlighted: boolean;
  readonly failureRateThreshold: number;
  readonly slowCallRateThreshold: number;
  readonly requests: (number | null)[];
  readonly rejected: (number | null)[];
  readonly failed: (number | null)[];
  readonly failureRate: (number | null)[];
  readonly slowCallRate: (number | null)[];
  /** Window fill, % (of `slidingWindowSize` for COUNT_BASED, of `minimumNumberOfCalls` for TIME_BASED). */
  readonly windowFill: (number | null)[];
  /** Index into {@link ChartData.states}; null where this configuration has no bucket. */
  readonly state: (number | null)[];
  /** The median latency of the requests that succeeded in each bucket, ms (null: none, or a report without it). */
  readonly latencyP50: (number | null)[];
  /** An adaptive limiter's limit at each bucket's end; null for a pipeline without one. */
  readonly limit: (number | null)[] | null;
}

/** What the page's charts are drawn from. */
export interface ChartData {
  /** Bucket starts, simulated seconds (the union over every configuration, ascending). */
  readonly x: number[];
  readonly bucketSeconds: number;
  readonly durationSeconds: number;
  /**
   * When a configuration's last bucket is wider than the others (answers long after the traffic
   * folded into it, see `TimeSeries.endMs`): the latest such end, simulated seconds; else null.
   */
  readonly foldedUntilSeconds: number | null;
  readonly phases: { readonly name: string; readonly start: number; readonly end: number }[];
  /** Every state seen, breaker order first (CLOSED, HALF_OPEN, OPEN, …), then any other. */
  readonly states: string[];
  /** The colour of each state in the timeline, parallel to {@link ChartData.states}. */
  readonly stateColors: string[];
  /** Whether every configuration saw the same requests per second (the same traffic): one series then. */
  readonly sameRequests: boolean;
  /** Best first (the ranking's order; the run order with one configuration). */
  readonly configurations: ChartConfiguration[];
  /** Whether any configuration has latencies (the latency chart is drawn). */
  readonly hasLatency: boolean;
  /** The backend's capacity at each bucket's end (null: unlimited), when a phase gives one; else null (the traffic is the same for every configuration). */
  readonly capacity: (number | null)[] | null;
}

// The breaker's states in the order the timeline's key lists them, and their colours there.
const STATE_COLORS: Readonly<Record<string, string>> = {
  CLOSED: '#4CAF7A',
  HALF_OPEN: '#F2B33D',
  OPEN: '#D64545',
  FORCED_OPEN: '#8E1B1B',
  METRICS_ONLY: '#6C8EBF',
  DISABLED: '#A3A3A3',
  NONE: '#E3E6EA', // a pipeline without a breaker
};
const OTHER_STATE_COLOR = '#7E6BA8';

// Distinct on white and for the common colour-vision deficiencies (Okabe–Ito's, and two dark ones):
// every pair at least ΔE 26 apart (CIE76), and from the grey of the configurations not highlighted.
const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#7F3C8D', '#3D3D3D'];
/** The colour of a configuration that is not highlighted (ranked past {@link HIGHLIGHTED} of more than {@link PALETTE}'s 8). */
const GREY = '#B4BAC2';
/** With more configurations than colours, how many of the best keep one. */
const HIGHLIGHTED = 6;

/**
 * The colour of each configuration (in run order), the same in every chart and table, by its place
 * in the ranking: with up to 8 configurations each has its own (the best blue, then vermillion,
 * green, …); with more, the best 6 have theirs and the others are grey, drawn thinner and under them
 * (12 colours on one chart cannot be told apart; the leaders can).
 *
 * @example
 * ```ts
 * configurationColors(report)[report.configurations.findIndex((c) => c.name === report.ranking[0])]; // '#0072B2'
 * ```
 */
export function configurationColors(report: SimulationReport): string[] {
  const n = report.configurations.length;
  const place = new Map(report.ranking.map((name, i) => [name, i]));
  return report.configurations.map((c, i) => {
    const at = place.get(c.name) ?? i;
    return n <= PALETTE.length || at < HIGHLIGHTED ? PALETTE[at % PALETTE.length]! : GREY;
  });
}

/**
 * Builds the charts' data from a report.
 *
 * @example
 * ```ts
 * const data = chartData(report);
 * data.configurations[0]?.failureRate; // % per bucket, null below the minimum number of calls
 * ```
 */
export function chartData(report: SimulationReport): ChartData {
  const configs = report.configurations;
  const x = unionOfBucketStarts(configs.map((c) => c.series));
  const states = stateList(configs);
  const stateIndex = new Map(states.map((s, i) => [s, i]));
  const position = new Map(x.map((t, i) => [t, i]));
  const aligned = <T>(series: TimeSeries, values: readonly T[], map: (v: T) => number | null): (number | null)[] => {
    const out: (number | null)[] = new Array<number | null>(x.length).fill(null);
    series.t.forEach((t, i) => {
      const at = position.get(t / 1000);
      if (at !== undefined && i < values.length) out[at] = map(values[i] as T);
    });
    return out;
  };
  const colors = configurationColors(report);
  const place = new Map(report.ranking.map((name, i) => [name, i]));
  const order = configs.map((c, i) => ({ c, i, at: place.get(c.name) ?? configs.length + i })).sort((a, b) => a.at - b.at);
  const configurations = order.map(({ c, i, at }): ChartConfiguration => {
    const s = c.series;
    return {
      name: c.name,
      color: colors[i]!,
      rank: at < configs.length ? at + 1 : null,
      highlighted: colors[i] !== GREY,
      failureRateThreshold: c.thresholds.failureRateThreshold,
      slowCallRateThreshold: c.thresholds.slowCallRateThreshold,
      requests: aligned(s, s.requestsPerSecond, round),
      rejected: aligned(s, s.rejectedPerSecond, round),
      failed: aligned(s, s.failedPerSecond, round),
      failureRate: aligned(s, s.failureRate, roundOrNull),
      slowCallRate: aligned(s, s.slowCallRate, roundOrNull),
      windowFill: aligned(s, s.windowFill, (v) => round(v * 100)),
      state: aligned(s, s.state, (v) => stateIndex.get(v) ?? null),
      latencyP50: aligned(s, s.latencyP50Ms ?? [], roundOrNull),
      limit: s.limit === undefined ? null : aligned(s, s.limit, round),
    };
  });
  const withCapacity = configs.find((c) => c.series.capacity !== undefined)?.series;
  const first = configurations[0];
  return {
    x,
    bucketSeconds: (configs[0]?.series.bucketMs ?? 1000) / 1000,
    durationSeconds: report.scenario.durationMs / 1000,
    foldedUntilSeconds: foldedUntil(configs.map((c) => c.series)),
    phases: report.scenario.phases.map((p) => ({ name: p.name, start: p.startMs / 1000, end: p.endMs / 1000 })),
    states,
    stateColors: states.map((s) => STATE_COLORS[s] ?? OTHER_STATE_COLOR),
    sameRequests: configurations.every((c) => c.requests.every((v, i) => v === first?.requests[i])),
    configurations,
    hasLatency: configs.some((c) => (c.series.latencyP50Ms ?? []).some((v) => v !== null)),
    capacity: withCapacity === undefined ? null : aligned(withCapacity, withCapacity.capacity!, roundOrNull),
  };
}

function foldedUntil(all: readonly TimeSeries[]): number | null {
  const folded = all.filter((s) => s.t.length > 0 && s.endMs > s.t.at(-1)! + s.bucketMs).map((s) => s.endMs / 1000);
  return folded.length === 0 ? null : Math.max(...folded);
}

function unionOfBucketStarts(all: readonly TimeSeries[]): number[] {
  const first = all[0]?.t ?? [];
  const same = all.every((s) => s.t.length === first.length && s.t.every((t, i) => t === first[i]));
  const starts = same ? first : [...new Set(all.flatMap((s) => s.t))].sort((a, b) => a - b);
  return starts.map((t) => t / 1000);
}

function stateList(configs: readonly ConfigurationResult[]): string[] {
  const seen = new Set(configs.flatMap((c) => [...c.series.state, ...c.transitions.flatMap((s) => [s.from, s.to])]));
  const known = Object.keys(STATE_COLORS).filter((s) => seen.has(s));
  return [...known, ...[...seen].filter((s) => !known.includes(s)).sort()];
}

function round(v: number): number | null {
  return Number.isFinite(v) ? Math.round(v * 100) / 100 : null;
}

function roundOrNull(v: number | null): number | null {
  return v === null ? null : round(v);
}
