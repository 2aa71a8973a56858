// What a run can hold and finish (docs/simulator.md: a run's memory is bounded whatever the scenario, and
// sizes that cannot finish are refused up front with the figure). The parser refuses a scenario
// beyond them with its file, line and key; simulate() checks a scenario written by hand the same
// way; the engine stops a run whose requests in flight outgrow what memory can hold.
import type { Phase, Scenario, Traffic } from './scenario.js';

const DAY_MS = 86_400_000;

/**
 * The limits of a run.
 *
 * @example
 * ```ts
 * if (users > LIMITS.maxUsers) console.error(`at most ${LIMITS.maxUsers} users`);
 * ```
 */
export const LIMITS = {
  /** Requests a configuration's run may send (the engine runs about 1.5 M a second: some 10 minutes). */
  maxRequests: 1_000_000_000,
  /** Users of a closed-loop phase (each has a request in flight from the phase's start). */
  maxUsers: 100_000,
  /** Events waiting at once (requests in flight, time-outs, retry waits, waits for a permit, a slot or a server): about 1 KB each. */
  maxPending: 1_000_000,
  /** Any duration of the traffic (a phase, a pause, a latency, a think time, a bucket, a trace's span): 365 days. */
  maxDurationMs: 365 * DAY_MS,
  /** Points of the time series over the traffic (as many again may follow it; see `TimeSeries.endMs`). */
  maxPoints: 100_000,
  /** Bytes of a trace file. */
  maxTraceBytes: 128 * 1024 * 1024,
  /** Bytes of a scenario file. */
  maxScenarioBytes: 16 * 1024 * 1024,
  /** YAML aliases a scenario may resolve (the `yaml` package's `maxAliasCount`): an alias bomb is refused. */
  maxAliasCount: 100,
} as const;

/**
 * A scenario beyond what a run can hold or finish ({@link LIMITS}): too many requests or users,
 * or too many requests in flight at once. The CLI prints it and exits with code 2.
 *
 * @example
 * ```ts
 * try {
 *   simulate(scenario);
 * } catch (error) {
 *   if (error instanceof SimulationLimitError) console.error(error.message); // "… events pending at …; a run holds at most 1,000,000: …"
 * }
 * ```
 */
export class SimulationLimitError extends RangeError {
  override name = 'SimulationLimitError';
}

/** A count for people: `1,000,000,000`. */
export const count = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : String(n));

/**
 * The most requests a phase can send, and how that figure is reached: rate × duration for an open
 * loop; for a closed loop, what its users send when every answer is immediate (an OPEN breaker),
 * users × (duration / thinkTime + 1); never more than the phase's `requests`.
 */
export function phaseRequests(phase: Phase): { readonly requests: number; readonly how: string } {
  if (phase.arrivals === 'none') return { requests: 0, how: 'a pause' };
  const [bound, how] =
    phase.arrivals === 'closed'
      ? [phase.thinkTimeMs > 0 ? phase.users * (Math.floor(phase.durationMs / phase.thinkTimeMs) + 1) : Infinity, 'users × (duration / thinkTime + 1)']
      : [Math.ceil((phase.rate * phase.durationMs) / 1000), 'rate × duration'];
  return phase.maxRequests <= bound ? { requests: phase.maxRequests, how: 'requests' } : { requests: bound, how };
}

/**
 * Checks a scenario against {@link LIMITS} (what the parser refuses with a line, for a scenario
 * written by hand): throws a {@link SimulationLimitError} naming the phase, the value and the limit.
 */
export function checkLimits(scenario: Scenario): void {
  const fail = (what: string): never => {
    throw new SimulationLimitError(what);
  };
  const traffic: Traffic = scenario.traffic;
  if (scenario.bucketMs !== undefined && !(scenario.bucketMs > 0 && scenario.bucketMs <= LIMITS.maxDurationMs)) {
    fail(`bucket must be > 0 and at most ${LIMITS.maxDurationMs} ms, got ${scenario.bucketMs}`);
  }
  const trafficMs = traffic.kind === 'trace' ? (traffic.entries.at(-1)?.atMs ?? 0) + 1 : traffic.phases.reduce((sum, p) => sum + p.durationMs, 0);
  if (scenario.bucketMs !== undefined && trafficMs / scenario.bucketMs > LIMITS.maxPoints) {
    fail(`bucket ${scenario.bucketMs} ms gives ${Math.ceil(trafficMs / scenario.bucketMs)} points for ${trafficMs} ms of traffic; at most ${LIMITS.maxPoints}`);
  }
  if (traffic.kind === 'trace') {
    const span = traffic.entries.at(-1)?.atMs ?? 0;
    if (span > LIMITS.maxDurationMs) fail(`the trace spans ${span} ms, at most ${LIMITS.maxDurationMs} ms`);
    for (const e of traffic.entries) if (e.latencyMs > LIMITS.maxDurationMs) fail(`a trace latency of ${e.latencyMs} ms, at most ${LIMITS.maxDurationMs} ms`);
    return;
  }
  let total = 0;
  for (const phase of traffic.phases) {
    const where = `phase '${phase.name}'`;
    if (phase.arrivals === 'closed' && phase.users > LIMITS.maxUsers) fail(`${where}: users must be at most ${LIMITS.maxUsers}, got ${phase.users}`);
    for (const [key, ms] of [['duration', phase.durationMs], ['thinkTime', phase.thinkTimeMs], ...latencies(phase)] as const) {
      if (!(ms <= LIMITS.maxDurationMs)) fail(`${where}: ${key} must be at most ${LIMITS.maxDurationMs} ms, got ${ms}`);
    }
    const { requests, how } = phaseRequests(phase);
    total += requests;
    if (total > LIMITS.maxRequests)
      fail(`${where}: the traffic sends about ${count(total)} requests up to here (${how}); a run takes at most ${count(LIMITS.maxRequests)}`);
  }
}

function latencies(phase: Phase): [string, number][] {
  const out: [string, number][] = [];
  const slow = phase.backend.slowLatency;
  for (const [key, l] of [
    ['latency', phase.backend.latency],
    ['errorLatency', phase.backend.errorLatency],
    ...(slow === undefined ? [] : ([['slowLatency', slow]] as const)),
  ] as const) {
    out.push([key, l.kind === 'fixed' ? l.ms : l.kind === 'uniform' ? l.max : l.p99]);
  }
  return out;
}
