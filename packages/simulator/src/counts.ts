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
  }
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
  return result as unknown as Counts;
}
