import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseScenario, parseScenarioFile } from './parse-scenario.js';
import { simulate } from './simulate.js';
import { parseTrace } from './trace.js';

const JSONL = [
  '{"timestamp": "2026-01-01T12:00:00.000Z", "latency": 120, "outcome": "ok"}',
  '{"timestamp": "2026-01-01T12:00:00.500Z", "latency": "2s", "outcome": "timeout"}',
  '{"timestamp": "2026-01-01T12:00:01.000Z", "latency": 30, "outcome": 503, "path": "/pay"}',
  '{"timestamp": "2026-01-01T12:00:01.200Z", "latency": 40, "outcome": "ok"}',
].join('\n');
const CSV = ['timestamp,latency,outcome,path', '1000,120,200,/pay', '1500,2000,hang,/pay', '2000,30,500,/pay', '2200,40,success,"/pay,v2"'].join('\n');

const scenario = (file: string, text: string) =>
  parseScenario(
    `
pipelines:
  tl: [ { timeLimiter: { timeoutDuration: 1s } } ]
  retry-tl:
    - retry: { maxAttempts: 2, waitDuration: 100ms }
    - timeLimiter: { timeoutDuration: 1s }
traffic: { trace: ${file} }
`,
    'trace-case.yml',
    () => ({ file, text }),
  );

describe('a recorded trace replayed as the backend', () => {
  it('JSONL and CSV read to the same entries (times from 0, 5xx an error, timeout a hang)', () => {
    const expected = [
      { atMs: 0, latencyMs: 120, outcome: 'ok' },
      { atMs: 500, latencyMs: 2000, outcome: 'hang' },
      { atMs: 1000, latencyMs: 30, outcome: 'error' },
      { atMs: 1200, latencyMs: 40, outcome: 'ok' },
    ];
    expect(parseTrace('calls.jsonl', JSONL)).toEqual(expected);
    expect(parseTrace('calls.csv', CSV)).toEqual(expected);
  });

  it.each([
    ['calls.jsonl', JSONL],
    ['calls.csv', CSV],
  ])('%s: each request gets its own line; a retry gets what the backend did at that moment', (file, text) => {
    const report = simulate(scenario(file, text));
    expect(report.scenario.phases).toEqual([{ name: file, startMs: 0, endMs: 1201 }]);
    const [tl, retry] = report.configurations;
    // 4 requests: ok, hang (cut at 1 s), error, ok.
    expect(tl!.totals).toMatchObject({ requests: 4, succeeded: 2, failed: 2, timeouts: 1, retries: 0 });
    // The hang's retry at 1.6 s and the error's retry at 1.13 s both get the last line (ok, 40 ms).
    expect(retry!.totals).toMatchObject({ requests: 4, succeeded: 4, failed: 0, timeouts: 1, retries: 2 });
  });

  it('refuses a bad line with its number and field', () => {
    expect(() => parseTrace('t.csv', 'timestamp,latency,outcome\n0,10,ok\n5,ten,ok\n')).toThrow(
      't.csv:3:3: latency: not a duration: got text of 3 characters (ms as a number, or a duration: 250ms, 1.5s)',
    );
    expect(() => parseTrace('t.jsonl', '{"timestamp": 0, "latency": 1, "outcome": "maybe"}')).toThrow('t.jsonl:1:32: outcome: must be ok, error or hang');
    expect(() => parseTrace('t.jsonl', '{"timestamp": 0,')).toThrow(/^t\.jsonl:1:17: not valid JSON/);
    expect(() => parseTrace('t.csv', 'timestamp,latency,outcome\n0,10\n')).toThrow('t.csv:2:1: has 2 fields, the header has 3');
  });

  it('examples/scenarios/trace-replay.yml: every line of its access log is a request, and both windows open during the incident', () => {
    const report = simulate(parseScenarioFile(fileURLToPath(new URL('../../../examples/scenarios/trace-replay.yml', import.meta.url))));
    for (const c of report.configurations) {
      expect(c.totals.requests).toBe(3728);
      expect(c.timeToOpenMs).toBeGreaterThan(60_000); // the incident is the log's second minute
      expect(c.timeToOpenMs).toBeLessThan(120_000);
      expect(c.transitions[0]!.cause).toBe('failure_rate');
    }
  });
});
