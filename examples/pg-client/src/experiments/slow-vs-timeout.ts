import { breakerIn, runExperimentPipeline } from '../scenarios.js';

/** How the breaker opened with one time-out. */
export interface OpenedBy {
  readonly timeoutMs: number;
  /** The rate events published when it opened. */
  readonly openedBy: readonly ('failure rate' | 'slow-call rate')[];
  /** The cause the breaker gave its first CLOSED → OPEN transition. */
  readonly cause: string;
  readonly failureRate: number;
  readonly slowCallRate: number;
  /** Time-outs when it opened. */
  readonly timeouts: number;
  /** The payment during which it opened. */
  readonly payments: number;
}

/**
 * Payments one at a time through examples/scenarios/slow-vs-timeout.yml (pipeline
 * `time-out N ms`, on the simulator's engine) until the breaker opens; which rate opened it.
 */
export function openedBy(seed: number, timeoutMs: number): OpenedBy {
  const rates: ('failure rate' | 'slow-call rate')[] = [];
  let result: OpenedBy | undefined;
  runExperimentPipeline('slow-vs-timeout', `time-out ${timeoutMs} ms`, {
    seed,
    requests: 1000,
    observe: (layers) => {
      const breaker = breakerIn(layers);
      breaker.on('failureRateExceeded', () => void (result === undefined && rates.push('failure rate')));
      breaker.on('slowCallRateExceeded', () => void (result === undefined && rates.push('slow-call rate')));
      return {
        stateChanged: (change, view) => {
          if (change.to !== 'OPEN' || result !== undefined) return;
          const m = breaker.metrics;
          result = {
            timeoutMs,
            openedBy: [...rates],
            cause: change.cause,
            failureRate: m.failureRate,
            slowCallRate: m.slowCallRate,
            timeouts: view.timeouts,
            payments: view.requests,
          };
        },
      };
    },
  });
  return result ?? { timeoutMs, openedBy: [], cause: '', failureRate: -1, slowCallRate: -1, timeouts: 0, payments: 1000 };
}

/** Experiment 2 of the documents: a time-out is a failure, not a slow call. */
export async function slowVsTimeout(seed: number): Promise<readonly OpenedBy[]> {
  return [openedBy(seed, 600), openedBy(seed, 1000)];
}
