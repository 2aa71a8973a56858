import { describe, expect, it } from 'vitest';
import { rank, scoreOf, standings, standingsOf } from './ranking.js';
import type { ConfigurationResult, Counts, SeedRun, SimulationReport } from './report.js';

// The ranking's figures and its ties, on configurations made by hand (the counts are all that matter).

function counts(failed: number, rejected: number, breakerCallsPerRequest = 1): Counts {
  return {
    requests: 1000,
    succeeded: 1000 - failed - rejected,
    failed,
    rejected,
    slow: 0,
    timeouts: 0,
    retries: 0,
    breakerCalls: 1000 * breakerCallsPerRequest,
    breakerCallsPerRequest,
  };
}

/** A configuration whose seeds gave these `failed + rejected` counts (all failed), opening at 1 s and recovering after 10 s. */
function config(
  name: string,
  notSucceeded: readonly number[],
  open: { timeToOpenMs: number | null; timeToRecoverMs: number | null } = { timeToOpenMs: 1000, timeToRecoverMs: 10_000 },
): ConfigurationResult {
  const runs: SeedRun[] = notSucceeded.map((n, i) => ({ seed: 7 + i, totals: counts(n, 0), ...open }));
  return {
    name,
    settings: {},
    thresholds: { failureRateThreshold: 50, slowCallRateThreshold: 100 },
    totals: runs[0]!.totals,
    phases: [],
    transitions: [],
    ...open,
    series: {
      bucketMs: 1000,
      endMs: 0,
      t: [],
      requestsPerSecond: [],
      rejectedPerSecond: [],
      failedPerSecond: [],
      failureRate: [],
      slowCallRate: [],
      windowFill: [],
      state: [],
    },
    ...(runs.length > 1 ? { runs } : {}),
  };
}

describe('scores', () => {
  it('one seed: each criterion is that run’s figure, its mean, lowest and highest alike', () => {
    expect(scoreOf(config('a', [12]))).toEqual({
      notSucceeded: { mean: 12, min: 12, max: 12 },
      failed: { mean: 12, min: 12, max: 12 },
      breakerCallsPerRequest: { mean: 1, min: 1, max: 1 },
      timeToRecoverMs: { mean: 10_000, min: 10_000, max: 10_000 },
      timeToOpenMs: { mean: 1000, min: 1000, max: 1000 },
    });
  });

  it('several seeds: the mean, lowest and highest over the runs', () => {
    expect(scoreOf(config('a', [10, 20, 60])).notSucceeded).toEqual({ mean: 30, min: 10, max: 60 });
  });

  it('∞ is null (JSON has no infinity): never opened has no time to open; opened and never closed, no time to recover', () => {
    const never = scoreOf(config('never', [1], { timeToOpenMs: null, timeToRecoverMs: null }));
    expect(never.timeToOpenMs).toEqual({ mean: null, min: null, max: null });
    expect(never.timeToRecoverMs).toEqual({ mean: 0, min: 0, max: 0 }); // never opened: nothing to recover from
    const stuck = scoreOf(config('stuck', [1], { timeToOpenMs: 5000, timeToRecoverMs: null }));
    expect(stuck.timeToRecoverMs).toEqual({ mean: null, min: null, max: null });
    expect(JSON.parse(JSON.stringify(stuck))).toEqual(stuck);
  });
});

describe('rank', () => {
  it('by the mean over the seeds, then the next criteria, then the run order', () => {
    const wide = config('wide', [0, 20]); // mean 10
    const narrow = config('narrow', [11, 13]); // mean 12
    const twin = config('twin of narrow', [11, 13]);
    expect(rank([narrow, twin, wide])).toEqual(['wide', 'narrow', 'twin of narrow']);
    const recoversLater = config('recovers later', [12], { timeToOpenMs: 1000, timeToRecoverMs: 20_000 });
    expect(rank([recoversLater, config('recovers sooner', [12])])).toEqual(['recovers sooner', 'recovers later']);
  });
});

describe('standings: ranks, scores and ties', () => {
  it('a tie group: the configurations after a leader that did as well as it on at least one seed (seed by seed)', () => {
    const list = [config('a', [0, 20]), config('b', [11, 13]), config('c', [30, 40]), config('d', [25, 50]), config('e', [60, 70])];
    const s = standings(list, ['a', 'b', 'c', 'd', 'e']);
    expect(s.map((x) => [x.rank, x.name, x.tie])).toEqual([
      [1, 'a', 1],
      [2, 'b', 1], // worse on seed 1 (11 > 0), better on seed 2 (13 < 20)
      [3, 'c', 3], // worse than a on both seeds: a new group
      [4, 'd', 3],
      [5, 'e', null],
    ]);
    expect(s[3]!.score.notSucceeded).toEqual({ mean: 37.5, min: 25, max: 50 });
  });

  it('ranges that overlap are no tie when one did better on every seed (the runs of a seed share their arrivals)', () => {
    const s = standings([config('a', [100, 200]), config('b', [110, 210])], ['a', 'b']);
    expect(s.map((x) => x.tie)).toEqual([null, null]);
  });

  it('a tie with the one before is not enough: it must tie with the group’s leader', () => {
    const s = standings([config('a', [0, 10]), config('b', [5, 6]), config('c', [4, 12])], ['a', 'b', 'c']);
    expect(s.map((x) => x.tie)).toEqual([1, 1, null]);
  });

  it('runs that do not pair (a report made by hand): overlapping ranges', () => {
    const s = standings([config('a', [100, 200]), config('b', [110, 210, 150])], ['a', 'b']);
    expect(s.map((x) => x.tie)).toEqual([1, 1]);
  });

  it('one seed: a tie only when the counts are equal', () => {
    const s = standings([config('a', [5]), config('b', [5]), config('c', [6])], ['a', 'b', 'c']);
    expect(s.map((x) => x.tie)).toEqual([1, 1, null]);
  });

  it('standingsOf: the report’s own standings, else worked out from its configurations and ranking', () => {
    const configurations = [config('a', [3, 4]), config('b', [1, 2])];
    const report: SimulationReport = { scenario: { name: 's', seed: 7, durationMs: 0, phases: [] }, configurations, ranking: ['b', 'a'] };
    expect(standingsOf(report).map((x) => [x.rank, x.name, x.tie])).toEqual([
      [1, 'b', null],
      [2, 'a', null],
    ]);
    const stored = [{ rank: 1, name: 'b', score: scoreOf(configurations[1]!), tie: 1 }];
    expect(standingsOf({ ...report, standings: stored })).toEqual(stored);
    expect(standingsOf({ ...report, ranking: [] })).toEqual([]);
  });
});
