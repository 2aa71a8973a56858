import { describe, expect, it } from 'vitest';
import type { RequestOutcome } from './engine-types.js';
import { parseScenario } from './parse-scenario.js';
import { runConfiguration } from './simulate.js';

// Rate limiter and bulkhead layers, with a fixed backend and fixed arrivals, against figures
// worked out by hand: which requests wait, which are refused, when each one ends.
function run(yaml: string) {
  const scenario = parseScenario(yaml, 'case.yml');
  const ended: { index: number; outcome: RequestOutcome; atMs: number }[] = [];
  const c = runConfiguration(scenario, scenario.pipelines[0]!, {
    observer: () => ({ requestEnded: (index, outcome, view) => void ended.push({ index, outcome, atMs: view.clock.now() }) }),
  });
  ended.sort((a, b) => a.index - b.index);
  return { c, ended, rejected: ended.filter((e) => e.outcome === 'rejected').map((e) => e.index), endsAt: ended.map((e) => e.atMs) };
}

describe('rate limiter and bulkhead layers, against hand-computed results', () => {
  it('a limiter of 2 a second, no wait, under 5 requests a second: the 3rd, 4th and 5th of each second are refused', () => {
    // Requests at 0, 200, …, 1800 ms; cycles [0, 1 s) and [1 s, 2 s) of 2 permits each.
    const { c, rejected } = run(`
pipelines:
  rl: [{ rateLimiter: { limitForPeriod: 2, limitRefreshPeriod: 1s, timeoutDuration: 0 } }]
traffic: { phases: [{ duration: 2s, rate: 5, arrivals: constant, latency: 10ms }] }
`);
    expect(c.totals).toMatchObject({ requests: 10, succeeded: 4, rejected: 6, failed: 0, unfinished: 0 });
    expect(rejected).toEqual([2, 3, 4, 7, 8, 9]);
  });

  it('a limiter of 2 a second that waits up to 500 ms: a wait to the next cycle within it is taken, a longer one refused', () => {
    // 0 and 200 ms take cycle 0's permits. 400 ms would wait 600 ms (> 500): refused, nothing
    // reserved. 600 and 800 ms reserve cycle 1's two permits (waits 400 and 200 ms): they run at
    // 1000 ms. 1000, 1200 and 1400 ms would wait for cycle 2 (1000, 800, 600 ms): refused.
    // 1600 and 1800 ms reserve cycle 2's permits and run at 2000 ms.
    const { c, rejected, endsAt } = run(`
pipelines:
  rl: [{ rateLimiter: { limitForPeriod: 2, limitRefreshPeriod: 1s, timeoutDuration: 500ms } }]
traffic: { phases: [{ duration: 2s, rate: 5, arrivals: constant, latency: 10ms }] }
`);
    expect(c.totals).toMatchObject({ requests: 10, succeeded: 6, rejected: 4, unfinished: 0 });
    expect(rejected).toEqual([2, 5, 6, 7]);
    expect(endsAt).toEqual([10, 210, 400, 1010, 1010, 1000, 1200, 1400, 2010, 2010]);
  });

  it('a retry outside a limiter retries its refusal (RequestNotPermittedError is retryable by default)', () => {
    // 1 permit a second, no wait. The request at 500 ms is refused, retried 600 ms later (1100 ms, cycle 1): permitted.
    const { c } = run(`
pipelines:
  r-rl:
    - retry: { maxAttempts: 2, waitDuration: 600ms }
    - rateLimiter: { limitForPeriod: 1, limitRefreshPeriod: 1s, timeoutDuration: 0 }
traffic: { phases: [{ duration: 1s, rate: 2, arrivals: constant, latency: 10ms }] }
`);
    expect(c.totals).toMatchObject({ requests: 2, succeeded: 2, rejected: 0, retries: 1 });
  });

  it('a bulkhead of 1 with no wait under overlapping calls: a call that arrives while one runs is refused', () => {
    // Calls of 300 ms at 0, 200, 400, 600, 800 ms: 0 runs to 300, 200 refused, 400 runs to 700, 600 refused, 800 runs to 1100.
    const { c, rejected, endsAt } = run(`
pipelines:
  bh: [{ bulkhead: { maxConcurrentCalls: 1, maxWaitDuration: 0 } }]
traffic: { phases: [{ duration: 1s, rate: 5, arrivals: constant, latency: 300ms }] }
`);
    expect(c.totals).toMatchObject({ requests: 5, succeeded: 3, rejected: 2, unfinished: 0 });
    expect(rejected).toEqual([1, 3]);
    expect(endsAt).toEqual([300, 200, 700, 600, 1100]);
  });

  it('a bulkhead of 1 that waits: a freed slot goes to the oldest waiter, one that waits too long is refused', () => {
    // Calls of 250 ms at 0, 200, …, 800 ms, waits of at most 120 ms. 0 runs to 250; 200 waits,
    // gets the slot at 250, runs to 500; 400 waits, gets it at 500, runs to 750; 600 waits until
    // 720: refused; 800 finds the slot free (since 750), runs to 1050.
    const { c, rejected, endsAt } = run(`
pipelines:
  bh: [{ bulkhead: { maxConcurrentCalls: 1, maxWaitDuration: 120ms } }]
traffic: { phases: [{ duration: 1s, rate: 5, arrivals: constant, latency: 250ms }] }
`);
    expect(c.totals).toMatchObject({ requests: 5, succeeded: 4, rejected: 1 });
    expect(rejected).toEqual([3]);
    expect(endsAt).toEqual([250, 500, 750, 720, 1050]);
  });

  it('a bulkhead of 1 under a time limiter that cancels: the time-out of a hanging call frees its slot at once, for the oldest waiter', () => {
    // Every call hangs; each request times out 300 ms after it arrives, waiting or running. 0
    // holds the slot until 300 ms; then 200 (waiting since 200) gets it until its time-out at 500;
    // then 400 until 700, 600 until 900, 800 until 1100.
    const { c, endsAt } = run(`
pipelines:
  tl-bh:
    - timeLimiter: { timeoutDuration: 300ms }
    - bulkhead: { maxConcurrentCalls: 1, maxWaitDuration: 1s }
traffic: { phases: [{ duration: 1s, rate: 5, arrivals: constant, hangRatio: 1 }] }
`);
    expect(c.totals).toMatchObject({ requests: 5, failed: 5, timeouts: 5, rejected: 0, unfinished: 0 });
    expect(endsAt).toEqual([300, 500, 700, 900, 1100]);
  });
});
