import type { Counts } from './report.js';

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
