import type { ConfigurationResult, SimulationReport } from './report.js';
import type { Score, Spread, Standing } from './standing.js';

export type { Score, Spread, Standing } from './standing.js';

/**
 * The ranking order, best first, one criterion after the other (the next one only breaks a tie):
 *
 * 1. fewest requests that did not succeed (`failed + rejected`): what the users saw go wrong;
 * 2. fewest `failed`: a fast refusal costs the caller less than a failure or a time-out;
 * 3. fewest breaker calls per request: less load on a backend that is struggling;
 * 4. shortest time to recover (never opened counts as 0; opened and never closed again as ∞);
 * 5. shortest time to open (never opened counts as ∞): the sooner an incident is seen, the better;
 * 6. the run order.
 *
 * With several seeds (`--seeds`), each criterion is the mean over the seeds.
 *
 * @example
 * ```ts
 * console.log(`ranked by ${RANKING_CRITERIA.join(', then ')}`);
 * ```
 */
export const RANKING_CRITERIA = ['failed + rejected', 'failed', 'breaker calls per request', 'time to recover', 'time to open'] as const;

type Run = Pick<ConfigurationResult, 'totals' | 'timeToOpenMs' | 'timeToRecoverMs'>;

const runsOf = (c: ConfigurationResult): readonly Run[] => (c.runs !== undefined && c.runs.length > 0 ? c.runs : [c]);

function spread(values: readonly number[]): Spread {
  const finite = (v: number): number | null => (v === Infinity ? null : v);
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  return { mean: finite(mean), min: finite(Math.min(...values)), max: finite(Math.max(...values)) };
}

/**
 * A configuration's {@link Score}: over its `runs` (one per seed) when it has them, else over its totals.
 *
 * @example
 * ```ts
 * scoreOf(report.configurations[0]!).notSucceeded; // { mean: 1234, min: 1234, max: 1234 } with one seed
 * ```
 */
export function scoreOf(c: ConfigurationResult): Score {
  const runs = runsOf(c);
  const of = (key: (r: Run) => number): Spread => spread(runs.map(key));
  return {
    notSucceeded: of((r) => r.totals.failed + r.totals.rejected),
    failed: of((r) => r.totals.failed),
    breakerCallsPerRequest: of((r) => r.totals.breakerCallsPerRequest),
    timeToRecoverMs: of((r) => (r.timeToOpenMs === null ? 0 : (r.timeToRecoverMs ?? Infinity))),
    timeToOpenMs: of((r) => r.timeToOpenMs ?? Infinity),
  };
}

const inf = (v: number | null): number => v ?? Infinity;

/** Compares two scores by {@link RANKING_CRITERIA} (means): negative when `a` ranks before `b`. */
function compare(a: Score, b: Score): number {
  for (const key of ['notSucceeded', 'failed', 'breakerCallsPerRequest', 'timeToRecoverMs', 'timeToOpenMs'] as const) {
    const x = inf(a[key].mean);
    const y = inf(b[key].mean);
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * Configuration names best first, by {@link RANKING_CRITERIA} (ties keep the run order).
 *
 * @example
 * ```ts
 * const report = simulate(scenario);
 * rank(report.configurations); // ['slidingWindowSize=20', 'slidingWindowSize=50', …]
 * ```
 */
export function rank(configurations: readonly ConfigurationResult[]): string[] {
  return configurations
    .map((c, i) => ({ c, i, score: scoreOf(c) }))
    .sort((x, y) => compare(x.score, y.score) || x.i - y.i)
    .map(({ c }) => c.name);
}

const notSucceeded = (c: ConfigurationResult): number[] => runsOf(c).map((r) => r.totals.failed + r.totals.rejected);

/**
 * Whether `candidate` (ranked after `leader`) cannot be told apart from it: on at least one seed it
 * had no more requests go wrong. Runs of one seed share their arrivals, so the seeds are compared
 * pair by pair; with one seed this is the same count. Runs that do not pair (a report made by
 * hand) fall back to overlapping ranges.
 */
function tied(leader: ConfigurationResult, candidate: ConfigurationResult): boolean {
  const a = notSucceeded(leader);
  const b = notSucceeded(candidate);
  if (a.length !== b.length) return Math.min(...a) <= Math.max(...b) && Math.min(...b) <= Math.max(...a);
  return b.some((v, k) => v <= a[k]!) && a.some((v, k) => v <= b[k]!);
}

/**
 * The standings of configurations in a given order (best first): rank, score and tie group. A tie
 * group starts at a configuration and holds the ones after it that did as well as it on at least
 * one seed (`failed + rejected`, seed by seed: the runs of one seed see the same arrivals): the data
 * cannot tell them apart on what users saw go wrong. With one seed, a tie is the same count.
 *
 * @example
 * ```ts
 * standings(report.configurations, report.ranking).filter((s) => s.tie === 1); // the configurations tied with the best
 * ```
 */
export function standings(configurations: readonly ConfigurationResult[], order: readonly string[]): Standing[] {
  const byName = new Map(configurations.map((c) => [c.name, c]));
  const ranked = order.flatMap((name) => {
    const c = byName.get(name);
    return c === undefined ? [] : [c];
  });
  // Greedy from the top: a group leader, then every next one tied with the leader.
  const starts: number[] = [];
  ranked.forEach((c, i) => {
    const leader = starts[i - 1] ?? 0;
    starts.push(i > 0 && tied(ranked[leader]!, c) ? leader : i);
  });
  return ranked.map((c, i) => {
    const start = starts[i]!;
    const tie = starts.filter((s) => s === start).length > 1; // a group of one is no tie
    return { rank: i + 1, name: c.name, score: scoreOf(c), tie: tie ? start + 1 : null };
  });
}

/**
 * The report's standings (best first): `report.standings` when the run stored them, else worked
 * out from its configurations and ranking (a report made by hand).
 *
 * @example
 * ```ts
 * const best = standingsOf(report)[0]; // { rank: 1, name, score, tie }
 * ```
 */
export function standingsOf(report: SimulationReport): Standing[] {
  if (report.standings !== undefined) return [...report.standings];
  return report.ranking.length === 0 ? [] : standings(report.configurations, report.ranking);
}
