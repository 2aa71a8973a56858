import type { CircuitBreaker } from '@breakwater/circuit-breaker';
import { describe, expect, it } from 'vitest';
import { renderHtml } from './html/index.js';
import { parseScenario } from './parse-scenario.js';
import { renderTable } from './render-table.js';
import { simulate } from './simulate.js';

// The hedge layer on small cases with a fixed backend and fixed arrivals, against figures worked
// out by hand (contract: docs/hedging.md, docs/simulator.md): 10 requests, one every 100 ms.
function run(layers: string, backend = 'latency: 100ms') {
  let backendCalls = 0;
  let breaker: CircuitBreaker | undefined;
  const scenario = parseScenario(
    `pipelines:\n  p:\n${layers}\ntraffic: { phases: [{ duration: 1s, rate: 10, arrivals: constant, ${backend} }] }\n`,
    'case.yml',
  );
  const c = simulate(scenario, {
    observer: (_spec, built) => {
      for (const l of built) if (l.kind === 'circuitBreaker') breaker = l.breaker;
      return { finished: (view) => void (backendCalls = view.backendCalls) };
    },
  }).configurations[0]!;
  return { totals: c.totals, backendCalls, breaker };
}

describe('the hedge layer, against hand-computed results', () => {
  it('after its delay without an answer, the next attempt; the first answer wins and the other is cancelled', () => {
    // Primary at 0, hedge at 30 ms; the primary answers at 100 ms and wins.
    const { totals, backendCalls } = run('    - hedge: { delay: 30ms }');
    expect(totals).toMatchObject({ succeeded: 10, hedgeCalls: 10, hedgedAttempts: 10, hedgedAttemptsPerCall: 1, hedgeWins: [10, 0], latencyP99Ms: 100 });
    expect(backendCalls).toBe(20);
  });

  it('a handled failure starts the next attempt at once; when all fail the call fails (the primary wins)', () => {
    const { totals, backendCalls } = run('    - hedge: { maxHedgedAttempts: 2, delay: 1s }', 'latency: 10ms, errorRatio: 1');
    expect(totals).toMatchObject({ failed: 10, hedgedAttempts: 20, hedgeWins: [10, 0, 0] });
    expect(backendCalls).toBe(30);
  });

  it('a retry inside the hedge: an attempt fails when its retries are spent, and the hedge tries again at once', () => {
    // Primary: fails at 10 ms, again at 70 (its retry after 50 ms); hedge at 70: fails at 80 and 140. The call fails at 140.
    const { totals, backendCalls } = run('    - hedge: { delay: 1s }\n    - retry: { maxAttempts: 2, waitDuration: 50ms }', 'latency: 10ms, errorRatio: 1');
    expect(totals).toMatchObject({ failed: 10, retries: 20, hedgedAttempts: 10, hedgeWins: [10, 0] });
    expect(backendCalls).toBe(40);
  });

  it('a negative delay hedges only after a failure; 0 starts every attempt at once', () => {
    expect(run('    - hedge: { delay: -1 }').totals).toMatchObject({ succeeded: 10, hedgedAttempts: 0, hedgeWins: [10, 0] });
    const all = run('    - hedge: { maxHedgedAttempts: 2, delay: 0 }');
    expect(all.totals).toMatchObject({ succeeded: 10, hedgedAttempts: 20, hedgeWins: [10, 0, 0], latencyP99Ms: 100 });
    expect(all.backendCalls).toBe(30);
  });

  it('a cancelled loser frees its place at a backend of finite capacity at once', () => {
    // One server, 90 ms a call: the hedge started at 50 ms waits for the server; when the primary
    // answers (90 ms) the hedge gives its place up, so the next request (100 ms) is served at once.
    const { totals } = run('    - hedge: { delay: 50ms }', 'latency: 90ms, capacity: 1');
    expect(totals).toMatchObject({ succeeded: 10, hedgedAttempts: 10, hedgeWins: [10, 0], latencyP50Ms: 90, latencyP99Ms: 90 });
  });

  it('a time limiter above the hedge cancels every attempt: no win, no attempt left running', () => {
    // A backend that hangs: attempts at 0, 50 and 100 ms, all cancelled at 150 ms.
    const { totals } = run('    - timeLimiter: { timeoutDuration: 150ms }\n    - hedge: { maxHedgedAttempts: 2, delay: 50ms }', 'hangRatio: 1');
    expect(totals).toMatchObject({ failed: 10, timeouts: 10, unfinished: 0, hedgedAttempts: 20, hedgeWins: [0, 0, 0] });
  });

  it('a breaker inside the hedge sees each attempt; a cancelled loser gives its permit back unrecorded', () => {
    const { totals, breaker } = run('    - hedge: { delay: 30ms }\n    - circuitBreaker: {}');
    expect(totals).toMatchObject({ succeeded: 10, breakerCalls: 20 });
    expect(breaker!.metrics).toMatchObject({ numberOfSuccessfulCalls: 10, numberOfFailedCalls: 0 });
  });

  it('refuses what a scenario cannot hold or simulate, with the line and why', () => {
    expect(() => run('    - hedge: { shouldHandle: x }')).toThrow(/hedge\.shouldHandle.*takes code/s);
    expect(() => run('    - hedge: { maxHedgedAttempts: 11 }')).toThrow(/maxHedgedAttempts must be an integer in \[1, 10\], got 11/);
    expect(() => run('    - hedge: { delay: { percentile: 1 } }')).toThrow(/percentile/);
  });
});

describe("a phase's slow tail", () => {
  it('slowRatio of the successful calls take slowLatency', () => {
    const { totals } = run('    []', 'latency: 10ms, slowRatio: 1, slowLatency: 300ms');
    expect(totals).toMatchObject({ succeeded: 10, latencyP50Ms: 300 });
  });

  it('refuses a ratio without a latency and a latency without a ratio', () => {
    expect(() => run('    []', 'slowRatio: 0.1')).toThrow(/a slow tail needs 'slowLatency'/);
    expect(() => run('    []', 'slowLatency: 1s')).toThrow(/'slowLatency' is for the calls 'slowRatio' makes slow/);
  });
});

describe('the report of a hedge and chaos', () => {
  const report = simulate(
    parseScenario(
      `pipelines:
  hedged: [{ hedge: { delay: 30ms } }, { chaos: { fault: boom, rate: 1, enabled: true } }]
  plain: []
traffic: { phases: [{ name: one, duration: 1s, rate: 10, arrivals: constant, latency: 100ms }, { name: two, duration: 1s, rate: 10, arrivals: constant }] }
`,
      'case.yml',
    ),
  );

  it('the table says the extra calls, who answered, what was injected; nothing for a pipeline without them', () => {
    const text = renderTable(report);
    // Every attempt is failed at once by the fault: the hedge goes to its next attempt at once, then fails with the primary's.
    expect(text).toContain('   hedge: 100.0 % more calls (20 hedged attempts for 20 calls); calls answered by primary 20, hedge 1 0');
    expect(text).toContain('   hedge, more calls per phase: one 100.0 %, two 100.0 %');
    expect(text).toContain('   chaos: 40 faults, 0 latencies, 0 outcomes injected in 40 calls through chaos layers');
    expect(text.split('plain')[2]).not.toMatch(/hedge:|chaos:/);
  });

  it('the HTML report has a table of them per phase', () => {
    const page = renderHtml(report);
    expect(page).toContain('<h4>Hedging and chaos</h4>');
    expect(page).toContain('<th>won by the primary</th><th>won by hedge 1</th><th>chaos calls</th><th>faults</th>');
    expect(page.match(/<h4>Hedging and chaos<\/h4>/g)).toHaveLength(1);
  });
});
