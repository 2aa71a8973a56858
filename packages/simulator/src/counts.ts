import { LatencyHistogram } from './latency-histogram.js';
import type { ConfigurationResult, Counts } from './report.js';

/** Counts being added up during a run (one per phase); {@link freezeCounts} makes the report's. */
export class Tally {
  requests = 0;
  succeeded = 0;
  failed = 0;
  rejected = 0;
  slow = 0;
  timeouts = 0;
  retries = 0;
  breakerCalls = 0;
  unfinished = 0;
  /** Calls the backend failed at once, at capacity with its queue full. */
  overloaded = 0;
  /**
   * Calls through a hedge; its attempts beyond the primary; its calls won by each attempt (index 0:
   * the primary; the engine sizes it for a pipeline with a hedge, else it stays empty).
   */
  hedgeCalls = 0;
  hedgedAttempts = 0;
  hedgeWins: number[] = [];
  /** Whether the pipeline has a chaos layer; calls through one (each layer's); those it injected a fault, a latency, an outcome into. */
  chaos = false;
  chaosCalls = 0;
  injectedFaults = 0;
  injectedLatencies = 0;
  injectedOutcomes = 0;
  /** How long the requests that succeeded took, from arrival to answer. */
  readonly latency = new LatencyHistogram();
}

/** The report's counts of one or more tallies added together. */
export function freezeCounts(tallies: readonly Tally[]): Counts {
  const sum = new Tally();
  for (const t of tallies) {
    sum.requests += t.requests;
    sum.succeeded += t.succeeded;
    sum.failed += t.failed;
    sum.rejected += t.rejected;
    sum.slow += t.slow;
    sum.timeouts += t.timeouts;
    sum.retries += t.retries;
    sum.breakerCalls += t.breakerCalls;
    sum.unfinished += t.unfinished;
    sum.overloaded += t.overloaded;
    sum.latency.add(t.latency);
    sum.hedgeCalls += t.hedgeCalls;
    sum.hedgedAttempts += t.hedgedAttempts;
    t.hedgeWins.forEach((n, i) => void (sum.hedgeWins[i] = (sum.hedgeWins[i] ?? 0) + n));
    sum.chaos ||= t.chaos;
    sum.chaosCalls += t.chaosCalls;
    sum.injectedFaults += t.injectedFaults;
    sum.injectedLatencies += t.injectedLatencies;
    sum.injectedOutcomes += t.injectedOutcomes;
  }
  const width = Math.max(0, ...tallies.map((t) => t.hedgeWins.length));
  return {
    requests: sum.requests,
    succeeded: sum.succeeded,
    failed: sum.failed,
    rejected: sum.rejected,
    slow: sum.slow,
    timeouts: sum.timeouts,
    retries: sum.retries,
    breakerCalls: sum.breakerCalls,
    breakerCallsPerRequest: sum.requests === 0 ? 0 : sum.breakerCalls / sum.requests,
    unfinished: sum.unfinished,
    overloaded: sum.overloaded,
    latencyP50Ms: sum.latency.quantile(0.5),
    latencyP99Ms: sum.latency.quantile(0.99),
    ...(width > 0
      ? {
          hedgeCalls: sum.hedgeCalls,
          hedgedAttempts: sum.hedgedAttempts,
          hedgedAttemptsPerCall: sum.hedgeCalls === 0 ? 0 : sum.hedgedAttempts / sum.hedgeCalls,
          hedgeWins: Array.from({ length: width }, (_, i) => sum.hedgeWins[i] ?? 0),
        }
      : {}),
    ...(sum.chaos
      ? { chaosCalls: sum.chaosCalls, injectedFaults: sum.injectedFaults, injectedLatencies: sum.injectedLatencies, injectedOutcomes: sum.injectedOutcomes }
      : {}),
  };
}

const KEYS = [
  'requests',
  'succeeded',
  'failed',
  'rejected',
  'slow',
  'timeouts',
  'retries',
  'breakerCalls',
  'breakerCallsPerRequest',
  'unfinished',
  'overloaded',
] as const;
const LATENCY_KEYS = ['latencyP50Ms', 'latencyP99Ms'] as const;
/** Counts only a pipeline with a hedge or a chaos layer has: in the mean only when the first seed's run has them. */
const OPTIONAL_KEYS = [
  'hedgeCalls',
  'hedgedAttempts',
  'hedgedAttemptsPerCall',
  'chaosCalls',
  'injectedFaults',
  'injectedLatencies',
  'injectedOutcomes',
] as const;

/**
 * A configuration's totals: the mean over its seeds when it ran with several (`runs`), else its own.
 *
 * @example
 * ```ts
 * meanCounts(report.configurations[0]!).failed; // 41.5 over two seeds that failed 40 and 43 requests
 * ```
 */
export function meanCounts(c: ConfigurationResult): Counts {
  const runs = c.runs;
  if (runs === undefined || runs.length === 0) return c.totals;
  const result: Record<string, number | null> = {};
  for (const key of KEYS) result[key] = runs.reduce((sum, r) => sum + (r.totals[key] ?? 0), 0) / runs.length;
  for (const key of LATENCY_KEYS) {
    const values = runs.map((r) => r.totals[key]).filter((v): v is number => typeof v === 'number');
    result[key] = values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
  }
  for (const key of OPTIONAL_KEYS) if (runs[0]!.totals[key] !== undefined) result[key] = runs.reduce((sum, r) => sum + (r.totals[key] ?? 0), 0) / runs.length;
  const wins = runs[0]!.totals.hedgeWins;
  const mean = wins && wins.map((_, i) => runs.reduce((sum, r) => sum + (r.totals.hedgeWins?.[i] ?? 0), 0) / runs.length);
  return (mean === undefined ? result : { ...result, hedgeWins: mean }) as unknown as Counts;
}
