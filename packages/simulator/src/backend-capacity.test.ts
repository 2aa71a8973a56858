import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Arrivals } from './arrivals.js';
import { BackendDraw } from './backend.js';
import { BackendQueue, OVERLOADED, SERVE, WAIT } from './backend-queue.js';
import type { RequestOutcome } from './engine-types.js';
import { Frame } from './frame.js';
import { parseScenario } from './parse-scenario.js';
import { seededRandom } from './random.js';
import { runConfiguration } from './simulate.js';

// A backend with a finite capacity (`capacity`, `queueLimit`): figures worked out by hand on the
// virtual clock, then a property against a brute-force model of a FIFO queue with c servers.
function run(yaml: string) {
  const scenario = parseScenario(yaml, 'case.yml');
  const ended: { index: number; outcome: RequestOutcome; atMs: number }[] = [];
  const c = runConfiguration(scenario, scenario.pipelines[0]!, {
    observer: () => ({ requestEnded: (index, outcome, view) => void ended.push({ index, outcome, atMs: view.clock.now() }) }),
  });
  ended.sort((a, b) => a.index - b.index);
  return { c, outcomes: ended.map((e) => e.outcome), endsAt: ended.map((e) => e.atMs) };
}

describe('a backend with a finite capacity, against hand-computed results', () => {
  it('capacity 2, 40 ms a call, 4 calls at once: two are served at once, two wait 40 ms (latencies 40, 40, 80, 80)', () => {
    const { c, endsAt } = run(`
pipelines: { bare: [] }
traffic: { phases: [{ duration: 1s, users: 4, requests: 4, latency: 40ms, capacity: 2 }] }
`);
    expect(endsAt).toEqual([40, 40, 80, 80]);
    expect(c.totals).toMatchObject({ requests: 4, succeeded: 4, failed: 0, overloaded: 0, latencyP50Ms: 40, latencyP99Ms: 80 });
  });

  it('capacity 2 and queueLimit 1, 5 calls at once: 2 served, 1 waits, 2 fail at once (SimulatedOverloadError, counted as overloaded)', () => {
    const { c, outcomes, endsAt } = run(`
pipelines: { bare: [] }
traffic: { phases: [{ duration: 1s, users: 5, requests: 5, latency: 40ms, capacity: 2, queueLimit: 1 }] }
`);
    expect(outcomes).toEqual(['succeeded', 'succeeded', 'succeeded', 'failed', 'failed']);
    expect(endsAt).toEqual([40, 40, 80, 0, 0]);
    expect(c.totals).toMatchObject({ succeeded: 3, failed: 2, overloaded: 2, latencyP50Ms: 40, latencyP99Ms: 80 });
  });

  it('queueLimit 0: a call that finds every server busy fails at once; one that arrives after a call ended is served', () => {
    // One request every 10 ms, 25 ms a call, one server: 0 served (to 25), 10 and 20 refused, 30 served (to 55), 40 and 50 refused.
    const { c, outcomes } = run(`
pipelines: { bare: [] }
traffic: { phases: [{ duration: 60ms, rate: 100, arrivals: constant, latency: 25ms, capacity: 1, queueLimit: 0 }] }
`);
    expect(outcomes).toEqual(['succeeded', 'failed', 'failed', 'succeeded', 'failed', 'failed']);
    expect(c.totals).toMatchObject({ requests: 6, succeeded: 2, failed: 4, overloaded: 4 });
  });

  it('the capacity halves while calls are in service: they finish; the queue then drains at the new rate', () => {
    // 8 calls at 0, 40 ms each. Capacity 4 until 20 ms, then 1: the 4 in service end at 40, then one at a time.
    const { endsAt } = run(`
pipelines: { bare: [] }
traffic:
  phases:
    - { duration: 20ms, users: 8, requests: 8, latency: 40ms, capacity: 4 }
    - { pause: 1s, capacity: 1 }
`);
    expect(endsAt).toEqual([40, 40, 40, 40, 80, 120, 160, 200]);
  });

  it('the capacity changes between two answers: the queue drains at the capacity of the moment (4, then 2)', () => {
    // 8 calls at 0, 40 ms each, capacity 4 until 30 ms, then 2: 4 end at 40; 2 start at 40 (end 80), 2 at 80 (end 120).
    const { endsAt } = run(`
pipelines: { bare: [] }
traffic:
  phases:
    - { duration: 30ms, users: 8, requests: 8, latency: 40ms, capacity: 4 }
    - { pause: 1s, capacity: 2 }
`);
    expect(endsAt).toEqual([40, 40, 40, 40, 80, 80, 120, 120]);
  });

  it('the capacity rises at a phase boundary where nothing else happens: waiting calls start at that instant', () => {
    // 3 calls at 0, 100 ms each, 1 server until 150 ms, then 3: 0–100, 100–200, and the third starts at 150 (ends 250).
    const { endsAt } = run(`
pipelines: { bare: [] }
traffic:
  phases:
    - { duration: 150ms, users: 3, requests: 3, latency: 100ms, capacity: 1 }
    - { pause: 1s, capacity: 3 }
`);
    expect(endsAt).toEqual([100, 200, 250]);
  });

  it('capacity: unlimited in a later phase serves every waiting call at once', () => {
    const { endsAt } = run(`
pipelines: { bare: [] }
traffic:
  phases:
    - { duration: 10ms, users: 4, requests: 4, latency: 100ms, capacity: 1 }
    - { pause: 1s, capacity: unlimited }
`);
    expect(endsAt).toEqual([100, 110, 110, 110]);
  });

  it('a time limiter that cancels frees the server of the call it gives up on, for the oldest waiting call', () => {
    // One server, 100 ms a call, time-outs at 130 ms, calls at 0, 10, 20: 0 is served to 100; 10
    // starts at 100 and is cancelled at 140 (its server freed); 20 starts at 140 and is cancelled at 150.
    const { c, outcomes, endsAt } = run(`
pipelines:
  tl: [{ timeLimiter: { timeoutDuration: 130ms } }]
traffic: { phases: [{ duration: 30ms, rate: 100, arrivals: constant, latency: 100ms, capacity: 1 }] }
`);
    expect(outcomes).toEqual(['succeeded', 'failed', 'failed']);
    expect(endsAt).toEqual([100, 140, 150]);
    expect(c.totals).toMatchObject({ timeouts: 2, latencyP50Ms: 100 });
  });

  it('a time limiter that does not cancel: the abandoned call keeps its server until it answers', () => {
    // As above without cancelRunningFuture, and a 4th call at 30 ms: its callers give up at 140,
    // 150 and 160 ms, but the calls run on — 10 from 100 to 200, 20 to 300, 30 to 400 — and the
    // run ends with the last answer.
    let lastAnswerAt = 0;
    const scenario = parseScenario(`
pipelines:
  tl: [{ timeLimiter: { timeoutDuration: 130ms, cancelRunningFuture: false } }]
traffic: { phases: [{ duration: 40ms, rate: 100, arrivals: constant, latency: 100ms, capacity: 1 }] }
`);
    const ended: number[] = [];
    runConfiguration(scenario, scenario.pipelines[0]!, {
      observer: () => ({
        requestEnded: (_i, _o, view) => void ended.push(view.clock.now()),
        finished: (view) => void (lastAnswerAt = view.clock.now()),
      }),
    });
    expect(ended).toEqual([100, 140, 150, 160]);
    expect(lastAnswerAt).toBe(400);
  });
});

describe('BackendQueue', () => {
  it('a cancelled waiting call leaves the queue: the next server goes to the one behind it', () => {
    const queue = new BackendQueue([
      {
        name: 'p',
        durationMs: 1,
        arrivals: 'none',
        rate: 0,
        users: 0,
        thinkTimeMs: 0,
        maxRequests: 0,
        backend: { errorRatio: 0, hangRatio: 0, latency: { kind: 'fixed', ms: 1 }, errorLatency: { kind: 'fixed', ms: 1 }, capacity: 1, queueLimit: 2 },
      },
    ]);
    const [a, b, c, d] = [0, 1, 2, 3].map(() => Frame.request(0, -1, -1));
    expect([queue.enter(a!), queue.enter(b!), queue.enter(c!), queue.enter(d!)]).toEqual([SERVE, WAIT, WAIT, OVERLOADED]);
    queue.leave(b!);
    expect([queue.busy, queue.waiting, queue.next()]).toEqual([1, 1, null]);
    queue.release();
    expect(queue.next()).toBe(c);
    expect([queue.busy, queue.waiting, queue.next()]).toEqual([1, 0, null]);
  });
});

describe('a backend with a finite capacity against a brute-force FIFO queue with c servers (property)', () => {
  // The model: calls in arrival order; each is refused when every server is busy and queueLimit
  // calls wait at its arrival, else it takes the server that frees first (FIFO: start =
  // max(arrival, earliest free server)). Arrivals are Poisson and service times fractional, so no
  // two events fall on one instant.
  function model(arrivals: number[], services: number[], capacity: number, queueLimit: number): (number | null)[] {
    const free: number[] = Array.from({ length: capacity }, () => 0);
    const starts: number[] = [];
    return arrivals.map((at, i) => {
      const waiting = starts.filter((s) => s > at).length;
      const busy = free.filter((f) => f > at).length;
      if (busy === capacity && waiting >= queueLimit) return null;
      const k = free.indexOf(Math.min(...free));
      const start = Math.max(at, free[k]!);
      starts.push(start);
      free[k] = start + services[i]!;
      return free[k]!;
    });
  }

  it('every call ends when the model says, and the model refuses exactly the calls the engine fails at once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.oneof(fc.constant(Infinity), fc.integer({ min: 0, max: 6 })),
        fc.integer({ min: 5, max: 200 }),
        fc.double({ min: 1, max: 80, noNaN: true }),
        fc.double({ min: 1, max: 200, noNaN: true }),
        fc.nat(),
        (capacity, queueLimit, rate, low, spread, seed) => {
          const limit = queueLimit === Infinity ? 'unlimited' : queueLimit;
          const scenario = parseScenario(
            `seed: ${seed}\npipelines: { bare: [] }\ntraffic: { phases: [{ duration: 1s, rate: ${rate}, latency: { uniform: [${low}ms, ${low + spread}ms] }, capacity: ${capacity}, queueLimit: ${limit} }] }`,
          );
          if (scenario.traffic.kind !== 'phases') throw new Error('phases');
          const arrivals = new Arrivals(scenario.traffic, seededRandom(seed ^ 0x5bd1e995));
          const times: number[] = [];
          for (; arrivals.nextAt !== Infinity; arrivals.advance()) times.push(arrivals.nextAt);
          const draw = new BackendDraw(scenario.traffic.phases[0]!.backend);
          const random = seededRandom(seed);
          const services = times.map(() => draw.draw(random));
          const expected = model(times, services, capacity, queueLimit);
          const { c, outcomes, endsAt } = run(`seed: ${seed}\n${scenarioBody(rate, low, spread, capacity, limit)}`);
          expect(outcomes).toEqual(expected.map((e) => (e === null ? 'failed' : 'succeeded')));
          expect(endsAt).toEqual(expected.map((e, i) => e ?? times[i]));
          expect(c.totals.overloaded).toBe(expected.filter((e) => e === null).length);
        },
      ),
      { numRuns: 100 },
    );
  });
});

function scenarioBody(rate: number, low: number, spread: number, capacity: number, limit: number | string): string {
  return `pipelines: { bare: [] }\ntraffic: { phases: [{ duration: 1s, rate: ${rate}, latency: { uniform: [${low}ms, ${low + spread}ms] }, capacity: ${capacity}, queueLimit: ${limit} }] }`;
}

describe('capacity and queueLimit in a scenario file', () => {
  const phases = (keys: string) => `pipelines: { bare: [] }\ntraffic:\n  phases:\n    - { duration: 1s, rate: 10, ${keys} }\n`;
  it('refuses a capacity below 1, a fraction, text, and a queue limit without a capacity, naming the key', () => {
    expect(() => parseScenario(phases('capacity: 0'), 's.yml')).toThrow(
      "s.yml:4:43: traffic.phases[0].capacity: must be a whole number >= 1, got 0 (calls served at once, or 'unlimited')",
    );
    expect(() => parseScenario(phases('capacity: 2.5'), 's.yml')).toThrow('traffic.phases[0].capacity: must be a whole number >= 1, got 2.5');
    expect(() => parseScenario(phases('capacity: lots'), 's.yml')).toThrow(
      `traffic.phases[0].capacity: must be a whole number >= 1 or 'unlimited', got "lots" (calls served at once)`,
    );
    expect(() => parseScenario(phases('queueLimit: 5'), 's.yml')).toThrow(
      "traffic.phases[0].queueLimit: a queue limit needs a 'capacity' (the calls beyond it are the ones that wait)",
    );
    expect(() => parseScenario(phases('capacity: 3, queueLimit: -1'), 's.yml')).toThrow('traffic.phases[0].queueLimit: must be a whole number >= 0, got -1');
  });

  it('carries capacity and queueLimit over to the next phases, as the other backend keys', () => {
    const s = parseScenario(`${phases('capacity: 50, queueLimit: 10')}    - { duration: 1s, rate: 10, capacity: 25 }\n    - { pause: 1s }\n`, 's.yml');
    if (s.traffic.kind !== 'phases') throw new Error('phases');
    expect(s.traffic.phases.map((p) => [p.backend.capacity, p.backend.queueLimit])).toEqual([
      [50, 10],
      [25, 10],
      [25, 10],
    ]);
  });
});
