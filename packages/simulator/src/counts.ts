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
  };
}

const KEYS = ['requests', 'succeeded', 'failed', 'rejected', 'slow', 'timeouts', 'retries', 'breakerCalls', 'breakerCallsPerRequest', 'unfinished'] as const;

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
  const out: Record<string, number> = {};
  for (const key of KEYS) out[key] = runs.reduce((sum, r) => sum + (r.totals[key] ?? 0), 0) / runs.length;
  return out as unknown as Counts;
}
