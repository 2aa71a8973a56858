import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CircuitBreaker } from '@breakwater/circuit-breaker';
import { parseScenarioFile } from './parse-scenario.js';
import type { StateChange } from './report.js';
import { runConfiguration, simulate } from './simulate.js';

// The documents' figures, run from the scenario files the repository ships (examples/scenarios).
const scenario = (name: string) => parseScenarioFile(fileURLToPath(new URL(`../../../examples/scenarios/${name}.yml`, import.meta.url)));
const byName = (report: ReturnType<typeof simulate>, name: string) => report.configurations.find((c) => c.name === name)!;
const stateAt = (transitions: readonly StateChange[], atMs: number) => transitions.filter((t) => t.atMs <= atMs).at(-1)?.to ?? 'CLOSED';

describe('examples/scenarios: the documents’ experiments', () => {
  it('retry-vs-breaker.yml: retry=3 makes about 1.56 breaker calls per payment, retry=1 exactly 1', () => {
    const report = simulate(scenario('retry-vs-breaker'));
    const three = byName(report, 'retry=3, breaker in METRICS_ONLY').totals;
    const one = byName(report, 'retry=1, breaker in METRICS_ONLY').totals;
    expect(three.requests).toBe(2000);
    expect(three.breakerCallsPerRequest).toBeGreaterThan(1.5);
    expect(three.breakerCallsPerRequest).toBeLessThan(1.62);
    expect(three.breakerCalls).toBe(three.requests + three.retries); // each attempt is its own breaker call
    expect(one.breakerCallsPerRequest).toBe(1);
  });

  it('retry-vs-breaker.yml: with retry=3 the 20-call window fills, and the breaker opens, payments sooner than with retry=1', () => {
    const s = scenario('retry-vs-breaker');
    const openedAtPayment = (name: string) => {
      let payment = -1;
      runConfiguration(s, s.pipelines.find((p) => p.name === name)!, {
        observer: () => ({ stateChanged: (change, view) => void (payment < 0 && change.to === 'OPEN' && (payment = view.requests)) }),
      });
      return payment;
    };
    const three = openedAtPayment('retry=3');
    const one = openedAtPayment('retry=1');
    expect(one).toBeGreaterThanOrEqual(20);
    expect(three).toBeLessThan(one);
    expect(three).toBeLessThan(18);
  });

  it('slow-vs-timeout.yml: at 600 ms the failure rate opens the breaker (time-outs are failures), at 1000 ms the slow-call rate does', () => {
    const report = simulate(scenario('slow-vs-timeout'));
    const at600 = byName(report, 'time-out 600 ms');
    const at1000 = byName(report, 'time-out 1000 ms');
    expect(at600.transitions[0]).toMatchObject({ from: 'CLOSED', to: 'OPEN', cause: 'failure_rate' });
    expect(at600.totals.timeouts).toBeGreaterThan(0);
    expect(at1000.transitions[0]).toMatchObject({ from: 'CLOSED', to: 'OPEN', cause: 'slow_call_rate' });
    expect(at1000.totals.timeouts).toBe(0);
    expect(at1000.totals.failed).toBe(0);
  });

  it('slow-vs-timeout.yml: when the 600 ms breaker opens, its slow-call rate is under the threshold (a time-out is never slow)', () => {
    const s = scenario('slow-vs-timeout');
    let rates: { failureRate: number; slowCallRate: number } | undefined;
    runConfiguration(s, s.pipelines[0]!, {
      observer: (_, layers) => {
        const breaker = layers.find((l) => l.kind === 'circuitBreaker')!.breaker as CircuitBreaker;
        return { stateChanged: (change) => void (rates === undefined && change.to === 'OPEN' && (rates = breaker.metrics)) };
      },
    });
    expect(rates!.failureRate).toBeGreaterThanOrEqual(60);
    expect(rates!.slowCallRate).toBeLessThan(50);
  });

  it('count-vs-time.yml: COUNT_BASED is still OPEN after the pause and refuses most calls; TIME_BASED is not', () => {
    const report = simulate(scenario('count-vs-time'));
    const count = byName(report, 'COUNT_BASED(20)');
    const time = byName(report, 'TIME_BASED(10 s)');
    const resumeAt = report.scenario.phases.find((p) => p.name === 'resume')!.startMs;
    expect(stateAt(count.transitions, resumeAt)).toBe('OPEN');
    expect(stateAt(time.transitions, resumeAt)).not.toBe('OPEN');
    const resume = (c: typeof count) => c.phases.find((p) => p.name === 'resume')!;
    expect(resume(count).rejected / resume(count).requests).toBeGreaterThan(0.8);
    expect(resume(time).rejected).toBe(0);
    expect(report.ranking).toEqual(['TIME_BASED(10 s)', 'COUNT_BASED(20)']);
  });
});
