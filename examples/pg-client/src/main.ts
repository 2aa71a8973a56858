import { runDemo } from './demo.js';

// `pnpm demo | head` closes the pipe early: stop quietly instead of crashing with EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(0);
});

// `pnpm demo`: the command line is read in demo.ts (an unknown flag prints the usage and exits 2).
process.exitCode = await runDemo(process.argv.slice(2));
