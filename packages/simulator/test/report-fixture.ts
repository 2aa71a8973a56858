// A realistic SimulationReport made by hand for the HTML report's tests and its README screenshot,
// independent of the engine: six minutes of checkout traffic (steady, an outage, a degraded spell,
// recovery) against three breaker configurations, played by a small COUNT_BASED breaker model
// (openings on failure rate and slow-call rate, half-open trials that fail and that pass,
// recovery). Deterministic: a seeded generator decides each call.
import type { ConfigurationResult, Counts, SimulationReport, StateChange } from '../src/report.js';
import { seededRandom } from '../src/random.js';

interface Phase {
  name: string;
  seconds: number;
  rate: number;
  errors: number;
  slow: number;
}
interface Breaker {
  name: string;
  windowSize: number;
  minimumNumberOfCalls: number;
  failureRateThreshold: number;
  slowCallRateThreshold: number;
  waitMs: number;
  permittedInHalfOpen: number;
  retries: number;
}

const PHASES: readonly Phase[] = [
  { name: 'steady', seconds: 90, rate: 40, errors: 0.02, slow: 0.03 },
  { name: 'outage', seconds: 80, rate: 40, errors: 0.75, slow: 0.2 },
  { name: 'degraded', seconds: 70, rate: 40, errors: 0.1, slow: 0.55 },
  { name: 'recovered', seconds: 120, rate: 40, errors: 0.01, slow: 0.02 },
];

/** The three configurations compared by {@link reportFixture}. */
export const FIXTURE_BREAKERS: readonly Breaker[] = [
  {
    name: 'resilience4j defaults',
    windowSize: 100,
    minimumNumberOfCalls: 100,
    failureRateThreshold: 50,
    slowCallRateThreshold: 100,
    waitMs: 60_000,
    permittedInHalfOpen: 10,
    retries: 0,
  },
  {
    name: 'fast: window 20, wait 10s',
    windowSize: 20,
    minimumNumberOfCalls: 10,
    failureRateThreshold: 50,
    slowCallRateThreshold: 50,
    waitMs: 10_000,
    permittedInHalfOpen: 5,
    retries: 0,
  },
  {
    name: 'strict 25% + 1 retry',
    windowSize: 50,
    minimumNumberOfCalls: 20,
    failureRateThreshold: 25,
    slowCallRateThreshold: 40,
    waitMs: 30_000,
    permittedInHalfOpen: 10,
    retries: 1,
  },
];

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
const COUNTED = ['requests', 'succeeded', 'failed', 'rejected', 'slow', 'timeouts', 'retries', 'breakerCalls'] as const;
const zero = (): Mutable<Counts> => ({
  requests: 0,
  succeeded: 0,
  failed: 0,
  rejected: 0,
  slow: 0,
  timeouts: 0,
  retries: 0,
  breakerCalls: 0,
  breakerCallsPerRequest: 0,
});

function run(b: Breaker, names: { name: string }, seed: number): ConfigurationResult {
  const random = seededRandom(seed); // the backend's outcomes
  const traffic = seededRandom(42); // the arrivals: the same traffic for every configuration
  const bucketMs = 1000;
  let state = 'CLOSED';
  let window: { failed: boolean; slow: boolean }[] = [];
  let size = b.windowSize;
  let openUntil = 0;
  let permits = 0;
  const transitions: StateChange[] = [];
  const move = (atMs: number, to: string, cause: string): void => {
    transitions.push({ atMs, from: state, to, cause });
    state = to;
    if (to !== 'OPEN') window = []; // OPEN keeps the metrics that opened it visible
    if (to === 'OPEN') openUntil = atMs + b.waitMs;
    if (to === 'HALF_OPEN') (size = b.permittedInHalfOpen), (permits = b.permittedInHalfOpen);
    if (to === 'CLOSED') size = b.windowSize;
  };
  const rates = (): [number, number] | null => {
    const minimum = state === 'HALF_OPEN' ? Math.min(b.minimumNumberOfCalls, b.permittedInHalfOpen) : Math.min(b.minimumNumberOfCalls, b.windowSize);
    if (window.length < minimum) return null;
    const failed = window.filter((c) => c.failed).length;
    const slow = window.filter((c) => c.slow).length;
    return [(failed / window.length) * 100, (slow / window.length) * 100];
  };
  // One attempt through the breaker at `atMs`: permitted or not; if permitted, its outcome recorded.
  const attempt = (atMs: number, phase: Phase, counts: Mutable<Counts>): 'ok' | 'failed' | 'rejected' => {
    counts.breakerCalls++;
    if (state === 'OPEN' && atMs > openUntil) move(atMs, 'HALF_OPEN', 'wait_elapsed');
    if (state === 'OPEN' || (state === 'HALF_OPEN' && permits === 0)) return 'rejected';
    if (state === 'HALF_OPEN') permits--;
    const failed = random() < phase.errors;
    const slow = random() < phase.slow;
    if (slow) counts.slow++;
    if (failed && slow) counts.timeouts++;
    window.push({ failed, slow });
    if (window.length > size) window.shift();
    const r = rates();
    if (state === 'CLOSED' && r !== null && (r[0] >= b.failureRateThreshold || r[1] >= b.slowCallRateThreshold)) {
      move(atMs, 'OPEN', r[0] >= b.failureRateThreshold ? 'failure_rate' : 'slow_call_rate');
    } else if (state === 'HALF_OPEN' && r !== null) {
      move(atMs, r[0] >= b.failureRateThreshold || r[1] >= b.slowCallRateThreshold ? 'OPEN' : 'CLOSED', 'half_open_trial');
    }
    return failed ? 'failed' : 'ok';
  };

  const totals = zero();
  const phases: (Counts & { name: string })[] = [];
  const series = {
    bucketMs,
    endMs: 0,
    t: [] as number[],
    requestsPerSecond: [] as number[],
    rejectedPerSecond: [] as number[],
    failedPerSecond: [] as number[],
    failureRate: [] as (number | null)[],
    slowCallRate: [] as (number | null)[],
    windowFill: [] as number[],
    state: [] as string[],
  };
  let startMs = 0;
  for (const phase of PHASES) {
    const counts = zero();
    for (let s = 0; s < phase.seconds; s++) {
      const bucketStart = startMs + s * bucketMs;
      const bucket = zero();
      const arrivals = Math.round(phase.rate * (0.85 + 0.3 * traffic()));
      for (let i = 0; i < arrivals; i++) {
        const at = bucketStart + Math.floor((i * bucketMs) / arrivals);
        bucket.requests++;
        let outcome = attempt(at, phase, bucket);
        for (let retry = 0; retry < b.retries && outcome === 'failed'; retry++) bucket.retries++, (outcome = attempt(at + 50, phase, bucket));
        bucket[outcome === 'ok' ? 'succeeded' : outcome === 'failed' ? 'failed' : 'rejected']++;
      }
      const r = rates();
      series.t.push(bucketStart);
      series.requestsPerSecond.push(bucket.requests);
      series.rejectedPerSecond.push(bucket.rejected);
      series.failedPerSecond.push(bucket.failed);
      series.failureRate.push(r === null ? null : r[0]);
      series.slowCallRate.push(r === null ? null : r[1]);
      series.windowFill.push(window.length / size);
      series.state.push(state);
      for (const key of COUNTED) (counts[key] += bucket[key]), (totals[key] += bucket[key]);
    }
    counts.breakerCallsPerRequest = counts.requests === 0 ? 0 : counts.breakerCalls / counts.requests;
    phases.push({ name: phase.name, ...counts });
    startMs += phase.seconds * 1000;
  }
  series.endMs = startMs;
  totals.breakerCallsPerRequest = totals.requests === 0 ? 0 : totals.breakerCalls / totals.requests;
  const opened = transitions.find((t) => t.to === 'OPEN');
  const closed = opened && transitions.find((t) => t.to === 'CLOSED' && t.atMs > opened.atMs);
  return {
    name: names.name,
    settings: {
      slidingWindowSize: b.windowSize,
      minimumNumberOfCalls: b.minimumNumberOfCalls,
      failureRateThreshold: b.failureRateThreshold,
      slowCallRateThreshold: b.slowCallRateThreshold,
      waitDurationInOpenState: `${b.waitMs / 1000}s`,
      retries: b.retries,
    },
    thresholds: { failureRateThreshold: b.failureRateThreshold, slowCallRateThreshold: b.slowCallRateThreshold },
    totals,
    phases,
    transitions,
    timeToOpenMs: opened?.atMs ?? null,
    timeToRecoverMs: opened && closed ? closed.atMs - opened.atMs : null,
    series,
  };
}

/**
 * A six-minute, three-configuration report (360 one-second buckets each). `names` renames the
 * configurations in order (e.g. hostile names for the escaping tests); `count` keeps the first few.
 *
 * @example
 * ```ts
 * const html = renderHtml(reportFixture());
 * ```
 */
export function reportFixture(options: { names?: readonly string[]; count?: number; scenarioName?: string } = {}): SimulationReport {
  const breakers = FIXTURE_BREAKERS.slice(0, options.count ?? FIXTURE_BREAKERS.length);
  const configurations = breakers.map((b, i) => run(b, { name: options.names?.[i] ?? b.name }, 1234 + i));
  const durationMs = PHASES.reduce((sum, p) => sum + p.seconds * 1000, 0);
  let at = 0;
  const phases = PHASES.map((p) => ({ name: p.name, startMs: at, endMs: (at += p.seconds * 1000) }));
  const badness = (c: ConfigurationResult): number => c.totals.failed + c.totals.rejected;
  return {
    scenario: {
      name: options.scenarioName ?? 'checkout: payment gateway outage',
      file: 'examples/scenarios/checkout-outage.yaml',
      seed: 42,
      durationMs,
      phases,
    },
    configurations,
    ranking: configurations.length < 2 ? [] : [...configurations].sort((a, b) => badness(a) - badness(b)).map((c) => c.name),
  };
}
