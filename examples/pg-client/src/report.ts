import type { CircuitBreakerConfig } from '@breakwater/circuit-breaker';
import { parseDuration } from '@breakwater/core';
import { DOCUMENTS_BREAKER, DOCUMENTS_CLIENT } from './client.js';
import type { WindowRun } from './experiments/count-vs-time.js';
import type { RetryVsBreakerResult } from './experiments/retry-vs-breaker.js';
import type { OpenedBy } from './experiments/slow-vs-timeout.js';
import type { Phase } from '@breakwater/simulator';
import { describeLatency, experimentPhases, type ExperimentName } from './scenarios.js';

/** A plain text table: a header row, a rule, the rows; columns padded to their widest cell. */
export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, c) => Math.max(...cells.map((r) => (r[c] ?? '').length)));
  const line = (r: readonly string[]) =>
    r
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join('  ')
      .trimEnd();
  return [line(cells[0]!), widths.map((w) => '─'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

const pct = (n: number) => `${n.toFixed(1)}%`;
const INDENT = '   ';
const seconds = (ms: number) => `${ms / 1000} s`;
/** The line that says where an experiment's scenario is (the simulator runs it whole). */
const scenarioLine = (name: ExperimentName) =>
  `${INDENT}scenario  examples/scenarios/${name}.yml, on @breakwater/simulator's engine (pnpm simulate runs it whole)`;

/**
 * The notes under one table: a figure of ours that differs from the documents' gets a marker
 * next to the documents' figure, and the marker a one-line reason (one note per distinct reason).
 */
class Notes {
  readonly #reasons: string[] = [];

  /** The documents' figure, marked with a note when `ours` differs from it. */
  docs(ours: string, documents: string, reason: string): string {
    const same = Number.isNaN(parseFloat(ours)) ? ours === documents : parseFloat(ours) === parseFloat(documents);
    if (same) return documents;
    let n = this.#reasons.indexOf(reason);
    if (n < 0) n = this.#reasons.push(reason) - 1;
    return `${documents} [${n + 1}]`;
  }

  /** The notes, one line each (none when every figure matched). */
  lines(): string[] {
    return this.#reasons.map((r, i) => `${INDENT}[${i + 1}] ${r}`);
  }
}

/** The breaker's settings in one line, defaults included (minimumNumberOfCalls is left at 100). */
export function describeBreaker(override: CircuitBreakerConfig = {}): string {
  const c = { ...DOCUMENTS_BREAKER, ...override };
  const ms = (d: unknown) => `${parseDuration(d)! >= 1000 ? `${parseDuration(d)! / 1000} s` : `${parseDuration(d)} ms`}`;
  const minimum = c.minimumNumberOfCalls ?? 100;
  const window =
    c.slidingWindowType === 'TIME_BASED'
      ? `TIME_BASED(${c.slidingWindowSize} s; minimum ${minimum} calls)`
      : `COUNT_BASED(${c.slidingWindowSize} calls; minimum ${minimum}, so ${Math.min(minimum, c.slidingWindowSize ?? 100)})`;
  return `${window}, failure ≥ ${c.failureRateThreshold}%, slow > ${ms(c.slowCallDurationThreshold)} at ≥ ${c.slowCallRateThreshold}%, OPEN ${ms(c.waitDurationInOpenState)}, ${c.permittedNumberOfCallsInHalfOpenState} half-open calls`;
}

/** The lines above the experiments: how to read their tables. */
export function reportLegend(seed: number): string {
  return [
    `Each experiment prints its settings (the documents' unless it says otherwise; the random gateway is seeded by ${seed},`,
    "--seed N to change it), then our figures, each followed by the documents'; [n] is the reason they differ.",
  ].join('\n');
}

export function reportRetryVsBreaker(r: RetryVsBreakerResult): string {
  const { backend } = experimentPhases('retry-vs-breaker')[0]!;
  const notes = new Notes();
  const oneRun = `one run of a random gateway (seed ${r.seed}), as theirs was one run: compare the mean of ${r.seeds} seeds`;
  const sample = `measured over ${r.callsPerPaymentSample} payments; the documents' 1.56 is the expectation 1×0.6 + 2×0.24 + 3×0.16`;
  const rows = r.openings.map((o) => {
    const firstRefused = String(o.firstRefusedPayment);
    const calls = r.breakerCallsPerPayment[o.maxAttempts]!.toFixed(2);
    const docsCalls = o.maxAttempts === 3 ? '1.56' : '1';
    return [
      `retry=${o.maxAttempts}`,
      o.openedDuringPayment,
      firstRefused,
      notes.docs(firstRefused, o.maxAttempts === 3 ? '14' : '21', oneRun),
      r.meanFirstRefused[o.maxAttempts]!.toFixed(1),
      calls,
      notes.docs(calls, docsCalls, sample),
    ];
  });
  const seeds = `seeds ${r.seed}–${r.seed + r.seeds - 1}`;
  return [
    '1. Each retry attempt is its own breaker call',
    `${INDENT}breaker   ${describeBreaker()}`,
    `${INDENT}time-out  ${DOCUMENTS_CLIENT.timeout} ms; retry=3: 3 attempts ${DOCUMENTS_CLIENT.waitDuration} ms apart, retry=1: 1 attempt`,
    `${INDENT}gateway   ${100 * backend.errorRatio}% fail at once, ${describeLatency(backend.latency)} otherwise; seed ${r.seed} (the mean: ${seeds})`,
    `${INDENT}traffic   one payment at a time until the breaker refuses one; calls per payment over ${r.callsPerPaymentSample} payments (breaker in METRICS_ONLY)`,
    scenarioLine('retry-vs-breaker'),
    '',
    table(['', 'opened in payment', 'first refused payment', 'documents', `mean of ${r.seeds} seeds`, 'breaker calls / payment', 'documents'], rows),
    `${INDENT}We read the documents' "opened at payment 14" as the first payment refused (it opens during that payment or the one before).`,
    ...notes.lines(),
  ].join('\n');
}

export function reportSlowVsTimeout(runs: readonly OpenedBy[], seed: number): string {
  const { backend } = experimentPhases('slow-vs-timeout')[0]!;
  const notes = new Notes();
  const rows = runs.map((o) => {
    const by = o.openedBy.join(' + ') || '(did not open)';
    const documents = o.timeoutMs === 600 ? 'failure rate' : 'slow-call rate';
    return [
      `time-out ${o.timeoutMs} ms`,
      by,
      notes.docs(by, documents, `with seed ${seed} our calls fell otherwise around the time-out; the documents' overhead is not given (ours is a model)`),
      pct(o.failureRate),
      pct(o.slowCallRate),
      o.timeouts,
      o.payments,
    ];
  });
  const body = [
    '2. A time-out is a failure, not a slow call',
    `${INDENT}breaker   ${describeBreaker()}`,
    `${INDENT}time-out  ${runs.map((o) => `${o.timeoutMs} ms`).join(', then ')}; retry=3: 3 attempts ${DOCUMENTS_CLIENT.waitDuration} ms apart`,
    `${INDENT}gateway   slow: no errors, calls land at ${describeLatency(backend.latency)} (a 150–300 ms gateway plus the queueing of a client under load); seed ${seed}`,
    `${INDENT}traffic   one payment at a time until the breaker opens`,
    scenarioLine('slow-vs-timeout'),
    '',
    table(['', 'opened by', 'documents', 'failure rate', 'slow-call rate', 'time-outs', 'payments'], rows),
    `${INDENT}The documents give only which rate opened the breaker (no rates nor counts), and a "slow gateway plus overhead"`,
    `${INDENT}without a figure for the overhead: ${describeLatency(backend.latency)} in all is our model of it.`,
    ...notes.lines(),
  ];
  return body.join('\n');
}

export function reportCountVsTime(runs: readonly WindowRun[], seed: number): string {
  const [burst, pause, resume] = experimentPhases('count-vs-time') as [Phase, Phase, Phase];
  const notes = new Notes();
  const scenario = `the documents give neither their gateway's behaviour per phase nor how long the ${resume.rate} rps lasted: ours is a scenario, not their run`;
  const trials = `OPEN 10 s, then 5 half-open trials, all slow, so OPEN again: 5 of every ~50 calls at ${resume.rate} rps, whatever the seed`;
  const minimum = `with the default minimum of 100 calls, 10 s of this load (about ${burst.rate * (burst.durationMs / 1000)} calls) never opens it; the documents' minimum is not given`;
  const docs: Record<string, { rejected: [string, string]; through: [string, string] }> = {
    'COUNT_BASED(20)': { rejected: ['94.9%', scenario], through: ['8%', trials] },
    'TIME_BASED(10 s)': { rejected: ['6.12%', minimum], through: ['96%', minimum] },
  };
  const rows = runs.map((w) => {
    const d = docs[w.window]!;
    const rejected = pct(w.rejectedPercent);
    const through = pct(w.letThroughAfterPausePercent);
    return [
      w.window,
      rejected,
      notes.docs(rejected, d.rejected[0], d.rejected[1]),
      through,
      notes.docs(through, d.through[0], d.through[1]),
      pct(w.succeededAfterPausePercent),
      w.stateAfterPause,
    ];
  });
  return [
    '3. COUNT_BASED vs TIME_BASED after a pause',
    `${INDENT}breaker   ${describeBreaker()}`,
    `${INDENT}          vs ${describeBreaker({ slidingWindowType: 'TIME_BASED', slidingWindowSize: 10 })}`,
    `${INDENT}time-out  ${DOCUMENTS_CLIENT.timeout} ms; retry=1 (one attempt per payment, so both windows see the same calls)`,
    `${INDENT}gateway   hangs during the burst (every call times out); back during the pause but slow: no errors, ${describeLatency(pause.backend.latency)}; seed ${seed}`,
    `${INDENT}traffic   ${burst.rate} rps for ${seconds(burst.durationMs)}, ${seconds(pause.durationMs)} of silence, ${resume.rate} rps for ${seconds(resume.durationMs)} (${runs[0]?.payments ?? 0} payments);`,
    `${INDENT}          arrival times drawn at random from seed ${seed} (Poisson; the documents' k6 load is not given)`,
    scenarioLine('count-vs-time'),
    '',
    table(['window', 'rejected', 'documents', 'let through after the pause', 'documents', 'succeeded after', 'state at resume'], rows),
    ...notes.lines(),
  ].join('\n');
}
