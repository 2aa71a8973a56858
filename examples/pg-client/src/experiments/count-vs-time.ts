import { experimentPhases, runExperimentPipeline, stateAt } from '../scenarios.js';

export interface WindowRun {
  readonly window: string;
  readonly payments: number;
  /** Share of every payment refused by the breaker, %. */
  readonly rejectedPercent: number;
  /** After the pause: share of payments the breaker let through, and share that succeeded, %. */
  readonly letThroughAfterPausePercent: number;
  readonly succeededAfterPausePercent: number;
  /** The breaker's state when the traffic resumes. */
  readonly stateAfterPause: string;
}

/**
 * One window type through examples/scenarios/count-vs-time.yml (burst while the gateway hangs,
 * a pause while it comes back slow, then a lighter load), on the simulator's engine. The seed
 * draws the arrival times (Poisson) and the gateway's latencies.
 */
export function runPattern(seed: number, window: 'COUNT_BASED(20)' | 'TIME_BASED(10 s)'): WindowRun {
  const result = runExperimentPipeline('count-vs-time', window, { seed });
  const resume = result.phases.at(-1)!;
  const resumeAt = experimentPhases('count-vs-time')
    .slice(0, -1)
    .reduce((t, p) => t + p.durationMs, 0);
  const pct = (n: number, of: number) => (of === 0 ? 0 : (100 * n) / of);
  return {
    window,
    payments: result.totals.requests,
    rejectedPercent: pct(result.totals.rejected, result.totals.requests),
    letThroughAfterPausePercent: pct(resume.requests - resume.rejected, resume.requests),
    succeededAfterPausePercent: pct(resume.succeeded, resume.requests),
    stateAfterPause: stateAt(result, resumeAt),
  };
}

/** Experiment 3 of the documents: COUNT_BASED(20) vs TIME_BASED(10 s) through burst → pause → resume. */
export async function countVsTime(seed: number): Promise<readonly WindowRun[]> {
  return [runPattern(seed, 'COUNT_BASED(20)'), runPattern(seed, 'TIME_BASED(10 s)')];
}
