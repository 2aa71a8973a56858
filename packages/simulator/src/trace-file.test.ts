import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runPackageScript } from '@breakwater/test-support';
import { afterAll, describe, expect, it } from 'vitest';
import { LIMITS } from './limits.js';
import { parseScenarioFile } from './parse-scenario.js';
import { readRegularFile } from './read-file.js';
import { parseTrace } from './trace.js';
import { ScenarioError } from './yaml-source.js';

// A trace is read only from a regular file, within a size, and no error echoes what a file holds
// (contract: docs/simulator.md): `trace:` names a path, and a scenario from elsewhere must not turn the simulator into
// a reader of /dev/zero, a FIFO, /etc/passwd or the process's environment.

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const dir = mkdtempSync(join(tmpdir(), 'breakwater-trace-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PIPELINES = 'pipelines: { bare: [] }\n';

/** A scenario file whose `trace:` is `path`; the refusal it gets. */
function refusalFor(path: string): ScenarioError {
  const file = join(dir, `trace-${Math.random().toString(36).slice(2)}.yml`);
  writeFileSync(file, `${PIPELINES}traffic:\n  trace: ${JSON.stringify(path)}\n`);
  try {
    parseScenarioFile(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return error as ScenarioError;
  }
  throw new Error(`the trace ${path} was read`);
}

describe('a trace is read only from a regular file', () => {
  it('/dev/zero (a character device) is refused at once, nothing read', () => {
    const e = refusalFor('/dev/zero');
    expect(e.message).toMatch(/:3:10: traffic\.trace: cannot read the trace \/dev\/zero: not a regular file \(a character device\)$/);
  });

  it('a FIFO is refused at once: the command exits 2 without waiting for a writer (bounded: the test writes to it after 10 s)', async () => {
    const fifo = join(dir, 'calls.jsonl');
    execFileSync('mkfifo', [fifo]);
    const scenario = join(dir, 'fifo.yml');
    writeFileSync(scenario, `${PIPELINES}traffic: { trace: calls.jsonl }\n`);
    let unblocked = false;
    // Were the command to block on the FIFO, this writer (open, then close: end of file) lets it go on.
    const unblock = setTimeout(() => {
      unblocked = true;
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader: the command did not open it
      }
    }, 10_000);
    const { code, stdout, stderr } = await runPackageScript(root, 'simulate', [scenario]);
    clearTimeout(unblock);
    expect(unblocked, 'the command blocked on the FIFO until it was written').toBe(false);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim()).toBe(`breakwater: ${scenario}:2:19: traffic.trace: cannot read the trace calls.jsonl: not a regular file (a FIFO)`);
  }, 30_000);

  it('a folder, and a path that does not exist', () => {
    expect(refusalFor(dir).message).toMatch(/cannot read the trace .*: a folder, not a file$/);
    expect(refusalFor(join(dir, 'missing.jsonl')).message).toMatch(/cannot read the trace .*missing\.jsonl: no such file$/);
  });

  it('a file over the size limit is refused from its size, before it is read', () => {
    const big = join(dir, 'big.jsonl');
    writeFileSync(big, '');
    truncateSync(big, LIMITS.maxTraceBytes + 1); // sparse: nothing written
    expect(refusalFor(big).message).toMatch(/cannot read the trace .*big\.jsonl: 134,217,729 bytes, more than the 134,217,728 \(128 MiB\) it may have$/);
  });

  it('readRegularFile: a file read to its end within the limit; a file that grows past the limit while read is refused', () => {
    const small = join(dir, 'small.txt');
    writeFileSync(small, 'héllo\n');
    expect(readRegularFile(small, 7)).toBe('héllo\n');
    expect(() => readRegularFile(small, 6)).toThrow('7 bytes, more than the 6 (6 B) it may have');
    // /proc files say size 0 and hold more: read up to the limit, not further.
    expect(() => readRegularFile('/proc/self/status', 10)).toThrow('more than the 10 (10 B) it may have');
  });
});

describe('an error never echoes what the file holds', () => {
  it('/etc/passwd as a trace: the line and column, what was expected, none of its text', () => {
    const first = readFileSync('/etc/passwd', 'utf8').split('\n')[0]!;
    const e = refusalFor('/etc/passwd');
    expect(e.message).toBe('/etc/passwd:1:1: not a JSON object: expected { (one JSON object a line: {"timestamp": …, "latency": …, "outcome": …})');
    for (const part of first.split(':').filter((p) => p.length >= 2)) expect(e.message).not.toContain(part);
  });

  it("/proc/self/environ as a trace: none of the environment's values", () => {
    const e = refusalFor('/proc/self/environ');
    expect(e.message).toMatch(/^\/proc\/self\/environ:1:1: not a JSON object: expected \{ \(one JSON object a line/);
    for (const value of Object.values(process.env)) if (value !== undefined && value.length >= 4) expect(e.message).not.toContain(value);
  });

  it('a JSON line that breaks off: where, not what', () => {
    expect(() => parseTrace('t.jsonl', '{"timestamp": 0, "secret": "hunter2"')).toThrow(/^t\.jsonl:1:37: not valid JSON \(one JSON object a line/);
    expect(() => parseTrace('t.jsonl', '{"timestamp": 0, "secret": "hunter2"')).not.toThrow(/hunter2/);
    expect(() => parseTrace('t.jsonl', '  ["hunter2"]')).toThrow('t.jsonl:1:3: not a JSON object: expected { (one JSON object a line');
  });

  it('a bad field: its line and column, what was expected and what kind of value was found, not the value', () => {
    const csv = 'timestamp,latency,outcome\n0,10,ok\n5,hunter2,ok\n';
    expect(() => parseTrace('t.csv', csv)).toThrow('t.csv:3:3: latency: not a duration: got text of 7 characters (ms as a number, or a duration: 250ms, 1.5s)');
    const jsonl = '{"timestamp": "hunter2", "latency": 1, "outcome": "ok"}';
    expect(() => parseTrace('t.jsonl', jsonl)).toThrow('t.jsonl:1:2: timestamp: not a time: got text of 7 characters (ms as a number, or an ISO 8601 date)');
    expect(() => parseTrace('t.jsonl', '{"timestamp": 0, "latency": 1, "outcome": "hunter2"}')).toThrow(
      't.jsonl:1:32: outcome: must be ok, error or hang (or success/failure/timeout, or an HTTP status: 5xx is an error), got text of 7 characters',
    );
    expect(() => parseTrace('t.jsonl', '{"timestamp": 0, "latency": -1234, "outcome": "ok"}')).toThrow(
      't.jsonl:1:18: latency: not a duration: got a negative number',
    );
    for (const bad of [csv, jsonl]) expect(() => parseTrace('t.csv', bad)).not.toThrow(/hunter2|1234/);
  });

  it('a latency or a span beyond 365 days: the line, the limit', () => {
    expect(() => parseTrace('t.jsonl', '{"timestamp": 0, "latency": 1e12, "outcome": "ok"}')).toThrow(
      `t.jsonl:1:18: latency: must be at most 365 days (${LIMITS.maxDurationMs} ms)`,
    );
    const span = '{"timestamp": 0, "latency": 1, "outcome": "ok"}\n{"timestamp": 1e12, "latency": 1, "outcome": "ok"}\n';
    expect(() => parseTrace('t.jsonl', span)).toThrow(
      `t.jsonl:2:2: timestamp: the trace spans more than 365 days (${LIMITS.maxDurationMs} ms) from its earliest line`,
    );
  });
});
