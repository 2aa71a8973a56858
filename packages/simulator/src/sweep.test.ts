import { describe, expect, it } from 'vitest';
import { parseScenario } from './parse-scenario.js';
import { rank } from './ranking.js';
import type { ConfigurationResult } from './report.js';
import { simulate } from './simulate.js';
import { applySweep, combinations, parseSweep, SweepError } from './sweep.js';

const base = parseScenario(`
seed: 5
pipelines:
  p:
    - retry: { maxAttempts: 2, waitDuration: 100ms }
    - circuitBreaker: { slidingWindowSize: 20, minimumNumberOfCalls: 10, waitDurationInOpenState: 5s }
traffic:
  phases:
    - { name: incident, duration: 20s, rate: 20, errorRatio: 0.8, latency: 20ms }
    - { name: healthy, duration: 40s, rate: 20, errorRatio: 0 }
`);

describe('--sweep', () => {
  it('reads key=values, with numbers, booleans and durations', () => {
    expect(parseSweep('slidingWindowSize=10,20,50')).toEqual({ key: 'slidingWindowSize', kind: undefined, values: [10, 20, 50] });
    expect(parseSweep('circuitBreaker.waitDurationInOpenState=5s,30s')).toEqual({
      key: 'waitDurationInOpenState',
      kind: 'circuitBreaker',
      values: ['5s', '30s'],
    });
    expect(parseSweep('automaticTransitionFromOpenToHalfOpenEnabled=true,false').values).toEqual([true, false]);
  });

  it('refuses an unknown option or layer with a did-you-mean, and a bad value before anything runs', () => {
    expect(() => parseSweep('slidingWindowSiz=1,2')).toThrow("unknown option 'slidingWindowSiz' (did you mean 'slidingWindowSize'?)");
    expect(() => parseSweep('circuitBraker.slidingWindowSize=1')).toThrow("unknown layer 'circuitBraker' (did you mean 'circuitBreaker'?)");
    expect(() => parseSweep('slidingWindowSize')).toThrow(SweepError);
    expect(() => applySweep(base, [parseSweep('failureRateThreshold=50,0')])).toThrow(
      /--sweep failureRateThreshold=0: .*failureRateThreshold must be in \(0, 100\], got 0/,
    );
    expect(() => applySweep(base, [parseSweep('timeoutDuration=1s')])).toThrow("pipeline 'p' has no layer with that option");
  });

  it('runs every combination, named by its values, with its values as settings', () => {
    expect(combinations([parseSweep('a=1,2'.replace('a', 'slidingWindowSize')), parseSweep('waitDurationInOpenState=5s,30s')])).toHaveLength(4);
    const swept = applySweep(base, [parseSweep('slidingWindowSize=10,50'), parseSweep('waitDurationInOpenState=1s,30s')]);
    expect(swept.pipelines.map((p) => p.name)).toEqual([
      'slidingWindowSize=10 waitDurationInOpenState=1s',
      'slidingWindowSize=10 waitDurationInOpenState=30s',
      'slidingWindowSize=50 waitDurationInOpenState=1s',
      'slidingWindowSize=50 waitDurationInOpenState=30s',
    ]);
    const report = simulate(swept);
    expect(report.configurations[1]!.settings).toEqual({ slidingWindowSize: 10, waitDurationInOpenState: '30s' });
    expect(report.ranking).toHaveLength(4);
    expect([...report.ranking].sort()).toEqual(swept.pipelines.map((p) => p.name).sort());
    // A 30 s wait keeps refusing well into the healthy phase: both 30 s settings rank below both 1 s ones.
    expect(report.ranking.slice(2).every((n) => n.endsWith('30s'))).toBe(true);
  });
});

describe('--sweep over rate limiter and bulkhead options', () => {
  const admission = parseScenario(`
pipelines:
  p:
    - rateLimiter: { limitForPeriod: 50, limitRefreshPeriod: 1s, timeoutDuration: 500ms }
    - timeLimiter: { timeoutDuration: 1s }
    - bulkhead: { maxConcurrentCalls: 10, maxWaitDuration: 100ms }
traffic:
  phases:
    - { duration: 10s, rate: 40, arrivals: constant, latency: 400ms }
`);

  it('sweeps their options; fewer slots refuse more', () => {
    const report = simulate(applySweep(admission, [parseSweep('maxConcurrentCalls=5,20')]));
    expect(report.configurations.map((c) => c.name)).toEqual(['maxConcurrentCalls=5', 'maxConcurrentCalls=20']);
    expect(report.configurations[0]!.totals.rejected).toBeGreaterThan(report.configurations[1]!.totals.rejected);
    expect(report.configurations[1]!.totals.rejected).toBe(0);
  });

  it('a key two layers of the pipeline have must be said with its layer', () => {
    expect(() => applySweep(admission, [parseSweep('timeoutDuration=1s,2s')])).toThrow(
      "--sweep timeoutDuration: pipeline 'p' has it in rateLimiter and timeLimiter: say which, rateLimiter.timeoutDuration=… or timeLimiter.timeoutDuration=…",
    );
    const swept = applySweep(admission, [parseSweep('rateLimiter.timeoutDuration=0,500ms'), parseSweep('timeLimiter.timeoutDuration=1s,2s')]);
    expect(swept.pipelines[1]!.name).toBe('rateLimiter.timeoutDuration=0 timeLimiter.timeoutDuration=2s');
    const layers = swept.pipelines[1]!.kind === 'layers' ? swept.pipelines[1]!.layers : [];
    expect(layers.map((l) => l.options['timeoutDuration'])).toEqual([0, '2s', undefined]);
    expect(() => applySweep(admission, [parseSweep('timeoutDuration=1s'), parseSweep('timeLimiter.timeoutDuration=2s')])).toThrow('is given twice');
    expect(() => applySweep(admission, [parseSweep('fairCallHandlingEnabled=false')])).toThrow(/fairCallHandlingEnabled: false is not simulated/);
    expect(() => parseSweep('maxConcurentCalls=1')).toThrow("did you mean 'maxConcurrentCalls'?");
  });
});

describe('the ranking order', () => {
  const result = (name: string, failed: number, rejected: number, perRequest = 1, open: number | null = null, recover: number | null = null) =>
    ({
      name,
      totals: { failed, rejected, breakerCallsPerRequest: perRequest },
      timeToOpenMs: open,
      timeToRecoverMs: recover,
    }) as unknown as ConfigurationResult;

  it('fewest failed + rejected, then fewest failed, then breaker calls per request, then recovery, then opening; ties keep the run order', () => {
    expect(rank([result('a', 10, 0), result('b', 2, 2)])).toEqual(['b', 'a']);
    expect(rank([result('a', 3, 1), result('b', 1, 3)])).toEqual(['b', 'a']);
    expect(rank([result('a', 1, 1, 1.5), result('b', 1, 1, 1.2)])).toEqual(['b', 'a']);
    expect(rank([result('a', 1, 1, 1, 100, null), result('b', 1, 1, 1, 100, 5000)])).toEqual(['b', 'a']);
    expect(rank([result('a', 1, 1, 1, 100, 5000), result('b', 1, 1, 1, null, null)])).toEqual(['b', 'a']);
    expect(rank([result('a', 1, 1, 1, 900, 5000), result('b', 1, 1, 1, 100, 5000)])).toEqual(['b', 'a']);
    expect(rank([result('a', 1, 1), result('b', 1, 1)])).toEqual(['a', 'b']);
  });
});
