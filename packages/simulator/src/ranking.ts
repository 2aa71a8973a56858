import type { ConfigurationResult } from './report.js';

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
 * @example
 * ```ts
 * console.log(`ranked by ${RANKING_CRITERIA.join(', then ')}`);
 * ```
 */
export const RANKING_CRITERIA = ['failed + rejected', 'failed', 'breaker calls per request', 'time to recover', 'time to open'] as const;

const recover = (c: ConfigurationResult) => (c.timeToOpenMs === null ? 0 : (c.timeToRecoverMs ?? Infinity));
const open = (c: ConfigurationResult) => c.timeToOpenMs ?? Infinity;

/** Compares two configurations by {@link RANKING_CRITERIA}: negative when `a` ranks before `b`. */
function compare(a: ConfigurationResult, b: ConfigurationResult): number {
  const keys: ((c: ConfigurationResult) => number)[] = [
    (c) => c.totals.failed + c.totals.rejected,
    (c) => c.totals.failed,
    (c) => c.totals.breakerCallsPerRequest,
    recover,
    open,
  ];
  for (const key of keys) {
    const x = key(a);
    const y = key(b);
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
    .map((c, i) => ({ c, i }))
    .sort((x, y) => compare(x.c, y.c) || x.i - y.i)
    .map(({ c }) => c.name);
}
