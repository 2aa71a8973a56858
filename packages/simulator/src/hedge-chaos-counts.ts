// What a hedge and a chaos layer did, in words: one source for the terminal table and the HTML
// report. A configuration without a hedge (or without chaos) has none of these counts: nothing is said.
import type { Counts } from './report.js';

/** A count as the tables write it: whole when it is, else with one decimal (a mean over seeds). */
const n = (v: number): string => (Number.isInteger(v) ? v.toLocaleString('en-US') : v.toLocaleString('en-US', { maximumFractionDigits: 1 }));

/** The extra load of a hedge: `8.1 % more calls (4 852 hedged attempts for 59 777 calls)`. */
export function hedgeLoadText(c: Counts): string | undefined {
  if (c.hedgeCalls === undefined || c.hedgedAttempts === undefined) return undefined;
  const share = ((c.hedgedAttemptsPerCall ?? 0) * 100).toFixed(1);
  return `${share} % more calls (${n(c.hedgedAttempts)} hedged attempts for ${n(c.hedgeCalls)} calls)`;
}

/** Who answered the hedge's calls: `primary 55 000, hedge 1 4 700, hedge 2 77`. */
export function hedgeWinsText(c: Counts): string | undefined {
  if (c.hedgeWins === undefined) return undefined;
  return c.hedgeWins.map((w, i) => `${i === 0 ? 'primary' : `hedge ${i}`} ${n(w)}`).join(', ');
}

/** What the chaos layers injected: `769 faults, 314 latencies, 0 outcomes in 31 325 calls through chaos layers`. */
export function chaosText(c: Counts): string | undefined {
  if (c.chaosCalls === undefined) return undefined;
  const injected = `${n(c.injectedFaults ?? 0)} faults, ${n(c.injectedLatencies ?? 0)} latencies, ${n(c.injectedOutcomes ?? 0)} outcomes`;
  return `${injected} injected in ${n(c.chaosCalls)} calls through chaos layers`;
}

/**
 * The lines the terminal table adds under a configuration with a hedge or chaos: the totals, and
 * the hedge's extra load per phase when there are several.
 */
export function hedgeChaosLines(totals: Counts, phases: readonly (Counts & { readonly name: string })[]): string[] {
  const lines: string[] = [];
  const load = hedgeLoadText(totals);
  if (load !== undefined) {
    lines.push(`   hedge: ${load}; calls answered by ${hedgeWinsText(totals)}`);
    if (phases.length > 1) {
      const per = phases.filter((p) => (p.hedgeCalls ?? 0) > 0).map((p) => `${p.name} ${((p.hedgedAttemptsPerCall ?? 0) * 100).toFixed(1)} %`);
      lines.push(`   hedge, more calls per phase: ${per.join(', ')}`);
    }
  }
  const chaos = chaosText(totals);
  if (chaos !== undefined) lines.push(`   chaos: ${chaos}`);
  return lines;
}
