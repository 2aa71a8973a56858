import type { WindowRun } from './experiments/count-vs-time.js';
import type { RetryVsBreakerResult } from './experiments/retry-vs-breaker.js';
import type { OpenedBy } from './experiments/slow-vs-timeout.js';

/** A plain text table: a header row, a rule, the rows; columns padded to their widest cell. */
export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, c) => Math.max(...cells.map((r) => (r[c] ?? '').length)));
  const line = (r: readonly string[]) => r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd();
  return [line(cells[0]!), widths.map((w) => '─'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

const pct = (n: number) => `${n.toFixed(1)}%`;

export function reportRetryVsBreaker(r: RetryVsBreakerResult): string {
  const rows = r.openings.map((o) => [
    `retry=${o.maxAttempts}`,
    o.openedDuringPayment,
    o.firstRefusedPayment,
    r.meanFirstRefused[o.maxAttempts]!.toFixed(1),
    o.maxAttempts === 3 ? 14 : 21,
    r.breakerCallsPerPayment[o.maxAttempts]!.toFixed(2),
    o.maxAttempts === 3 ? '1.56' : '1',
  ]);
  return [
    '1. Each retry attempt is its own breaker call (Retry → CircuitBreaker(COUNT_BASED 20) → TimeLimiter 600 ms;',
    '   gateway: 40% immediate errors, 100–500 ms otherwise)',
    '',
    table(['', 'opened in payment', 'first refused payment', 'mean of 100 seeds', 'documents', 'breaker calls / payment', 'documents'], rows),
  ].join('\n');
}

export function reportSlowVsTimeout(runs: readonly OpenedBy[]): string {
  const rows = runs.map((o) => [
    `time-out ${o.timeoutMs} ms`,
    o.openedBy.join(' + ') || '(did not open)',
    pct(o.failureRate),
    pct(o.slowCallRate),
    o.timeouts,
    o.timeoutMs === 600 ? 'failure rate' : 'slow-call rate',
  ]);
  return [
    '2. A time-out is a failure, not a slow call (gateway slow: 150–300 ms, no errors, plus 400–650 ms of load on the client;',
    '   slow threshold 100 ms at 50%, failure threshold 60%)',
    '',
    table(['', 'opened by', 'failure rate', 'slow-call rate', 'time-outs', 'documents'], rows),
  ].join('\n');
}

export function reportCountVsTime(runs: readonly WindowRun[]): string {
  const docs: Record<string, [string, string]> = { 'COUNT_BASED(20)': ['94.9%', '8%'], 'TIME_BASED(10 s)': ['6.12%', '96%'] };
  const rows = runs.map((w) => [
    w.window,
    pct(w.rejectedPercent),
    docs[w.window]![0],
    pct(w.letThroughAfterPausePercent),
    docs[w.window]![1],
    pct(w.succeededAfterPausePercent),
    w.stateAfterPause,
  ]);
  return [
    '3. COUNT_BASED vs TIME_BASED after a pause (15 rps for 5 s while the gateway hangs, 15 s of silence,',
    '   then 5 rps for 30 s with the gateway back but slow; one attempt per payment)',
    '',
    table(['window', 'rejected', 'documents', 'let through after the pause', 'documents', 'succeeded after', 'state at resume'], rows),
  ].join('\n');
}
