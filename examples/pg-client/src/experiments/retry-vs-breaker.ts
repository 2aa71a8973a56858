import { runExperimentPipeline } from '../scenarios.js';

/** When the breaker first opened for one retry setting. */
export interface FirstOpening {
  readonly maxAttempts: number;
  /** The payment during which the breaker opened. */
  readonly openedDuringPayment: number;
  /** The first payment refused with CallNotPermittedError (the documents' "opened at payment N"). */
  readonly firstRefusedPayment: number;
  /** Gateway calls made when it opened. */
  readonly gatewayCalls: number;
}

export interface RetryVsBreakerResult {
  readonly seed: number;
  readonly openings: readonly FirstOpening[];
  /** How many seeds the mean is taken over (`seed`, `seed + 1`, …). */
  readonly seeds: number;
  /** Mean over `seeds` seeds of the first refused payment, by maxAttempts. */
  readonly meanFirstRefused: Readonly<Record<number, number>>;
  /** How many payments the breaker calls per payment are measured over. */
  readonly callsPerPaymentSample: number;
  /** Breaker calls per payment, by maxAttempts, over many payments (breaker in METRICS_ONLY). */
  readonly breakerCallsPerPayment: Readonly<Record<number, number>>;
}

/**
 * Payments one at a time (examples/scenarios/retry-vs-breaker.yml, pipeline `retry=N`, on the
 * simulator's engine) until the first one is refused.
 */
export function firstOpening(seed: number, maxAttempts: number): FirstOpening {
  let opened: { payment: number; calls: number } | undefined;
  let firstRefused = -1;
  runExperimentPipeline('retry-vs-breaker', `retry=${maxAttempts}`, {
    seed,
    requests: 1000,
    observe: () => ({
      stateChanged: (change, view) => {
        if (change.to === 'OPEN' && opened === undefined) opened = { payment: view.requests, calls: view.backendCalls };
      },
      requestEnded: (index, outcome) => {
        if (outcome === 'rejected' && firstRefused < 0) firstRefused = index + 1;
      },
    }),
  });
  return { maxAttempts, openedDuringPayment: opened?.payment ?? -1, firstRefusedPayment: firstRefused, gatewayCalls: opened?.calls ?? -1 };
}

/** Breaker calls per payment, measured with the breaker recording but never opening (pipeline `retry=N, breaker in METRICS_ONLY`). */
export function breakerCallsPerPayment(seed: number, maxAttempts: number, payments = 2000): number {
  const result = runExperimentPipeline('retry-vs-breaker', `retry=${maxAttempts}, breaker in METRICS_ONLY`, { seed, requests: payments });
  return result.totals.breakerCallsPerRequest;
}

/**
 * Experiment 1 of the documents: each retry attempt is its own breaker call, so with retry=3
 * the 20-call window fills after about 13 payments and the breaker opens sooner than with retry=1.
 */
export async function retryVsBreaker(seed: number, seeds = 100, payments = 2000): Promise<RetryVsBreakerResult> {
  const openings = [firstOpening(seed, 3), firstOpening(seed, 1)];
  const meanFirstRefused: Record<number, number> = {};
  const breakerCalls: Record<number, number> = {};
  for (const attempts of [3, 1]) {
    let sum = 0;
    for (let s = 0; s < seeds; s++) sum += firstOpening(seed + s, attempts).firstRefusedPayment;
    meanFirstRefused[attempts] = sum / seeds;
    breakerCalls[attempts] = breakerCallsPerPayment(seed, attempts, payments);
  }
  return { seed, openings, seeds, meanFirstRefused, callsPerPaymentSample: payments, breakerCallsPerPayment: breakerCalls };
}
