import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { runEngine } from './engine.js';
import { renderHtml } from './html/index.js';
import { LIMITS, SimulationLimitError } from './limits.js';
import { parseScenario } from './parse-scenario.js';
import { buildPipeline } from './pipeline.js';
import { seededRandom } from './random.js';
import type { Scenario } from './scenario.js';
import { simulate } from './simulate.js';
import { ScenarioError } from './yaml-source.js';

// A run's memory is bounded whatever the scenario (contract: docs/simulator.md): the time series has a bounded number
// of points however long the last response takes, and sizes that cannot finish are refused up front
// with the figure.

const refusal = (yaml: string): ScenarioError => {
  try {
    parseScenario(yaml, 'big.yml');
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return error as ScenarioError;
  }
  throw new Error('the scenario was accepted');
};

describe('the time series is bounded however long the last response takes', () => {
  it('logNormal { p50: 80ms, p99: 10m } for 10 min at 200/s with no time limiter: 300 points over the traffic, at most as many after, the last one running to the last response', () => {
    const report = simulate(
      parseScenario(`
pipelines:
  breaker: [ { circuitBreaker: { slidingWindowSize: 100 } } ]
traffic:
  phases:
    - { duration: 10m, rate: 200, latency: { logNormal: { p50: 80ms, p99: 10m } } }
`),
    );
    const c = report.configurations[0]!;
    const s = c.series;
    expect(s.bucketMs).toBe(2000); // 10 min / 300 points
    expect(s.t.length).toBe(600); // 300 over the traffic, 300 more of the same width after it, the last one folding the rest
    expect(s.t.slice(0, 3)).toEqual([0, 2000, 4000]);
    expect(s.t.at(-1)).toBe(599 * 2000);
    // Some responses arrive days later (the log-normal's tail): the last bucket runs to the last one.
    expect(s.endMs).toBeGreaterThan(24 * 3_600_000);
    expect(c.totals.unfinished).toBe(0);
    expect(c.totals.succeeded + c.totals.rejected).toBe(c.totals.requests);
    for (const key of ['requestsPerSecond', 'rejectedPerSecond', 'failedPerSecond', 'failureRate', 'slowCallRate', 'windowFill', 'state'] as const) {
      expect(s[key], key).toHaveLength(600);
    }
    expect(JSON.stringify(report).length).toBeLessThan(200_000);
  });

  it('10 requests with latency 1e10 (115 days): at most twice the traffic’s points, the last one ending with the last answer', () => {
    const report = simulate(
      parseScenario(`
pipelines: { bare: [] }
traffic: { phases: [ { duration: 1s, rate: 10, arrivals: constant, latency: 1e10 } ] }
`),
    );
    const c = report.configurations[0]!;
    expect(c.series.bucketMs).toBe(100);
    expect(c.series.t).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800, 1900]);
    expect(c.series.endMs).toBe(900 + 1e10); // the last request arrived at 900 ms
    expect(c.series.requestsPerSecond.slice(0, 10)).toEqual(Array(10).fill(10));
    expect(c.totals).toMatchObject({ requests: 10, succeeded: 10, unfinished: 0 });
    // The last point's width is said on the page, not hidden.
    const html = renderHtml(report);
    expect(html).toContain('<p class="note" id="folded">The last point also holds what happened up to 2777:46:40.9 (2777 h 47 min)');
  });

  it('a run that ends inside the series keeps its usual buckets (the last one is not widened)', () => {
    const c = simulate(
      parseScenario(`
bucket: 1s
pipelines: { bare: [] }
traffic: { phases: [ { duration: 3s, rate: 1, arrivals: constant, latency: 4500ms } ] }
`),
    ).configurations[0]!;
    // Answers at 4.5, 5.5 and 6.5 s: 3 buckets of traffic, 3 more after it (the cap), the last one to 6.5 s... which is its own end.
    expect(c.series.t).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
    expect(c.series.endMs).toBe(6500);
    expect(c.series.requestsPerSecond).toEqual([1, 1, 1, 0, 0, 0]);
    expect(renderHtml(simulate(parseScenario('pipelines: { bare: [] }\ntraffic: { phases: [ { duration: 3s, rate: 1, latency: 10ms } ] }\n')))).not.toContain(
      'id="folded"',
    );
  });
});

describe('sizes that cannot finish are refused up front, with the figure', () => {
  it('users: 1e9 is refused naming the value and the limit', () => {
    const e = refusal(`
pipelines: { bare: [] }
traffic: { phases: [ { duration: 1s, users: 1e9, thinkTime: 1s } ] }
`);
    expect(e.key).toBe('traffic.phases[0].users');
    expect(e.message).toContain(`must be a whole number >= 1 and <= ${LIMITS.maxUsers}, got 1000000000`);
  });

  it('1e12 requests (1e12 a second for 1 s) are refused with their number and the limit', () => {
    const e = refusal(`
pipelines: { bare: [] }
traffic: { phases: [ { duration: 1s, rate: 1e12 } ] }
`);
    expect(e.key).toBe('traffic.phases[0].rate');
    expect(e.message).toContain('the traffic sends about 1,000,000,000,000 requests up to here (rate × duration); a run takes at most 1,000,000,000');
  });

  it('the limit is on the whole traffic: phases that each fit but not together are refused at the phase that crosses it', () => {
    const e = refusal(`
pipelines: { bare: [] }
traffic:
  phases:
    - { duration: 1000s, rate: 600000 }
    - { duration: 1000s, rate: 600000, requests: 1000 }
    - { duration: 1000s, users: 10, thinkTime: 1ms }
    - { duration: 1000s, rate: 600000 }
`);
    expect(e.key).toBe('traffic.phases[3].rate');
    expect(e.message).toContain('about 1,210,001,010 requests up to here');
  });

  it('a closed loop counts what its users can send when every answer is immediate (an OPEN breaker): users × (duration / thinkTime + 1)', () => {
    const e = refusal(`
pipelines: { bare: [] }
traffic: { phases: [ { duration: 1h, users: 100000, thinkTime: 100ms } ] }
`);
    expect(e.key).toBe('traffic.phases[0].users');
    expect(e.message).toContain('about 3,600,100,000 requests up to here (users × (duration / thinkTime + 1))');
  });

  it('a latency, a phase or a think time beyond 365 days is refused with the value and the limit', () => {
    for (const [phase, key] of [
      ['{ duration: 1s, rate: 1, latency: 1e12 }', 'traffic.phases[0].latency'],
      ['{ duration: 1s, rate: 1, latency: { logNormal: { p50: 10ms, p99: 9600h } } }', 'traffic.phases[0].latency.logNormal.p99'],
      ['{ duration: 8784h, rate: 0.000001 }', 'traffic.phases[0].duration'],
      ['{ duration: 1s, users: 1, thinkTime: 1e11 }', 'traffic.phases[0].thinkTime'],
    ] as const) {
      const e = refusal(`pipelines: { bare: [] }\ntraffic: { phases: [ ${phase} ] }\n`);
      expect(e.key, phase).toBe(key);
      expect(e.message, phase).toContain(`must be at most 365 days (${LIMITS.maxDurationMs} ms)`);
    }
  });

  it('simulate() checks a hand-written scenario the same way (no parser): a SimulationLimitError naming the value', () => {
    const scenario = (users: number): Scenario => ({
      name: 'by hand',
      seed: 1,
      pipelines: [{ name: 'bare', kind: 'layers', layers: [] }],
      traffic: {
        kind: 'phases',
        phases: [
          {
            name: 'crowd',
            durationMs: 1000,
            arrivals: 'closed',
            rate: 0,
            users,
            thinkTimeMs: 1000,
            maxRequests: Infinity,
            backend: { errorRatio: 0, hangRatio: 0, latency: { kind: 'fixed', ms: 0 }, errorLatency: { kind: 'fixed', ms: 0 } },
          },
        ],
      },
    });
    expect(() => simulate(scenario(1e9))).toThrow(SimulationLimitError);
    expect(() => simulate(scenario(1e9))).toThrow(`phase 'crowd': users must be at most ${LIMITS.maxUsers}, got 1000000000`);
    expect(simulate(scenario(2)).configurations[0]!.totals.requests).toBe(2);
  });
});

describe('requests in flight are bounded while the run goes', () => {
  it('more events pending than the limit (requests in flight, time-outs, waits) stops the run with the figure and the simulated time', () => {
    const scenario = parseScenario(`
pipelines: { bare: [] }
traffic: { phases: [ { duration: 1000s, rate: 100, arrivals: constant, latency: 1e9 } ] }
`);
    const run = () => {
      const clock = new VirtualClock();
      const random = seededRandom(1);
      const layers = buildPipeline(scenario.pipelines[0]!, clock, random);
      return runEngine(scenario.traffic, layers, { clock, random, arrivalRandom: random, bucketMs: 1000, maxBuckets: 2000, maxPending: 1000 });
    };
    expect(run).toThrow(SimulationLimitError);
    // The engine looks every 16 384 events: by then 16 384 requests (one every 10 ms) wait for their answer.
    expect(run).toThrow(/^16,384 events pending at 2 min 44 s of simulated time \(requests in flight, time-outs, waits\); a run holds at most 1,000: /);
  });
});
