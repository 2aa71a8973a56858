import { describe, expect, it } from 'vitest';
import { parseScenario } from './parse-scenario.js';
import { simulate } from './simulate.js';

// Small cases with a fixed backend and fixed arrivals, against figures worked out by hand.
const run = (yaml: string) => simulate(parseScenario(yaml, 'case.yml')).configurations[0]!;

describe('the engine, against hand-computed results', () => {
  it('no policy: 10 requests/s for 1 s, every one answered in 100 ms', () => {
    const c = run(`
pipelines: { bare: [] }
traffic: { phases: [{ duration: 1s, rate: 10, arrivals: constant, latency: 100ms }] }
`);
    expect(c.totals).toMatchObject({ requests: 10, succeeded: 10, failed: 0, rejected: 0, retries: 0, breakerCalls: 0, unfinished: 0 });
    expect(c.transitions).toEqual([]);
  });

  it('retry 3 against a backend that always fails: 3 breaker calls and 2 retries per request', () => {
    const c = run(`
pipelines:
  r3:
    - retry: { maxAttempts: 3, waitDuration: 100ms }
    - circuitBreaker: { initialState: METRICS_ONLY }
traffic: { phases: [{ duration: 5s, rate: 1, arrivals: constant, errorRatio: 1, latency: 10ms }] }
`);
    expect(c.totals).toMatchObject({ requests: 5, failed: 5, retries: 10, breakerCalls: 15, breakerCallsPerRequest: 3 });
  });

  it('a COUNT_BASED(4) breaker opens on the 4th failure, refuses until its wait is over, fails its trial and opens again', () => {
    // Requests every 100 ms from 0 to 1900 ms, each failing after 10 ms. The 4th failure is
    // recorded at 310 ms: OPEN until 1310 ms, so the requests at 400…1300 ms are refused; the one
    // at 1400 ms is the half-open trial, fails at 1410 ms: OPEN again, 1500…1900 ms refused.
    const c = run(`
bucket: 1s
pipelines:
  cb:
    - circuitBreaker: { slidingWindowSize: 4, minimumNumberOfCalls: 4, failureRateThreshold: 50, waitDurationInOpenState: 1s, permittedNumberOfCallsInHalfOpenState: 1 }
traffic: { phases: [{ duration: 2s, rate: 10, arrivals: constant, errorRatio: 1, latency: 10ms }] }
`);
    expect(c.totals).toMatchObject({ requests: 20, failed: 5, rejected: 15, breakerCalls: 20, slow: 0 });
    expect(c.transitions.map((t) => [t.atMs, t.from, t.to, t.cause])).toEqual([
      [310, 'CLOSED', 'OPEN', 'failure_rate'],
      [1400, 'OPEN', 'HALF_OPEN', 'wait_elapsed'],
      [1410, 'HALF_OPEN', 'OPEN', 'failure_rate'],
    ]);
    expect(c.timeToOpenMs).toBe(310);
    expect(c.timeToRecoverMs).toBeNull();
    expect(c.series.state.slice(0, 2)).toEqual(['OPEN', 'OPEN']); // 1 s buckets: OPEN at 1 s and at 2 s
  });

  it('a time limiter cuts a hanging backend: a failure the breaker records, never slow', () => {
    const c = run(`
pipelines:
  cb-tl:
    - circuitBreaker: { slowCallDurationThreshold: 100ms, minimumNumberOfCalls: 100 }
    - timeLimiter: { timeoutDuration: 600ms }
traffic: { phases: [{ duration: 3s, rate: 1, arrivals: constant, hangRatio: 1 }] }
`);
    expect(c.totals).toMatchObject({ requests: 3, failed: 3, timeouts: 3, slow: 0, unfinished: 0 });
  });

  it('without a time limiter a hanging call never ends: it is counted as unfinished', () => {
    const c = run(`
pipelines: { bare: [] }
traffic: { phases: [{ duration: 2s, rate: 1, arrivals: constant, hangRatio: 1 }] }
`);
    expect(c.totals).toMatchObject({ requests: 2, succeeded: 0, failed: 0, unfinished: 2 });
  });

  it('slow calls: 1 s answers over a 500 ms threshold, inside a 2 s time-out', () => {
    const c = run(`
pipelines:
  cb-tl:
    - circuitBreaker: { slowCallDurationThreshold: 500ms, minimumNumberOfCalls: 100 }
    - timeLimiter: { timeoutDuration: 2s }
traffic: { phases: [{ duration: 4s, rate: 1, arrivals: constant, latency: 1s }] }
`);
    expect(c.totals).toMatchObject({ requests: 4, succeeded: 4, slow: 4, timeouts: 0 });
  });

  it('a time limiter outside a retry cancels it: no attempt after the time-out', () => {
    // Attempt 1 fails at 100 ms, the retry waits to 200 ms, attempt 2 runs; the time-out at 250 ms
    // cancels it (and the retry): one retry, one time-out, one failed request.
    const c = run(`
pipelines:
  tl-retry:
    - timeLimiter: { timeoutDuration: 250ms }
    - retry: { maxAttempts: 3, waitDuration: 100ms }
    - circuitBreaker: { initialState: METRICS_ONLY }
traffic: { phases: [{ duration: 1s, rate: 1, arrivals: constant, errorRatio: 1, latency: 100ms }] }
`);
    expect(c.totals).toMatchObject({ requests: 1, failed: 1, retries: 1, timeouts: 1, breakerCalls: 2 });
  });

  it('a time-out cut from outside the breaker is not recorded by it (its caller aborted); from inside it is a failure', () => {
    const scenario = (layers: string) => `
pipelines:
  p:
${layers}
traffic: { phases: [{ duration: 5s, rate: 2, arrivals: constant, hangRatio: 1 }] }
`;
    const breaker = '    - circuitBreaker: { slidingWindowSize: 2, minimumNumberOfCalls: 2 }';
    const limiter = '    - timeLimiter: { timeoutDuration: 100ms }';
    const outside = run(scenario(`${limiter}\n${breaker}`));
    expect(outside.totals).toMatchObject({ requests: 10, failed: 10, timeouts: 10, rejected: 0 });
    expect(outside.transitions).toEqual([]);
    const inside = run(scenario(`${breaker}\n${limiter}`));
    expect(inside.transitions[0]).toMatchObject({ atMs: 600, to: 'OPEN', cause: 'failure_rate' });
    expect(inside.totals.rejected).toBeGreaterThan(0);
  });

  it('a closed loop: 2 users, 50 ms calls and 100 ms of think time send 7 requests each in 1 s', () => {
    const c = run(`
pipelines: { bare: [] }
traffic: { phases: [{ duration: 1s, users: 2, thinkTime: 100ms, latency: 50ms }] }
`);
    expect(c.totals).toMatchObject({ requests: 14, succeeded: 14 });
  });

  it('counts per phase, and a pause sends nothing', () => {
    const c = run(`
bucket: 1s
pipelines: { bare: [] }
traffic:
  phases:
    - { name: a, duration: 1s, rate: 5, arrivals: constant, latency: 10ms }
    - { name: quiet, pause: 2s }
    - { name: b, duration: 1s, rate: 3, arrivals: constant, errorRatio: 1 }
`);
    expect(c.phases.map((p) => [p.name, p.requests, p.succeeded, p.failed])).toEqual([
      ['a', 5, 5, 0],
      ['quiet', 0, 0, 0],
      ['b', 3, 0, 3],
    ]);
    expect(c.series.t).toEqual([0, 1000, 2000, 3000]);
    expect(c.series.requestsPerSecond).toEqual([5, 0, 0, 3]);
  });
});
