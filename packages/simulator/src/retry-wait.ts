import type { Retry } from '@breakwater/retry';

/** What a retry's interval functions get as their state (one object per run, reused). */
export interface IntervalState {
  random: () => number;
  previousWaitMs: number;
}

/** The wait a retry takes after attempt `attempt` failed with `error`, as its config says (a bad value falls back to `waitDuration`). */
export function retryWait(retry: Retry, attempt: number, previousWaitMs: number, error: unknown, state: IntervalState): number {
  const { intervalBiFunction, intervalFunction, waitDuration } = retry.config;
  state.previousWaitMs = previousWaitMs;
  let ms: number = waitDuration;
  if (intervalBiFunction !== undefined) ms = intervalBiFunction(attempt, { error }, state);
  else if (intervalFunction !== undefined) ms = intervalFunction(attempt, state);
  return ms >= 0 && ms !== Infinity ? ms : waitDuration;
}
