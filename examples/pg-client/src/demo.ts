import { parseArgs } from 'node:util';

export const USAGE = `pnpm demo [--seed N] [--real-time | --story | --serve [port]]

  (no flag)    the documents' three experiments on a VirtualClock, each with its settings and the
               documents' figures beside ours (about 1.3 s on an idle machine, 0.4 s of it starting
               Node and tsx; it prints how long the simulation took)
  --seed N     another repeatable random gateway (default 42): it draws the gateway's errors and
               latencies in experiments 1 and 2 and the payments' arrival times in experiment 3
  --real-time  experiment 1 on the real clock, with a progress line (about 13 s)
  --story      a circuit breaker opening and closing on the real clock (about 2 s; no randomness,
               so it takes no --seed)
  --serve [port]
               experiment 1 (retry=3) on the real clock without end, with /metrics (Prometheus)
               and /health (JSON) served on 127.0.0.1 (port 0, the default, picks a free one;
               it prints the URL); Ctrl-C stops it
  -h, --help   this text

An unknown flag prints this text and exits with code 2.`;

export type DemoCommand =
  | { readonly kind: 'experiments' | 'real-time'; readonly seed: number }
  | { readonly kind: 'story' }
  | { readonly kind: 'serve'; readonly seed: number; readonly port: number }
  | { readonly kind: 'help' };

/** Thrown for a command line the demo does not understand; `main` prints it with the usage and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The demo's command line (without node and the script), strictly: an unknown flag is an error. */
export function parseDemoArgs(argv: readonly string[]): DemoCommand {
  // `pnpm demo -- --seed 7` hands the script a leading `--`, as npm would not: take it as nothing.
  const args = argv[0] === '--' ? argv.slice(1) : [...argv];
  let values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        seed: { type: 'string' },
        'real-time': { type: 'boolean' },
        story: { type: 'boolean' },
        serve: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return { kind: 'help' };
  if (positionals.length > 0 && !values.serve) throw new UsageError(`Unexpected argument '${positionals[0]}'`);
  if (positionals.length > 1) throw new UsageError(`--serve takes one port, got '${positionals.join(' ')}'`);
  if (values.serve && (values.story || values['real-time'])) {
    throw new UsageError(`--serve and --${values.story ? 'story' : 'real-time'} are two different demos: give one of them`);
  }
  if (values.story && values['real-time']) throw new UsageError('--story and --real-time are two different demos: give one of them');
  if (values.story && values.seed !== undefined) {
    throw new UsageError('--story has no random gateway (a scripted backend on the real clock): --seed does not apply to it');
  }
  let seed = 42;
  if (values.seed !== undefined) {
    seed = Number(values.seed);
    if (!/^-?\d+$/.test(values.seed) || !Number.isSafeInteger(seed)) throw new UsageError(`--seed needs a whole number, got '${values.seed}'`);
  }
  if (values.story) return { kind: 'story' };
  if (values.serve) {
    const given = positionals[0];
    const port = given === undefined ? 0 : Number(given);
    if (given !== undefined && (!/^\d+$/.test(given) || port > 65535)) throw new UsageError(`--serve needs a port from 0 to 65535, got '${given}'`);
    return { kind: 'serve', seed, port };
  }
  return { kind: values['real-time'] ? 'real-time' : 'experiments', seed };
}

export interface DemoOutput {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

const consoleOutput: DemoOutput = { out: (t) => console.log(t), err: (t) => console.error(t) };

/** The three experiments on a VirtualClock, their settings, and the documents' figures beside ours. */
export async function runExperiments(seed: number, out: (text: string) => void = consoleOutput.out): Promise<void> {
  const [{ retryVsBreaker }, { slowVsTimeout }, { countVsTime }, report] = await Promise.all([
    import('./experiments/retry-vs-breaker.js'),
    import('./experiments/slow-vs-timeout.js'),
    import('./experiments/count-vs-time.js'),
    import('./report.js'),
  ]);
  const started = performance.now();
  out(`Breakwater — the payment-gateway experiments of the documents, on a VirtualClock (seed ${seed})\n`);
  out(report.reportLegend(seed));
  out('');
  out(report.reportRetryVsBreaker(await retryVsBreaker(seed)));
  out('');
  out(report.reportSlowVsTimeout(await slowVsTimeout(seed), seed));
  out('');
  out(report.reportCountVsTime(await countVsTime(seed), seed));
  out(`\nminutes of simulated traffic in ${Math.round(performance.now() - started)} ms of real time.`);
  out(
    'Also: pnpm demo --seed N (another random gateway), --real-time (experiment 1 on the real clock), --story, --serve [port] (/metrics and /health), --help.',
  );
}

/** Runs the demo for a command line; resolves to the process's exit code (2 for a bad command line). */
export async function runDemo(argv: readonly string[], io: DemoOutput = consoleOutput): Promise<number> {
  let command: DemoCommand;
  try {
    command = parseDemoArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`pnpm demo: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  switch (command.kind) {
    case 'help':
      io.out(USAGE);
      return 0;
    case 'story': {
      const { breakerStory } = await import('./breaker-story.js');
      await breakerStory(io.out);
      return 0;
    }
    case 'real-time': {
      const { realTimeRetryVsBreaker } = await import('./real-time.js');
      await realTimeRetryVsBreaker(command.seed);
      return 0;
    }
    case 'serve': {
      const { serveUntilSignal } = await import('./serve.js');
      await serveUntilSignal(command.port, command.seed, io.out);
      return 0;
    }
    case 'experiments':
      await runExperiments(command.seed, io.out);
      return 0;
  }
}
