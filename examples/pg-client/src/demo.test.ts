import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runPackageScript } from '@breakwater/test-support';
import { parseDemoArgs, runDemo, USAGE, UsageError } from './demo.js';
import { countVsTime } from './experiments/count-vs-time.js';
import { reportCountVsTime } from './report.js';

const exampleDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Runs the demo in this process, collecting what it prints. */
async function demoOutput(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runDemo(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('the demo command line', () => {
  it('an unknown flag prints the usage and exits with code 2 (the real process, launched as package.json does)', async () => {
    const { code, stdout, stderr } = await runPackageScript(exampleDir, 'demo', ['--bogus']);
    expect(code).toBe(2);
    expect(stderr).toContain("Unknown option '--bogus'");
    expect(stderr).toContain(USAGE);
    expect(stdout).toBe('');
  }, 60_000);

  it('--help prints the usage and exits with code 0 (the real process)', async () => {
    const { code, stdout } = await runPackageScript(exampleDir, 'demo', ['--help']);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(USAGE);
  }, 60_000);

  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['extra'], "Unexpected argument 'extra'"],
    [['--seed'], "Option '--seed <value>' argument missing"],
    [['--seed', 'x'], "--seed needs a whole number, got 'x'"],
    [['--seed', '1.5'], "--seed needs a whole number, got '1.5'"],
    [['--seed', ''], "--seed needs a whole number, got ''"],
    [['--story', '--seed', '3'], '--seed does not apply'],
    [['--story', '--real-time'], 'two different demos'],
  ])('refuses %j with exit code 2 and the usage', async (args, message) => {
    expect(() => parseDemoArgs(args)).toThrow(UsageError);
    const { code, out, err } = await demoOutput(args);
    expect(code).toBe(2);
    expect(err).toContain(message);
    expect(err).toContain(USAGE);
    expect(out).toBe('');
  });

  it('reads --seed N, --seed=N and a leading -- (as pnpm passes it)', () => {
    expect(parseDemoArgs([])).toEqual({ kind: 'experiments', seed: 42 });
    expect(parseDemoArgs(['--seed', '7'])).toEqual({ kind: 'experiments', seed: 7 });
    expect(parseDemoArgs(['--seed=-3'])).toEqual({ kind: 'experiments', seed: -3 });
    expect(parseDemoArgs(['--', '--seed', '7', '--real-time'])).toEqual({ kind: 'real-time', seed: 7 });
    expect(parseDemoArgs(['--story'])).toEqual({ kind: 'story' });
    expect(parseDemoArgs(['-h'])).toEqual({ kind: 'help' });
  });
});

describe('the seed drives experiment 3 (count vs time)', () => {
  // What experiment 3 prints, without the lines that only name the seed.
  const figures = async (seed: number) =>
    reportCountVsTime(await countVsTime(seed), seed)
      .split('\n')
      .filter((line) => !line.includes(`seed ${seed}`))
      .join('\n');

  it('another seed gives other figures; the same seed gives the same ones', async () => {
    const [one, two, oneAgain] = [await figures(1), await figures(2), await figures(1)];
    expect(two).not.toBe(one);
    expect(oneAgain).toBe(one);
    const [count1] = await countVsTime(1);
    const [count2] = await countVsTime(2);
    expect(count1!.rejectedPercent).not.toBe(count2!.rejectedPercent);
  });
});

describe('the demo prints its settings and the documents’ figures', () => {
  it('each experiment prints its window, thresholds, time-out, retry, gateway and seed; each figure has the documents’ beside it and a reason where they differ', async () => {
    const { code, out } = await demoOutput(['--seed', '7']);
    expect(code).toBe(0);
    const sections = out.split(/\n(?=\d\. )/);
    expect(sections).toHaveLength(4); // the header, then the three experiments
    const [, one, two, three] = sections as [string, string, string, string];
    for (const section of [one, two, three]) {
      expect(section).toMatch(/scenario {2}examples\/scenarios\/[a-z-]+\.yml, on @breakwater\/simulator's engine/);
      expect(section).toMatch(/breaker {3}COUNT_BASED\(20 calls; minimum 100, so 20\), failure ≥ 60%, slow > 100 ms at ≥ 50%, OPEN 10 s, 5 half-open calls/);
      expect(section).toMatch(/time-out {2}600 ms/);
      expect(section).toMatch(/retry=\d/);
      expect(section).toContain('seed 7');
      expect(section).toMatch(/traffic {3}/);
    }
    expect(one).toContain('gateway   40% fail at once, 100–500 ms otherwise; seed 7 (the mean: seeds 7–106)');
    expect(one).toContain('retry=3: 3 attempts 500 ms apart, retry=1: 1 attempt');
    expect(two).toContain('time-out  600 ms, then 1000 ms');
    expect(two).toContain('gateway   slow: no errors, calls land at 550–950 ms');
    expect(three).toContain('vs TIME_BASED(10 s; minimum 100 calls)');
    expect(three).toContain('retry=1');
    expect(three).toContain('arrival times drawn at random from seed 7');
    // The documents' figures beside ours, with a numbered reason where they differ.
    expect(one).toMatch(/retry=3 .* 14( \[\d\])? .* 1\.56( \[\d\])?/);
    expect(three).toMatch(/COUNT_BASED\(20\) +\d+\.\d% +94\.9% \[1\] +\d+\.\d% +8% \[2\]/);
    expect(three).toMatch(/TIME_BASED\(10 s\) +0\.0% +6\.12% \[3\] +100\.0% +96% \[3\]/);
    for (const n of [1, 2, 3]) expect(three).toMatch(new RegExp(`\\n {3}\\[${n}\\] \\S`));
    // Where seed 7's first refused payment is not the documents' 14, the reason is given.
    const [, firstRefused, marker] = /retry=3 +\d+ +(\d+) +14( \[\d\])?/.exec(one)!;
    if (firstRefused === '14') expect(marker).toBeUndefined();
    else expect(one).toContain(`${marker!.trim()} one run of a random gateway (seed 7)`);
  });
});
