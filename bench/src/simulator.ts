import { parseScenario, simulate } from '@breakwater/simulator';
import type { Results, SimulatorResult, Target } from './results.js';

/**
 * The scenario of row 13: 1 000 requests/s for `minutes` simulated minutes through Retry(3, 100 ms)
 * → CircuitBreaker(window 100) → TimeLimiter(1 s), against a backend with log-normal latencies,
 * 2% errors and 0.1% hangs, and an incident (60% errors) a tenth of the way from the end, so every
 * path runs: retries, time-outs, rejections, half-open trials.
 */
export function simulatorScenario(minutes: number): string {
  const healthy = Math.round(minutes * 0.8 * 60);
  const incident = Math.round(minutes * 0.1 * 60);
  const after = minutes * 60 - healthy - incident;
  return `
name: row 13
seed: 13
pipelines:
  retry-breaker-timeout:
    - retry: { maxAttempts: 3, waitDuration: 100ms }
    - circuitBreaker: { slidingWindowSize: 100, minimumNumberOfCalls: 50, failureRateThreshold: 50, waitDurationInOpenState: 10s, permittedNumberOfCallsInHalfOpenState: 10 }
    - timeLimiter: { timeoutDuration: 1s }
traffic:
  phases:
    - { name: healthy, duration: ${healthy}s, rate: 1000, errorRatio: 0.02, hangRatio: 0.001, latency: { logNormal: { p50: 40ms, p99: 400ms } } }
    - { name: incident, duration: ${incident}s, rate: 1000, errorRatio: 0.6 }
    - { name: recovered, duration: ${after}s, rate: 1000, errorRatio: 0.02 }
`;
}

/** Row 13: runs {@link simulatorScenario} `runs` times (after one untimed warm-up of a minute) and keeps the median wall time. */
export function measureSimulator(minutes = 60, runs = 1): SimulatorResult {
  simulate(parseScenario(simulatorScenario(1), 'row-13.yml'));
  const scenario = parseScenario(simulatorScenario(minutes), 'row-13.yml');
  const times: number[] = [];
  let requests = 0;
  let breakerCalls = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const report = simulate(scenario);
    times.push(performance.now() - t0);
    requests = report.configurations[0]!.totals.requests;
    breakerCalls = report.configurations[0]!.totals.breakerCalls;
  }
  times.sort((a, b) => a - b);
  return {
    id: '13',
    title: `simulator: ${minutes} simulated minutes of 1 000 requests/s through Retry → CircuitBreaker → TimeLimiter`,
    simulatedMs: minutes * 60_000,
    requests,
    breakerCalls,
    ms: times[Math.floor(times.length / 2)]!,
    runs,
  };
}

const perSecond = (s: SimulatorResult) => s.requests / (s.ms / 1000);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US').replaceAll(',', ' ');

/** Row 13's lines, as plain text. */
export function formatSimulatorText(rows: readonly SimulatorResult[]): string[] {
  return rows.flatMap((s) => [
    `\n${s.id}. ${s.title}`,
    `  ${fmt(s.requests)} requests (${fmt(s.breakerCalls)} breaker calls) in ${(s.ms / 1000).toFixed(1)} s: ${fmt(perSecond(s))} simulated requests/s`,
  ]);
}

/** Row 13's table, as Markdown. */
export function formatSimulatorMarkdown(rows: readonly SimulatorResult[]): string[] {
  return rows.flatMap((s) => [
    `### ${s.id}. ${s.title}`,
    '',
    '| simulated | requests | breaker calls | wall time | simulated requests/s |',
    '|---:|---:|---:|---:|---:|',
    `| ${s.simulatedMs / 60_000} min | ${fmt(s.requests)} | ${fmt(s.breakerCalls)} | ${(s.ms / 1000).toFixed(1)} s | ${fmt(perSecond(s))} |`,
    '',
  ]);
}

/**
 * Row 13's target: one simulated hour of 1 000 requests/s (3.6 M requests) in under `seconds`,
 * judged as a rate (so the short run of `bench:check` is judged the same way).
 */
export function simulatorHourWithin(id: string, seconds: number): Target {
  const description = `row ${id}: one simulated hour of 1 000 requests/s (3.6 M requests) in < ${seconds} s (≥ ${fmt(3_600_000 / seconds)} simulated requests/s)`;
  return {
    description,
    judge(results) {
      const s = (results as Results & { simulator?: readonly SimulatorResult[] }).simulator?.find((x) => x.id === id);
      if (s === undefined) throw new Error(`no simulator row '${id}' in the results`);
      const hour = 3_600_000 / perSecond(s);
      return {
        target: description,
        pass: hour < seconds,
        detail: `${fmt(s.requests)} requests in ${(s.ms / 1000).toFixed(1)} s: ${fmt(perSecond(s))} requests/s, so an hour in ${hour.toFixed(1)} s`,
      };
    },
  };
}
