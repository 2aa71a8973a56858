import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { renderHtml } from './html/index.js';
import { parseScenarioFile } from './parse-scenario.js';
import { renderTable } from './render-table.js';
import type { Scenario } from './scenario.js';
import { MAX_SEEDS, simulate } from './simulate.js';
import { applySweep, parseSweep, SweepError } from './sweep.js';
import { ScenarioError } from './yaml-source.js';
import { formatMs } from './format.js';
import { SimulationLimitError } from './limits.js';
import { FileReadError } from './read-file.js';

/** The usage text of `breakwater`. */
export const USAGE = `breakwater simulate <scenario.yml> [options]

  Runs the scenario's pipelines against its traffic on a virtual clock and prints a table.

  --json               print the report as JSON instead of the table
  --html <file>        also write a self-contained HTML report (charts inline, no network)
  --sweep key=v1,v2    run every combination of the values (repeatable), ranked side by side:
                       --sweep slidingWindowSize=10,20,50 --sweep waitDurationInOpenState=5s,30s
                       (a layer's option; circuitBreaker.key=… to name the layer)
  --seed <n>           another seed than the scenario's (a whole number)
  --seeds <n>          run each configuration with n seeds (the scenario's and the next ones,
                       1 to 100): the report shows means and ranges, and which are a tie
  -h, --help           this text

Exit codes: 0 done, 2 bad command line or scenario (the message names the file, line and key),
1 anything else.`;

/** Where the command writes (the process's streams by default; a test collects them). */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** A progress line (stderr, rewritten in place on a terminal). */
  readonly progress?: (line: string) => void;
}

class UsageError extends Error {}

function readArgs(argv: readonly string[]) {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        html: { type: 'string' },
        sweep: { type: 'string', multiple: true },
        seed: { type: 'string' },
        seeds: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true as const };
  const [command, file, ...rest] = positionals;
  if (command !== 'simulate')
    throw new UsageError(command === undefined ? 'give a command: simulate' : `unknown command '${command}' (the command is simulate)`);
  if (file === undefined) throw new UsageError('give a scenario file: breakwater simulate <scenario.yml>');
  if (rest.length > 0) throw new UsageError(`one scenario at a time, got also '${rest.join(' ')}'`);
  let seed: number | undefined;
  if (values.seed !== undefined) {
    seed = Number(values.seed);
    if (!/^\d+$/.test(values.seed) || seed > 2 ** 32 - 1) throw new UsageError(`--seed needs a whole number from 0 to 4294967295, got '${values.seed}'`);
  }
  let seeds = 1;
  if (values.seeds !== undefined) {
    seeds = Number(values.seeds);
    if (!/^\d+$/.test(values.seeds) || seeds < 1 || seeds > MAX_SEEDS)
      throw new UsageError(`--seeds needs a whole number from 1 to ${MAX_SEEDS}, got '${values.seeds}'`);
  }
  if (values.html === '') throw new UsageError('--html needs a file name');
  return { help: false as const, file, json: values.json === true, html: values.html, sweeps: values.sweep ?? [], seed, seeds };
}

function progressReporter(io: CliIo): ((i: number, of: number, ms: number, total: number) => void) | undefined {
  const write = io.progress;
  if (write === undefined) return undefined;
  const started = performance.now();
  let last = 0;
  return (i, of, ms, total) => {
    const now = performance.now();
    if (now - started < 1000 || now - last < 250) return; // only on long runs, a few times a second
    last = now;
    write(`simulating configuration ${i + 1}/${of}: ${formatMs(ms)} of ${formatMs(total)} simulated`);
  };
}

/**
 * Runs the `breakwater` command line; resolves to the exit code (0 done, 2 bad input, 1 other errors).
 *
 * @example
 * ```ts
 * const code = await run(['simulate', 'examples/scenarios/count-vs-time.yml', '--json'], { out: console.log, err: console.error });
 * ```
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  let args;
  let scenario: Scenario;
  try {
    args = readArgs(argv);
    if (args.help) {
      io.out(USAGE);
      return 0;
    }
    scenario = parseScenarioFile(args.file);
    if (args.seed !== undefined) scenario = { ...scenario, seed: args.seed };
    scenario = applySweep(scenario, args.sweeps.map(parseSweep));
  } catch (error) {
    if (error instanceof UsageError || error instanceof SweepError) {
      io.err(`breakwater: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof ScenarioError) {
      io.err(`breakwater: ${error.message}`);
      return 2;
    }
    if (error instanceof FileReadError) {
      io.err(`breakwater: ${error.message}`);
      return 2;
    }
    throw error;
  }
  const progress = progressReporter(io);
  let report;
  try {
    report = simulate(scenario, { seeds: args.seeds, ...(progress === undefined ? {} : { progress }) });
  } catch (error) {
    if (!(error instanceof SimulationLimitError)) throw error;
    io.progress?.('');
    io.err(`breakwater: ${scenario.file ?? args.file}: ${error.message}`);
    return 2;
  }
  io.progress?.('');
  if (args.html !== undefined) writeFileSync(args.html, renderHtml(report));
  io.out(args.json ? JSON.stringify(report, null, 2) : renderTable(report));
  if (args.html !== undefined && !args.json) io.out(`\nHTML report: ${args.html}`);
  return 0;
}

/** The `breakwater` command (bin/breakwater.mjs): runs {@link run} on the process's streams and sets the exit code. */
export async function main(argv: readonly string[]): Promise<void> {
  const tty = process.stderr.isTTY === true;
  let lastLine = 0;
  const io: CliIo = {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    progress: (line) => {
      if (tty) process.stderr.write(line === '' ? '\r\x1b[K' : `\r\x1b[K${line}`);
      else if (line !== '' && performance.now() - lastLine > 5000) {
        lastLine = performance.now(); // not a terminal (a log): a line every 5 s at most
        process.stderr.write(`${line}\n`);
      }
    },
  };
  try {
    process.exitCode = await run(argv, io);
  } catch (error) {
    process.stderr.write(`breakwater: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  }
}
