import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runPackageScript } from '@breakwater/test-support';
import { run, USAGE } from './cli.js';
import { LIMITS } from './limits.js';
import type { SimulationReport } from './report.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const dir = mkdtempSync(join(tmpdir(), 'breakwater-simulate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCENARIO = join(dir, 'small.yml');
writeFileSync(
  SCENARIO,
  `name: small
seed: 3
pipelines:
  guarded:
    - circuitBreaker: { slidingWindowSize: 10, minimumNumberOfCalls: 5, waitDurationInOpenState: 2s }
    - timeLimiter: { timeoutDuration: 200ms }
traffic:
  phases:
    - { name: bad, duration: 5s, rate: 20, arrivals: constant, errorRatio: 0.9, latency: 20ms }
    - { name: good, duration: 5s, rate: 20, arrivals: constant, errorRatio: 0 }
`,
);
const BAD = join(dir, 'bad.yml');
writeFileSync(BAD, 'pipelines:\n  p: []\ntraffic:\n  phases:\n    - { duration: 1s, rate: 0 }\n');

async function inProcess(args: readonly string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('breakwater simulate, the real process', () => {
  it('prints the table and exits 0', async () => {
    const { code, stdout, stderr } = await runPackageScript(root, 'simulate', [SCENARIO]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`small (${SCENARIO}): seed 3, 10 s of traffic`);
    expect(stdout).toMatch(
      /configuration +requests +succeeded +failed +rejected +slow +time-outs +retries +breaker calls\/request +p50 +p99 +time to open +time to recover/,
    );
    expect(stdout).toMatch(/CLOSED → OPEN {2}\(failure rate\)/);
  }, 60_000);

  it('--json prints the report', async () => {
    const { code, stdout } = await runPackageScript(root, 'simulate', [SCENARIO, '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as SimulationReport;
    expect(report.scenario).toMatchObject({ name: 'small', seed: 3, durationMs: 10_000 });
    expect(report.configurations[0]!.totals.requests).toBe(200);
    expect(report.configurations[0]!.phases.map((p) => p.name)).toEqual(['bad', 'good']);
  }, 60_000);

  it('bad input exits 2 with the file, line and key, before anything runs', async () => {
    const { code, stdout, stderr } = await runPackageScript(root, 'simulate', [BAD]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`${BAD}:5:29: traffic.phases[0].rate: must be a number > 0, got 0`);
  }, 60_000);
});

describe('breakwater simulate, in process', () => {
  it('the same report as the JSON, and the same again for the same seed', async () => {
    const a = await inProcess(['simulate', SCENARIO, '--json']);
    const b = await inProcess(['simulate', SCENARIO, '--json']);
    expect(a.code).toBe(0);
    expect(b.out).toBe(a.out);
    const other = await inProcess(['simulate', SCENARIO, '--json', '--seed', '4']);
    expect(JSON.parse(other.out).scenario.seed).toBe(4);
  });

  it('--sweep runs every combination and ranks them', async () => {
    const { code, out } = await inProcess(['simulate', SCENARIO, '--sweep', 'slidingWindowSize=5,10', '--sweep', 'waitDurationInOpenState=1s,4s']);
    expect(code).toBe(0);
    expect(out).toMatch(/^# +configuration/m);
    for (const name of ['slidingWindowSize=5 waitDurationInOpenState=1s', 'slidingWindowSize=10 waitDurationInOpenState=4s']) expect(out).toContain(name);
    expect(out).toContain('ranked by: failed + rejected, then failed');
  });

  it('--seeds N runs each configuration with N seeds (the scenario’s, or --seed’s, and the next ones): each seed’s totals, ranked by their means', async () => {
    const { code, out } = await inProcess(['simulate', SCENARIO, '--json', '--seeds', '3', '--sweep', 'slidingWindowSize=5,10']);
    expect(code).toBe(0);
    const report = JSON.parse(out) as SimulationReport;
    expect(report.scenario.seeds).toEqual([3, 4, 5]);
    for (const c of report.configurations) {
      expect(c.runs!.map((r) => r.seed)).toEqual([3, 4, 5]);
      expect(c.runs![0]!.totals).toEqual(c.totals); // the details are the scenario seed's run
    }
    expect(report.standings!.map((s) => s.name)).toEqual(report.ranking);
    const other = JSON.parse((await inProcess(['simulate', SCENARIO, '--json', '--seeds', '2', '--seed', '10'])).out) as SimulationReport;
    expect(other.scenario.seeds).toEqual([10, 11]);
    expect(JSON.parse((await inProcess(['simulate', SCENARIO, '--json'])).out).scenario.seeds).toBeUndefined();
  });

  it('--seeds in the table: each score with its range over the seeds, and which configurations are a tie', async () => {
    const { code, out } = await inProcess([
      'simulate',
      SCENARIO,
      '--seeds',
      '4',
      '--sweep',
      'slidingWindowSize=5,10',
      '--sweep',
      'waitDurationInOpenState=1s,4s',
    ]);
    expect(code).toBe(0);
    expect(out).toContain('seeds 3, 4, 5, 6');
    expect(out).toMatch(/^# +configuration +failed \+ rejected +range/m);
    expect(out).toMatch(/ranked by the means over 4 seeds of: failed \+ rejected, then failed/);
    const single = await inProcess(['simulate', SCENARIO, '--sweep', 'slidingWindowSize=5,10']);
    expect(single.out).toContain(
      'ranked on one seed (3): a difference of a few requests may be noise; --seeds 5 runs 5 seeds and says which configurations are a tie',
    );
  });

  it('--html writes the HTML report', async () => {
    const file = join(dir, 'report.html');
    const { code, out } = await inProcess(['simulate', SCENARIO, '--html', file]);
    expect(code).toBe(0);
    expect(out).toContain(`HTML report: ${file}`);
    expect(readFileSync(file, 'utf8')).toMatch(/^<!doctype html>/i);
  });

  it.each([
    [['simulate'], 'give a scenario file'],
    [['simulat', 'x.yml'], "unknown command 'simulat'"],
    [['simulate', 'x.yml', '--bogus'], "Unknown option '--bogus'"],
    [['simulate', 'x.yml', '--seed', 'x'], '--seed needs a whole number'],
    [['simulate', 'x.yml', '--seeds', '0'], "--seeds needs a whole number from 1 to 100, got '0'"],
    [['simulate', 'x.yml', '--seeds', '101'], "--seeds needs a whole number from 1 to 100, got '101'"],
    [['simulate', 'x.yml', '--seeds', '1.5'], '--seeds needs a whole number from 1 to 100'],
    [['simulate', 'x.yml', '--seeds', 'five'], '--seeds needs a whole number from 1 to 100'],
    [['simulate', 'x.yml', '--sweep', 'slidingWindowSiz=1'], "did you mean 'slidingWindowSize'"],
    [['simulate', join(dir, 'missing.yml')], 'no such file'],
    [['simulate', dir], 'a folder, not a file'],
    [['simulate', '/dev/zero'], 'cannot read /dev/zero: not a regular file (a character device)'],
  ])('refuses %j with exit code 2', async (args, message) => {
    const target = args.includes('x.yml') ? args.map((a) => (a === 'x.yml' ? SCENARIO : a)) : args;
    const { code, err, out } = await inProcess(target);
    expect(code).toBe(2);
    expect(err).toContain(message);
    expect(out).toBe('');
  });

  it('a scenario beyond what a run can hold (users: 1e9; 1e12 requests) exits 2 with the figure and the limit, before anything runs', async () => {
    const crowd = join(dir, 'crowd.yml');
    writeFileSync(crowd, 'pipelines: { bare: [] }\ntraffic:\n  phases:\n    - { duration: 1s, users: 1e9, thinkTime: 1s }\n');
    const flood = join(dir, 'flood.yml');
    writeFileSync(flood, 'pipelines: { bare: [] }\ntraffic:\n  phases:\n    - { duration: 1s, rate: 1e12 }\n');
    const users = await inProcess(['simulate', crowd]);
    expect(users).toMatchObject({ code: 2, out: '' });
    expect(users.err).toBe(
      `breakwater: ${crowd}:4:30: traffic.phases[0].users: must be a whole number >= 1 and <= 100000, got 1000000000 (each user has a request in flight from the start)`,
    );
    const requests = await inProcess(['simulate', flood]);
    expect(requests).toMatchObject({ code: 2, out: '' });
    expect(requests.err).toContain(
      `breakwater: ${flood}:4:29: traffic.phases[0].rate: the traffic sends about 1,000,000,000,000 requests up to here (rate × duration); a run takes at most 1,000,000,000`,
    );
  });

  it('a YAML alias bomb (billion laughs) exits 2 with the file, line and key, not a stack', async () => {
    const bomb = join(dir, 'bomb.yml');
    const levels = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    const rows = levels.map(
      (name, i) =>
        `      ${name}: &${name} [${
          i === 0
            ? Array(9).fill('"lol"').join(', ')
            : Array(9)
                .fill(`*${levels[i - 1]}`)
                .join(', ')
        }]`,
    );
    writeFileSync(bomb, `pipelines:\n  spring:\n    instance: pg\n    resilience4j:\n${rows.join('\n')}\ntraffic: { phases: [ { duration: 1s, rate: 1 } ] }\n`);
    const { code, out, err } = await inProcess(['simulate', bomb]);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toBe(
      `breakwater: ${bomb}:6:14: pipelines.spring.resilience4j.b[0]: YAML aliases expand past ${LIMITS.maxAliasCount} (a resource exhaustion attack, or values to write out): write the values out, or use fewer aliases`,
    );
  });

  it('--help prints the usage', async () => {
    expect(await inProcess(['--help'])).toEqual({ code: 0, out: USAGE, err: '' });
  });
});
