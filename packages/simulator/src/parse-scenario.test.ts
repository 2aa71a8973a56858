import { describe, expect, it } from 'vitest';
import { parseScenario } from './parse-scenario.js';
import { ScenarioError } from './yaml-source.js';

const PIPELINE = 'pipelines:\n  p:\n    - circuitBreaker: { slidingWindowSize: 10 }\n';
const TRAFFIC = 'traffic:\n  phases:\n    - { duration: 1s, rate: 10 }\n';

function refusal(yaml: string, readTrace?: (path: string) => { file: string; text: string }): ScenarioError {
  try {
    parseScenario(yaml, 'bad.yml', readTrace);
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return error as ScenarioError;
  }
  throw new Error('the scenario was accepted');
}

describe('bad scenario input is refused with the file, line and key', () => {
  it('an unknown top-level key, with a did-you-mean', () => {
    const e = refusal(`${PIPELINE}trafic:\n  phases: []\n`);
    expect(e.message).toMatch(/^bad\.yml:4:1: trafic: unknown key \(did you mean 'traffic'\?\)/);
    expect([e.file, e.line, e.key]).toEqual(['bad.yml', 4, 'trafic']);
  });

  it('an unknown phase key, with a did-you-mean', () => {
    const e = refusal(`${PIPELINE}traffic:\n  phases:\n    - duration: 1s\n      rate: 10\n      erorRatio: 0.5\n`);
    expect(e.message).toContain("bad.yml:8:7: traffic.phases[0].erorRatio: unknown key (did you mean 'errorRatio'?)");
  });

  it('an unknown breaker option, with a did-you-mean', () => {
    const e = refusal(`pipelines:\n  p:\n    - circuitBreaker:\n        slidingWindowSiz: 10\n${TRAFFIC}`);
    expect(e.message).toContain("bad.yml:4:9: pipelines.p[0].circuitBreaker.slidingWindowSiz: unknown key (did you mean 'slidingWindowSize'?)");
  });

  it('a bad unit', () => {
    const e = refusal(`${PIPELINE}traffic:\n  phases:\n    - duration: 5x\n      rate: 10\n`);
    expect(e.message).toContain('bad.yml:6:17: traffic.phases[0].duration: not a duration: "5x"');
    const latency = refusal(`${PIPELINE}traffic:\n  phases:\n    - { duration: 1s, rate: 1, latency: { uniform: [10ms, 2parsecs] } }\n`);
    expect(latency.key).toBe('traffic.phases[0].latency.uniform[1]');
  });

  it('a rate of 0 (a pause is written as such)', () => {
    const e = refusal(`${PIPELINE}traffic:\n  phases:\n    - duration: 5s\n      rate: 0\n`);
    expect(e.message).toContain("bad.yml:7:13: traffic.phases[0].rate: must be a number > 0, got 0 (a pause is 'pause: <duration>')");
  });

  it("a breaker option out of range: the component's own message, at the option's line", () => {
    const e = refusal(`pipelines:\n  p:\n    - circuitBreaker:\n        slidingWindowSize: 10\n        failureRateThreshold: 0\n${TRAFFIC}`);
    expect(e.line).toBe(5);
    expect(e.key).toBe('pipelines.p[0].circuitBreaker.failureRateThreshold');
    expect(e.message).toContain('failureRateThreshold must be in (0, 100], got 0');
  });

  it('rate limiter and bulkhead options: unknown keys, units, ranges, code, what is not simulated', () => {
    const unknown = refusal(`pipelines:\n  p:\n    - rateLimiter:\n        limitForPeriods: 10\n${TRAFFIC}`);
    expect(unknown.message).toContain("bad.yml:4:9: pipelines.p[0].rateLimiter.limitForPeriods: unknown key (did you mean 'limitForPeriod'?)");
    const unit = refusal(`pipelines:\n  p:\n    - bulkhead:\n        maxConcurrentCalls: 2\n        maxWaitDuration: 5 parsecs\n${TRAFFIC}`);
    expect([unit.line, unit.key]).toEqual([5, 'pipelines.p[0].bulkhead.maxWaitDuration']);
    const range = refusal(`pipelines:\n  p:\n    - bulkhead:\n        maxConcurrentCalls: -1\n${TRAFFIC}`);
    expect([range.line, range.key]).toEqual([4, 'pipelines.p[0].bulkhead.maxConcurrentCalls']);
    expect(refusal(`pipelines:\n  p:\n    - rateLimiter: { drainPermissionsOnResult: x }\n${TRAFFIC}`).message).toContain(
      'rateLimiter.drainPermissionsOnResult: takes code',
    );
    const unfair = refusal(`pipelines:\n  p:\n    - bulkhead: { fairCallHandlingEnabled: false }\n${TRAFFIC}`);
    expect(unfair.key).toBe('pipelines.p[0].bulkhead.fairCallHandlingEnabled');
    expect(unfair.message).toContain('fairCallHandlingEnabled: false is not simulated');
    expect(refusal(`pipelines:\n  p:\n    - bulkHead: {}\n${TRAFFIC}`).message).toContain("(did you mean 'bulkhead'?)");
  });

  it('an option that takes code', () => {
    const e = refusal(`pipelines:\n  p:\n    - retry: { recordResult: 1, intervalFunction: x }\n${TRAFFIC}`);
    expect(e.message).toMatch(/pipelines\.p\[0\]\.retry\.\w+: (unknown key|takes code)/);
  });

  it('a YAML tag, and YAML that does not parse', () => {
    expect(refusal(`${PIPELINE}traffic: !!js/function x\n`).message).toMatch(/^bad\.yml:4:\d+: traffic: the tag .* is not allowed/);
    expect(refusal(`${PIPELINE}traffic:\n  phases: [\n`).message).toMatch(/^bad\.yml:\d+:\d+: not valid YAML/);
    expect(refusal(`${PIPELINE}  p: []\n${TRAFFIC}`).message).toBe('bad.yml:4:3: not valid YAML: Map keys must be unique');
  });

  it('YAML aliases: a few are read; an alias bomb is refused at its first alias, wherever it sits', () => {
    const ok = parseScenario(`${PIPELINE}traffic:\n  phases:\n    - { duration: 1s, rate: &r 10 }\n    - { duration: 1s, rate: *r }\n`, 'ok.yml');
    expect(ok.traffic.kind === 'phases' && ok.traffic.phases.map((p) => p.rate)).toEqual([10, 10]);
    const laughs = ['a', 'b', 'c', 'd', 'e', 'f'].map(
      (name, i, all) =>
        `${name}: &${name} [${Array(9)
          .fill(i === 0 ? 'x' : `*${all[i - 1]}`)
          .join(', ')}]`,
    );
    const e = refusal(`name: &n [${laughs.join(', ')}]\n${PIPELINE}${TRAFFIC}`.replace('name: &n [', 'name: &n { ').replace(']\n', ' }\n'));
    expect(e.message).toMatch(/^bad\.yml:1:\d+: name\.b\[0\]: YAML aliases expand past 100 /);
  });

  it('a closed loop that would spin, two arrival kinds at once, errorRatio + hangRatio > 1', () => {
    expect(refusal(`${PIPELINE}traffic:\n  phases:\n    - { duration: 1s, users: 2 }\n`).message).toContain("give 'thinkTime' or 'requests'");
    expect(refusal(`${PIPELINE}traffic:\n  phases:\n    - { duration: 1s, users: 2, rate: 3 }\n`).message).toContain("give 'rate' (open loop) or 'users'");
    expect(refusal(`${PIPELINE}traffic:\n  phases:\n    - { duration: 1s, rate: 1, errorRatio: 0.6, hangRatio: 0.6 }\n`).message).toContain(
      'errorRatio + hangRatio must be <= 1',
    );
    expect(
      refusal(`${PIPELINE}traffic:\n  phases:\n    - { duration: 1s, rate: 1, errorRatio: 1 }\n    - { duration: 1s, rate: 1, hangRatio: 1 }\n`).message,
    ).toContain('got 1 + 1 (errorRatio 1 is carried over from the phase before: give errorRatio here)');
  });

  it('a malformed trace line: the trace file, its line and the field', () => {
    const trace = '{"timestamp": 0, "latency": 10, "outcome": "ok"}\n{"timestamp": 5, "latncy": 10, "outcome": "ok"}\n';
    const e = refusal(`${PIPELINE}traffic: { trace: calls.jsonl }\n`, () => ({ file: 'calls.jsonl', text: trace }));
    expect(e.message).toBe("calls.jsonl:2:1: latency: missing (did you mean 'latncy'?): each line needs timestamp, latency, outcome");
  });

  it('a bucket too narrow for the length of the traffic', () => {
    expect(refusal(`bucket: 1ms\n${PIPELINE}traffic:\n  phases:\n    - { duration: 2m, rate: 1 }\n`).message).toBe(
      'bad.yml:1:9: bucket: gives 120000 points for 120000 ms of traffic; at most 100000 (a wider bucket)',
    );
  });

  it('a phase inherits the backend of the one before unless it says otherwise', () => {
    const s = parseScenario(`${PIPELINE}traffic:\n  phases:\n    - { duration: 1s, rate: 1, errorRatio: 0.3, latency: 20ms }\n    - { pause: 1s }\n`);
    if (s.traffic.kind !== 'phases') throw new Error('phases expected');
    expect(s.traffic.phases[1]!.backend).toEqual(s.traffic.phases[0]!.backend);
    expect(s.traffic.phases[1]!.arrivals).toBe('none');
    expect(s.seed).toBe(1);
    expect(s.name).toBe('scenario');
  });
});
