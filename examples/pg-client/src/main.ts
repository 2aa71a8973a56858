import { breakerStory } from './breaker-story.js';
import { countVsTime } from './experiments/count-vs-time.js';
import { retryVsBreaker } from './experiments/retry-vs-breaker.js';
import { slowVsTimeout } from './experiments/slow-vs-timeout.js';
import { realTimeRetryVsBreaker } from './real-time.js';
import { reportCountVsTime, reportRetryVsBreaker, reportSlowVsTimeout } from './report.js';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const seedAt = args.indexOf('--seed');
const seed = seedAt >= 0 ? Number(args[seedAt + 1]) : 42;
if (!Number.isInteger(seed)) {
  console.error(`--seed needs a whole number, got ${args[seedAt + 1]}`);
  process.exit(2);
}
if (flag('--help')) {
  console.log('pnpm demo [--seed N] [--real-time] [--story]\n  --seed N     a repeatable random gateway (default 42)\n  --real-time  experiment 1 on the real clock, with a progress line\n  --story      a circuit breaker opening and closing on the real clock');
  process.exit(0);
}

if (flag('--story')) {
  await breakerStory();
} else if (flag('--real-time')) {
  await realTimeRetryVsBreaker(seed);
} else {
  const started = performance.now();
  console.log(`Breakwater — the payment-gateway experiments of the documents, on a VirtualClock (seed ${seed})\n`);
  console.log(reportRetryVsBreaker(await retryVsBreaker(seed)));
  console.log();
  console.log(reportSlowVsTimeout(await slowVsTimeout(seed)));
  console.log();
  console.log(reportCountVsTime(await countVsTime(seed)));
  console.log(`\nminutes of simulated traffic in ${Math.round(performance.now() - started)} ms of real time.`);
  console.log('Also: pnpm demo --real-time (experiment 1 on the real clock), --story, --seed N.');
}
