import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { parseScenario } from './parse-scenario.js';
import { buildPipeline } from './pipeline.js';
import { simulate } from './simulate.js';
import { ScenarioError } from './yaml-source.js';

const TRAFFIC = `traffic:
  phases:
    - { duration: 20s, rate: 10, arrivals: constant, errorRatio: 1, latency: 10ms }
`;

describe('a pipeline from a Spring resilience4j block (through fromConfig)', () => {
  it('takes the instance of each section: Retry → CircuitBreaker → TimeLimiter, Spring names and values', () => {
    const report = simulate(
      parseScenario(`
pipelines:
  spring:
    instance: pg
    resilience4j:
      circuitbreaker:
        configs:
          default: { sliding-window-size: 10, minimum-number-of-calls: 10, wait-duration-in-open-state: 5s }
        instances:
          pg: { base-config: default, failure-rate-threshold: 60 }
      retry:
        instances:
          pg: { max-attempts: 2, wait-duration: 100ms }
      timelimiter:
        instances:
          pg: { timeout-duration: 1s }
${TRAFFIC}`),
    );
    const c = report.configurations[0]!;
    expect(c.settings).toMatchObject({
      maxAttempts: 2,
      slidingWindowSize: 10,
      minimumNumberOfCalls: 10,
      failureRateThreshold: 60,
      waitDurationInOpenState: 5000,
      timeoutDuration: 1000,
    });
    expect(c.thresholds.failureRateThreshold).toBe(60);
    // Requests every 100 ms; each attempt fails after 10 ms, the retry 100 ms later: failures at
    // 10, 110, 120, 210, 220, 310, 320, 410, 420, 510 ms. The 10th fills the window: OPEN at 510 ms.
    expect(c.transitions[0]).toMatchObject({ atMs: 510, to: 'OPEN', cause: 'failure_rate' });
    expect(c.totals.breakerCalls).toBe(c.totals.requests + c.totals.retries);
  });

  it("refuses an instance no section of the block names, at instance, with the block's instances (the OpenFeign trap: Spring would use configs.default)", () => {
    expect(() =>
      parseScenario(
        `
pipelines:
  feign-named:
    instance: 'PgClient#pay(String)'
    resilience4j:
      circuitbreaker:
        configs: { default: { sliding-window-size: 7 } }
        instances: { pg: { sliding-window-size: 20 } }
${TRAFFIC}`,
        'spring.yml',
      ),
    ).toThrow(
      new ScenarioError(
        'spring.yml',
        4,
        15,
        'pipelines.feign-named.instance',
        "fromConfig(…).pipeline('PgClient#pay(String)'): no section has an instance named 'PgClient#pay(String)' (did you mean 'pg'?): a pipeline is built from the instances of that name (the file has circuitbreaker: pg)",
      ),
    );
  });

  it('leaves out a section that does not name the instance, as Spring leaves out an annotation the method does not carry', () => {
    const scenario = parseScenario(`
pipelines:
  spring:
    instance: pg
    resilience4j:
      circuitbreaker:
        configs: { default: { sliding-window-size: 7 } }
        instances: { other: {} }
      retry:
        instances: { pg: { max-attempts: 2 } }
${TRAFFIC}`);
    expect(buildPipeline(scenario.pipelines[0]!, new VirtualClock(), Math.random).map((l) => l.kind)).toEqual(['retry']);
  });

  it('refuses a bad Spring key at the block, with the config loader’s message, and the sections it does not simulate', () => {
    const bad = (block: string) => {
      try {
        parseScenario(`pipelines:\n  s:\n    instance: pg\n    resilience4j:\n${block}${TRAFFIC}`, 'spring.yml');
      } catch (e) {
        expect(e).toBeInstanceOf(ScenarioError);
        return (e as ScenarioError).message;
      }
      throw new Error('accepted');
    };
    expect(bad('      circuitbreaker:\n        instances:\n          pg:\n            sliding-window-siz: 3\n')).toBe(
      "spring.yml:8:13: pipelines.s.resilience4j.circuitbreaker.instances.pg.sliding-window-siz: fromConfig: resilience4j.circuitbreaker.instances.pg.sliding-window-siz: unknown property, did you mean 'sliding-window-size'?",
    );
    expect(bad('      retry:\n        instances:\n          pg:\n            max-attempts: -1\n')).toMatch(
      /^spring\.yml:8:13: pipelines\.s\.resilience4j\.retry\.instances\.pg\.max-attempts: .*maxAttempts must be an integer >= 1, got -1/,
    );
    expect(bad('      thread-pool-bulkhead:\n        instances: { pg: { max-thread-pool-size: 3 } }\n')).toContain(
      'pipelines.s.resilience4j.thread-pool-bulkhead: is not simulated yet',
    );
    expect(bad('      bulkhead:\n        instances:\n          pg:\n            fair-call-handling-enabled: false\n')).toMatch(
      /^spring\.yml:8:13: pipelines\.s\.resilience4j\.bulkhead\.instances\.pg\.fair-call-handling-enabled: .*fairCallHandlingEnabled: false is not simulated/,
    );
    expect(bad('      ratelimiter:\n        instances:\n          pg:\n            limit-for-priod: 3\n')).toContain("did you mean 'limit-for-period'?");
  });

  it('takes ratelimiter and bulkhead instances too, in Resilience4j’s aspect order: Retry ( CircuitBreaker ( RateLimiter ( TimeLimiter ( Bulkhead ( fn ) ) ) ) )', () => {
    const scenario = parseScenario(`
pipelines:
  spring:
    instance: pg
    resilience4j:
      bulkhead:
        instances: { pg: { max-concurrent-calls: 1, max-wait-duration: 0 } }
      timelimiter:
        instances: { pg: { timeout-duration: 1s } }
      ratelimiter:
        instances: { pg: { limit-for-period: 2, limit-refresh-period: 1s, timeout-duration: 0 } }
      circuitbreaker:
        instances: { pg: { sliding-window-size: 100 } }
      retry:
        instances: { pg: { max-attempts: 1 } }
traffic:
  phases:
    - { duration: 3s, rate: 5, arrivals: constant, errorRatio: 0, latency: 300ms }
`);
    expect(buildPipeline(scenario.pipelines[0]!, new VirtualClock(), Math.random).map((l) => l.kind)).toEqual([
      'retry',
      'circuitBreaker',
      'rateLimiter',
      'timeLimiter',
      'bulkhead',
    ]);
    // Requests at 0, 200, …, 800 ms of each second; 2 permits a second (no wait): those at 400, 600
    // and 800 ms are refused by the limiter. Of the two permitted, the one at 200 ms finds the
    // bulkhead's only slot held until 300 ms (no wait): refused too. One success a second.
    const c = simulate(scenario).configurations[0]!;
    expect(c.totals).toMatchObject({ requests: 15, succeeded: 3, rejected: 12 });
  });

  it('honours the block’s *-aspect-order values, as Spring does (a lower order is further out)', () => {
    const scenario = parseScenario(`
pipelines:
  spring:
    instance: pg
    resilience4j:
      retry:
        retry-aspect-order: 10
        instances: { pg: { max-attempts: 2 } }
      circuitbreaker:
        circuit-breaker-aspect-order: 5
        instances: { pg: { sliding-window-size: 100 } }
      timelimiter:
        instances: { pg: { timeout-duration: 1s } }
${TRAFFIC}`);
    expect(buildPipeline(scenario.pipelines[0]!, new VirtualClock(), Math.random).map((l) => l.kind)).toEqual(['circuitBreaker', 'retry', 'timeLimiter']);
  });
});
