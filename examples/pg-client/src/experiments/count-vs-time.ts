import { CallNotPermittedError, type CircuitBreakerConfig } from '@breakwater/circuit-breaker';
import { VirtualClock } from '@breakwater/core';
import { pgClient } from '../client.js';
import { Driver, type PaymentOutcome } from '../drive.js';
import { PaymentGateway } from '../gateway.js';
import { seededRandom } from '../random.js';

/** The documents' load pattern: 15 rps for 5 s, 15 s of silence, then 5 rps (here for 30 s). */
export const PHASES = { burst: { rps: 15, seconds: 5 }, pauseSeconds: 15, resume: { rps: 5, seconds: 30 } } as const;

/**
 * When the payments of one phase arrive: `count` whole-ms times drawn uniformly over
 * `[from, from + spanMs)` and sorted (a Poisson arrival process with its count fixed), so the
 * phase keeps its average rate and its number of payments while the seed moves each arrival.
 */
export function arrivals(random: () => number, count: number, from: number, spanMs: number): number[] {
  return Array.from({ length: count }, () => from + Math.floor(random() * spanMs)).sort((a, b) => a - b);
}

/** The arrival times of both phases for one seed (its own stream, apart from the gateway's). */
export function arrivalTimes(seed: number): { burst: number[]; resume: number[] } {
  const random = seededRandom(seed ^ 0x5bd1e995);
  const { burst: b, pauseSeconds, resume: r } = PHASES;
  return {
    burst: arrivals(random, b.rps * b.seconds, 0, b.seconds * 1000),
    resume: arrivals(random, r.rps * r.seconds, (b.seconds + pauseSeconds) * 1000, r.seconds * 1000),
  };
}

export interface WindowRun {
  readonly window: string;
  readonly payments: number;
  /** Share of every payment refused by the breaker, %. */
  readonly rejectedPercent: number;
  /** After the pause: share of payments the breaker let through, and share that succeeded, %. */
  readonly letThroughAfterPausePercent: number;
  readonly succeededAfterPausePercent: number;
  readonly stateAfterPause: string;
}

/**
 * One window type through the pattern: the burst hits the gateway while it hangs (an incident:
 * every call times out), the gateway comes back during the pause but slow (150–300 ms, no errors).
 * One attempt per payment, so the windows are compared on the same calls. The seed draws the
 * arrival times (see {@link arrivalTimes}) and the gateway's latencies.
 */
export async function runPattern(seed: number, window: CircuitBreakerConfig, label: string): Promise<WindowRun> {
  const clock = new VirtualClock();
  const gateway = new PaymentGateway({ clock, random: seededRandom(seed), mode: 'hang' });
  const { requestPayment, breaker } = pgClient({ clock, gateway, maxAttempts: 1, breaker: window });
  const driver = new Driver(clock);
  const classify = (e: unknown): PaymentOutcome => (e instanceof CallNotPermittedError ? 'rejected' : 'failed');
  const burst: Promise<PaymentOutcome>[] = [];
  const resume: Promise<PaymentOutcome>[] = [];
  const { burst: b, pauseSeconds } = PHASES;
  const at = arrivalTimes(seed);
  for (const [i, time] of at.burst.entries()) {
    await driver.until(time);
    burst.push(driver.start(() => requestPayment({ orderId: `burst-${i}`, amount: 100 }), classify));
  }
  const resumeAt = (b.seconds + pauseSeconds) * 1000;
  await driver.until(resumeAt - 1000);
  gateway.mode = 'slow';
  const stateAfterPause = breaker.state;
  for (const [i, time] of at.resume.entries()) {
    await driver.until(time);
    resume.push(driver.start(() => requestPayment({ orderId: `resume-${i}`, amount: 100 }), classify));
  }
  await driver.settle();
  const all = await Promise.all([...burst, ...resume]);
  const after = await Promise.all(resume);
  const pct = (list: PaymentOutcome[], pred: (o: PaymentOutcome) => boolean) => (100 * list.filter(pred).length) / list.length;
  return {
    window: label,
    payments: all.length,
    rejectedPercent: pct(all, (o) => o === 'rejected'),
    letThroughAfterPausePercent: pct(after, (o) => o !== 'rejected'),
    succeededAfterPausePercent: pct(after, (o) => o === 'ok'),
    stateAfterPause,
  };
}

/** Experiment 3 of the documents: COUNT_BASED(20) vs TIME_BASED(10 s) through burst → pause → resume. */
export async function countVsTime(seed: number): Promise<readonly WindowRun[]> {
  return [
    await runPattern(seed, { slidingWindowType: 'COUNT_BASED', slidingWindowSize: 20 }, 'COUNT_BASED(20)'),
    await runPattern(seed, { slidingWindowType: 'TIME_BASED', slidingWindowSize: 10 }, 'TIME_BASED(10 s)'),
  ];
}
