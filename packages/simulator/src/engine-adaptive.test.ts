import type { AdaptiveLimiter, AdaptiveThrottle } from '@breakwater/adaptive';
import { describe, expect, it } from 'vitest';
import type { RequestOutcome } from './engine-types.js';
import { parseScenario } from './parse-scenario.js';
import type { BuiltLayer } from './pipeline.js';
import { runConfiguration } from './simulate.js';

// The adaptiveLimiter and throttle layers, with a fixed backend and fixed arrivals, against
// figures worked out by hand: who gets a slot, who waits, who is refused, which calls move the limit.
function run(yaml: string) {
  const scenario = parseScenario(yaml, 'case.yml');
  const ended: { index: number; outcome: RequestOutcome; atMs: number }[] = [];
  const limits: { atMs: number; previous: number; limit: number }[] = [];
  let limiter: AdaptiveLimiter | undefined;
  let throttle: AdaptiveThrottle | undefined;
  const c = runConfiguration(scenario, scenario.pipelines[0]!, {
    observer: (_p, layers: readonly BuiltLayer[]) => {
      for (const l of layers) {
        if (l.kind === 'adaptiveLimiter') {
          limiter = l.limiter;
          l.limiter.on('limitChanged', (e) => void limits.push({ atMs: e.at, previous: e.previous, limit: e.limit }));
        } else if (l.kind === 'throttle') throttle = l.throttle;
      }
      return { requestEnded: (index, outcome, view) => void ended.push({ index, outcome, atMs: view.clock.now() }) };
    },
  });
  ended.sort((a, b) => a.index - b.index);
  return { c, limiter: limiter!, throttle: throttle!, limits, outcomes: ended.map((e) => e.outcome), endsAt: ended.map((e) => e.atMs) };
}

const FIXED_1 = 'algorithm: { vegas: { initialLimit: 1, minLimit: 1, maxLimit: 1 } }, window: false';

describe('the adaptiveLimiter layer, against hand-computed results', () => {
  it('a limit of 2 with no wait, 4 calls at once: 2 run, 2 are refused at once (RequestNotPermittedError, counted by the limiter)', () => {
    const { c, limiter, outcomes, endsAt } = run(`
pipelines:
  al: [{ adaptiveLimiter: { algorithm: { vegas: { initialLimit: 2, minLimit: 2, maxLimit: 2 } }, window: false } }]
traffic: { phases: [{ duration: 1s, users: 4, requests: 4, latency: 40ms }] }
`);
    expect(outcomes).toEqual(['succeeded', 'succeeded', 'rejected', 'rejected']);
    expect(endsAt).toEqual([40, 40, 0, 0]);
    expect(c.totals).toMatchObject({ succeeded: 2, rejected: 2 });
    expect(limiter.metrics).toMatchObject({ limit: 2, inFlight: 0, waiting: 0, rejected: 2 });
    expect(c.series.limit).toEqual(Array(10).fill(2)); // 100 ms buckets over 1 s of traffic: the limit at each one's end
  });

  it("a limit of 1 that waits, 3 calls at once: FIFO serves them in arrival order, 'lifo' the newest waiter first", () => {
    const yaml = (queue: string) => `
pipelines:
  al: [{ adaptiveLimiter: { ${FIXED_1}, maxWaitDuration: 100ms, queue: ${queue} } }]
traffic: { phases: [{ duration: 1s, users: 3, requests: 3, latency: 40ms }] }
`;
    expect(run(yaml('fifo')).endsAt).toEqual([40, 80, 120]);
    expect(run(yaml('lifo')).endsAt).toEqual([40, 120, 80]);
  });

  it('a waiter whose maxWaitDuration runs out is refused then (and counted by the limiter); maxQueue refuses at once', () => {
    // Limit 1, 40 ms a call, waits of at most 50 ms: 0 runs 0–40, 1 gets the slot at 40 (runs to 80), 2 is refused at 50.
    const waited = run(`
pipelines:
  al: [{ adaptiveLimiter: { ${FIXED_1}, maxWaitDuration: 50ms } }]
traffic: { phases: [{ duration: 1s, users: 3, requests: 3, latency: 40ms }] }
`);
    expect(waited.outcomes).toEqual(['succeeded', 'succeeded', 'rejected']);
    expect(waited.endsAt).toEqual([40, 80, 50]);
    expect(waited.limiter.metrics.rejected).toBe(1);
    // maxQueue 1: the third finds one waiting and is refused at once.
    const full = run(`
pipelines:
  al: [{ adaptiveLimiter: { ${FIXED_1}, maxWaitDuration: 1s, maxQueue: 1 } }]
traffic: { phases: [{ duration: 1s, users: 3, requests: 3, latency: 40ms }] }
`);
    expect(full.endsAt).toEqual([40, 80, 0]);
    expect(full.outcomes[2]).toBe('rejected');
  });

  const AIMD = 'algorithm: { aimd: { initialLimit: 10, minLimit: 1, backoffRatio: 0.5 } }, window: false';

  it('a time-out below the limiter is a drop: AIMD halves its limit on each (10 → 5 → 2 → 1)', () => {
    const { limits, c } = run(`
pipelines:
  al: [{ adaptiveLimiter: { ${AIMD} } }, { timeLimiter: { timeoutDuration: 30ms } }]
traffic: { phases: [{ duration: 300ms, rate: 10, arrivals: constant, latency: 40ms }] }
`);
    expect(c.totals).toMatchObject({ requests: 3, failed: 3, timeouts: 3 });
    expect(limits).toEqual([
      { atMs: 30, previous: 10, limit: 5 },
      { atMs: 130, previous: 5, limit: 2 },
      { atMs: 230, previous: 2, limit: 1 },
    ]);
  });

  it('a call a time limiter above cancels is no sample, and a plain backend error neither: the limit stays', () => {
    const above = run(`
pipelines:
  al: [{ timeLimiter: { timeoutDuration: 30ms } }, { adaptiveLimiter: { ${AIMD} } }]
traffic: { phases: [{ duration: 300ms, rate: 10, arrivals: constant, latency: 40ms }] }
`);
    expect([above.c.totals.timeouts, above.limits, above.limiter.inFlight]).toEqual([3, [], 0]);
    const errors = run(`
pipelines:
  al: [{ adaptiveLimiter: { ${AIMD} } }]
traffic: { phases: [{ duration: 300ms, rate: 10, arrivals: constant, latency: 40ms, errorRatio: 1 }] }
`);
    expect([errors.c.totals.failed, errors.limits]).toEqual([3, []]);
  });

  it("the backend's 503 (at capacity, queue full) is a drop; a success with few calls in flight does not raise the limit", () => {
    // One server, no queue, 2 calls at once: the second is refused by the backend at 0 (a drop: 10 → 5); the first
    // succeeds at 40 with 1 call in flight when it was admitted (1 · 2 < 5: AIMD does not grow).
    const { limits, c, outcomes } = run(`
pipelines:
  al: [{ adaptiveLimiter: { ${AIMD} } }]
traffic: { phases: [{ duration: 1s, users: 2, requests: 2, latency: 40ms, capacity: 1, queueLimit: 0 }] }
`);
    expect(outcomes).toEqual(['succeeded', 'failed']);
    expect(c.totals.overloaded).toBe(1);
    expect(limits).toEqual([{ atMs: 0, previous: 10, limit: 5 }]);
  });

  it('a limit that grows hands its new slots to the waiters at once', () => {
    // AIMD from 1 (max 2), 100 ms calls, 3 calls at once waiting up to 1 s: 0 runs 0–100 and its success
    // (1 in flight · 2 >= 1) raises the limit to 2, so 1 and 2 both start at 100.
    const { endsAt, limits } = run(`
pipelines:
  al: [{ adaptiveLimiter: { algorithm: { aimd: { initialLimit: 1, minLimit: 1, maxLimit: 2 } }, window: false, maxWaitDuration: 1s } }]
traffic: { phases: [{ duration: 1s, users: 3, requests: 3, latency: 100ms }] }
`);
    expect(limits).toEqual([{ atMs: 100, previous: 1, limit: 2 }]);
    expect(endsAt).toEqual([100, 200, 200]);
  });
});

describe('the throttle layer', () => {
  it('lets every call through while the backend accepts them (reject ratio 0), counting each in its window', () => {
    const { c, throttle } = run(`
pipelines:
  t: [{ throttle: { k: 2, window: 1m } }]
traffic: { phases: [{ duration: 1s, rate: 20, arrivals: constant, latency: 10ms }] }
`);
    expect(c.totals).toMatchObject({ requests: 20, succeeded: 20, rejected: 0 });
    expect(throttle.metrics).toMatchObject({ requests: 20, accepts: 20, rejected: 0, rejectRatio: 0 });
  });

  it('with maxRejectRatio 0 it never rejects, however the backend fails; every failure is a request without an accept', () => {
    const { c, throttle } = run(`
pipelines:
  t: [{ throttle: { maxRejectRatio: 0 } }]
traffic: { phases: [{ duration: 1s, rate: 20, arrivals: constant, latency: 10ms, errorRatio: 1 }] }
`);
    expect(c.totals).toMatchObject({ requests: 20, failed: 20, rejected: 0 });
    expect(throttle.metrics).toMatchObject({ requests: 20, accepts: 0, rejectRatio: 0 });
  });

  it('against a failing backend it rejects locally: the share rejected approaches the reject ratio (k = 1, capped at 0.5)', () => {
    // Every call fails: once a few are counted the ratio (requests − accepts) / (requests + 1) passes 0.5 and is capped there.
    const { c, throttle } = run(`
pipelines:
  t: [{ throttle: { k: 1, maxRejectRatio: 0.5 } }]
traffic: { phases: [{ duration: 10s, rate: 100, arrivals: constant, latency: 10ms, errorRatio: 1 }] }
`);
    expect(c.totals.requests).toBe(1000);
    expect(c.totals.rejected + c.totals.failed).toBe(1000);
    expect(c.totals.rejected / 1000).toBeGreaterThan(0.45);
    expect(c.totals.rejected / 1000).toBeLessThan(0.55);
    expect(throttle.rejectRatio).toBe(0.5);
  });
});

describe('adaptiveLimiter and throttle options in a scenario file', () => {
  const one = (layer: string) => `pipelines:\n  p:\n    - ${layer}\ntraffic: { phases: [{ duration: 1s, rate: 1 }] }\n`;
  it('refuses what a scenario cannot hold or the component refuses, naming the key', () => {
    expect(() => parseScenario(one('adaptiveLimiter: { isDrop: x }'), 's.yml')).toThrow('pipelines.p[0].adaptiveLimiter.isDrop: takes code');
    expect(() => parseScenario(one('adaptiveLimiter: { partitions: { a: 0.5 } }'), 's.yml')).toThrow(
      "pipelines.p[0].adaptiveLimiter.partitions: is not simulated (the traffic's requests carry no partition)",
    );
    expect(() => parseScenario(one('adaptiveLimiter: { algorithm: cubic }'), 's.yml')).toThrow(
      `pipelines.p[0].adaptiveLimiter.algorithm: AdaptiveLimiter 'scenario': algorithm must be one of vegas, aimd, gradient2, or one of them with its options: { vegas: { smoothing: 0.5 } }, got "cubic"`,
    );
    expect(() => parseScenario(one('adaptiveLimiter: { algorithm: { vegas: { smoothing: 2 } } }'), 's.yml')).toThrow(
      "pipelines.p[0].adaptiveLimiter.algorithm: AdaptiveLimiter 'scenario': algorithm vegas: smoothing must be in (0, 1], got 2",
    );
    expect(() => parseScenario(one('adaptiveLimiter: { maxWaitDuration: -1 }'), 's.yml')).toThrow('pipelines.p[0].adaptiveLimiter.maxWaitDuration');
    expect(() => parseScenario(one('throttle: { k: 0.5 }'), 's.yml')).toThrow('pipelines.p[0].throttle.k');
    expect(() => parseScenario(one('throttle: { random: 1 }'), 's.yml')).toThrow('pipelines.p[0].throttle.random: takes code');
  });
});
