import { describe, expect, it } from 'vitest';
import { parseScenario } from './parse-scenario.js';
import { simulate } from './simulate.js';

const yaml = (seed: number) => `
seed: ${seed}
pipelines:
  p:
    - retry: { maxAttempts: 3, waitDuration: 50ms }
    - circuitBreaker: { slidingWindowSize: 20, minimumNumberOfCalls: 10, waitDurationInOpenState: 2s, permittedNumberOfCallsInHalfOpenState: 3 }
    - timeLimiter: { timeoutDuration: 300ms }
traffic:
  phases:
    - { duration: 10s, rate: 40, errorRatio: 0.2, hangRatio: 0.05, latency: { logNormal: { p50: 40ms, p99: 500ms } } }
    - { duration: 10s, rate: 40, errorRatio: 0.7 }
`;

describe('seeded runs', () => {
  it('the same seed gives the same report, to the last number', () => {
    const a = JSON.stringify(simulate(parseScenario(yaml(7))));
    const b = JSON.stringify(simulate(parseScenario(yaml(7))));
    expect(b).toBe(a);
  });

  it('another seed gives another report', () => {
    const a = simulate(parseScenario(yaml(7))).configurations[0]!.totals;
    const b = simulate(parseScenario(yaml(8))).configurations[0]!.totals;
    expect(b).not.toEqual(a);
  });

  it('every configuration of a scenario sees the same arrivals', () => {
    const twice = yaml(3).replace('pipelines:\n  p:', 'pipelines:\n  bare: []\n  p:');
    const [bare, p] = simulate(parseScenario(twice)).configurations;
    // (p's series may have one more bucket: its last retries end after the traffic.)
    const n = 20_000 / bare!.series.bucketMs;
    expect(bare!.series.requestsPerSecond.slice(0, n)).toEqual(p!.series.requestsPerSecond.slice(0, n));
    expect(bare!.totals.requests).toBe(p!.totals.requests);
  });

  it('reports its progress now and then, in simulated time, up to the end', () => {
    const seen: number[] = [];
    const busy = yaml(1).replaceAll('rate: 40', 'rate: 2000');
    simulate(parseScenario(busy), { progress: (i, of, ms, total) => void (expect([i, of, total]).toEqual([0, 1, 20_000]), seen.push(ms)) });
    expect(seen.length).toBeGreaterThan(0);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect(seen.at(-1)!).toBeLessThanOrEqual(21_000);
  });
});
