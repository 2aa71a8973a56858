import { formatRedisMarkdown, formatRedisText } from './redis-report.js';
import type { CaseResult, MemoryResult, Results, RowResult, Target, Verdict } from './results.js';
import { formatSimulatorMarkdown, formatSimulatorText } from './simulator.js';
import { formatAdaptiveScenarioMarkdown, formatAdaptiveScenarioText } from './adaptive-scenario.js';

/** `target` with the reason it is missed, shown with a missed verdict. */
export function explained(target: Target, note: string): Target {
  return {
    description: target.description,
    judge(results) {
      const verdict = target.judge(results);
      return verdict.pass ? verdict : { ...verdict, note };
    },
  };
}

function row(results: Results, id: string): RowResult {
  const found = results.rows.find((r) => r.id === id);
  if (found === undefined) throw new Error(`no row '${id}' in the results`);
  return found;
}

/** The fastest peer of a row (informational peers included: the best a user can configure). */
export function bestPeer(r: RowResult): CaseResult | undefined {
  let best: CaseResult | undefined;
  for (const c of r.cases) if (c.side === 'peer' && (best === undefined || c.ns < best.ns)) best = c;
  return best;
}

/** The Breakwater cases a row's target judges (the informational ones are shown, not judged). */
export function judgedBreakwater(r: RowResult): CaseResult[] {
  return r.cases.filter((c) => c.side === 'breakwater' && c.informational !== true);
}

/** ns over the row's floor (never below 0: a figure under the floor is noise, and costs nothing). */
export function overhead(r: RowResult, c: CaseResult): number {
  return Math.max(0, c.ns - r.floor.ns);
}

const ns = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

/**
 * Breakwater's overhead over the floor is at most `factor` × the best peer's, for every judged
 * Breakwater case of the row (`factor` 1: "≤ the best peer's"; 0.5: "≤ half the best peer's").
 */
export function overheadAtMost(id: string, factor: number): Target {
  const description = factor === 1 ? `row ${id}: Breakwater's overhead ≤ the best peer's` : `row ${id}: Breakwater's overhead ≤ ${factor} × the best peer's`;
  return {
    description,
    judge(results) {
      const r = row(results, id);
      const peer = bestPeer(r);
      if (peer === undefined) return { target: description, pass: false, detail: 'no peer measured' };
      const allowed = factor * overhead(r, peer);
      const parts: string[] = [];
      let pass = true;
      for (const c of judgedBreakwater(r)) {
        const o = overhead(r, c);
        pass &&= o <= allowed;
        parts.push(`${c.name}: +${ns(o)} ns`);
      }
      if (parts.length === 0) return { target: description, pass: false, detail: 'no Breakwater case measured' };
      return { target: description, pass, detail: `${parts.join(', ')}; ${peer.name}: +${ns(overhead(r, peer))} ns (allowed ≤ ${ns(allowed)} ns)` };
    },
  };
}

/**
 * A Breakwater case's overhead over the row's floor is at most `factor` × another case's of the
 * same row (its reference: a policy of ours doing part of the same work), both timed in the same
 * rounds, interleaved. For policies no other library has, where no peer can be the yardstick.
 */
export function overheadWithinFactorOf(id: string, name: string, baseName: string, factor: number): Target {
  const description = `row ${id}: ${name}'s overhead ≤ ${factor} × ${baseName}'s`;
  return {
    description,
    judge(results) {
      const r = row(results, id);
      const a = r.cases.find((c) => c.name === name);
      const b = r.cases.find((c) => c.name === baseName);
      if (a === undefined || b === undefined) return { target: description, pass: false, detail: 'case not measured' };
      const allowed = factor * overhead(r, b);
      return {
        target: description,
        pass: overhead(r, a) <= allowed,
        detail: `+${ns(overhead(r, a))} ns against +${ns(overhead(r, b))} ns (allowed ≤ ${ns(allowed)} ns)`,
      };
    },
  };
}

/**
 * Case `name`'s own cost — its overhead less the cost of what it must do on this machine
 * (`excluded`, as {@link ownCostAtMost}) — is at most `baseName`'s overhead (a policy of ours doing
 * less of the same work, timed in the same rounds) plus `plusNs`; the whole overhead shown beside it.
 */
export function overheadWithinNsOf(id: string, name: string, baseName: string, plusNs: number, excluded: Excluded): Target {
  const description = `row ${id}: ${name}'s overhead less ${excluded.what} ≤ ${baseName}'s + ${plusNs} ns`;
  return {
    description,
    judge(results) {
      const r = row(results, id);
      const a = r.cases.find((c) => c.name === name);
      const b = r.cases.find((c) => c.name === baseName);
      const cost = excludedCost(r, excluded);
      if (a === undefined || b === undefined || cost === undefined) return { target: description, pass: false, detail: 'case not measured' };
      const own = overhead(r, a) - cost;
      const allowed = overhead(r, b) + plusNs;
      return {
        target: description,
        pass: own <= allowed,
        detail: `+${ns(own)} ns (+${ns(overhead(r, a))} ns in all; ${excluded.what} +${ns(cost)} ns) against +${ns(overhead(r, b))} ns (allowed ≤ ${ns(allowed)} ns)`,
      };
    },
  };
}

/** Every judged Breakwater case of row `id` costs at most `maxNs` over the row's floor. */
export function overheadBelowNs(id: string, maxNs: number): Target {
  const description = `row ${id}: Breakwater's overhead ≤ ${maxNs} ns`;
  return {
    description,
    judge(results) {
      const r = row(results, id);
      const judged = judgedBreakwater(r);
      if (judged.length === 0) return { target: description, pass: false, detail: 'no Breakwater case measured' };
      const parts = judged.map((c) => `${c.name}: +${ns(overhead(r, c))} ns`);
      return { target: description, pass: judged.every((c) => overhead(r, c) <= maxNs), detail: `${parts.join(', ')} (allowed ≤ ${maxNs} ns)` };
    },
  };
}

/** What a target takes out of a policy's overhead before judging it: the cost of `what`, measured as `withIt` − `withoutIt` in the same rounds. */
export interface Excluded {
  readonly what: string;
  readonly withIt: string;
  /** A reference case, or `'floor'` (the cost is then `withIt`'s whole overhead). */
  readonly withoutIt: string;
}

/** The cost of `excluded` in row `r` (`withIt`'s overhead less `withoutIt`'s, never below 0); `undefined` when a case of it was not measured. */
function excludedCost(r: RowResult, excluded: Excluded): number | undefined {
  const withIt = r.cases.find((c) => c.name === excluded.withIt);
  const without = excluded.withoutIt === 'floor' ? undefined : r.cases.find((c) => c.name === excluded.withoutIt);
  if (withIt === undefined || (excluded.withoutIt !== 'floor' && without === undefined)) return undefined;
  return Math.max(0, overhead(r, withIt) - (without === undefined ? 0 : overhead(r, without)));
}

/**
 * Case `name`'s own cost — its overhead less the cost of what every implementation of it must
 * do on this machine (`excluded`: reading the clock, seeing the outcome), measured in the same
 * rounds — is at most `factor` × the overhead of `base` (a case name, or the row's best peer).
 * The verdict shows the whole overhead too, so the literal comparison is never hidden.
 */
export function ownCostAtMost(id: string, name: string | 'judged Breakwater cases', base: string | 'best peer', factor: number, excluded: Excluded): Target {
  const description = `row ${id}: ${name === 'judged Breakwater cases' ? "Breakwater's" : `${name}'s`} overhead less ${excluded.what} ≤ ${factor === 1 ? '' : `${factor} × `}${base === 'best peer' ? "the best peer's" : `${base}'s`}`;
  return {
    description,
    judge(results) {
      const r = row(results, id);
      const find = (n: string) => r.cases.find((c) => c.name === n);
      const baseCase = base === 'best peer' ? bestPeer(r) : find(base);
      const cost = excludedCost(r, excluded);
      const judged = name === 'judged Breakwater cases' ? judgedBreakwater(r) : [find(name)].filter((c) => c !== undefined);
      if (baseCase === undefined || cost === undefined || judged.length === 0) return { target: description, pass: false, detail: 'case not measured' };
      const allowed = factor * overhead(r, baseCase);
      let pass = true;
      const parts = judged.map((c) => {
        const own = overhead(r, c) - cost;
        pass &&= own <= allowed;
        return `${c.name}: +${ns(own)} ns (+${ns(overhead(r, c))} ns in all)`;
      });
      return {
        target: description,
        pass,
        detail: `${parts.join(', ')}; ${excluded.what} +${ns(cost)} ns; ${baseCase.name}: +${ns(overhead(r, baseCase))} ns (allowed ≤ ${ns(allowed)} ns)`,
      };
    },
  };
}

/** Every judged Breakwater case of the row is at least `factor` × faster (ns per operation) than the best peer. */
export function fasterBy(id: string, factor: number): Target {
  const description = `row ${id}: Breakwater ≥ ${factor}× faster than the best peer`;
  return {
    description,
    judge(results) {
      const r = row(results, id);
      const peer = bestPeer(r);
      const judged = judgedBreakwater(r);
      if (peer === undefined || judged.length === 0) return { target: description, pass: false, detail: 'nothing measured' };
      const speedups = judged.map((c) => ({ c, x: peer.ns / c.ns }));
      const pass = speedups.every((s) => s.x >= factor);
      return { target: description, pass, detail: speedups.map((s) => `${s.c.name}: ${s.x.toFixed(1)}× faster than ${peer.name}`).join(', ') };
    },
  };
}

/** The Breakwater case `name` of row `id` costs at most `max` × the Breakwater case `baseName` of row `baseId` (ns per operation). */
export function withinRatio(id: string, name: string, baseId: string, baseName: string, max: number): Target {
  const description = `${baseId === id ? `row ${id}` : `rows ${baseId}/${id}`}: ${name} within ${max}× of ${baseName}`;
  return {
    description,
    judge(results) {
      const find = (rid: string, n: string) => row(results, rid).cases.find((c) => c.name === n);
      const a = find(id, name);
      const b = find(baseId, baseName);
      if (a === undefined || b === undefined) return { target: description, pass: false, detail: 'case not measured' };
      const ratio = a.ns / b.ns;
      return { target: description, pass: ratio <= max, detail: `${ns(a.ns)} ns vs ${ns(b.ns)} ns: ${ratio.toFixed(2)}×` };
    },
  };
}

function memory(results: Results, id: string): MemoryResult {
  const found = results.memory.find((m) => m.id === id);
  if (found === undefined) throw new Error(`no memory figure '${id}' in the results`);
  return found;
}

/** Formats bytes as B, KB or MB (1 KB = 1024 B). */
export function formatBytes(bytes: number): string {
  const abs = Math.abs(bytes);
  if (abs >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  if (abs >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${Math.round(bytes)} B`;
}

/** The heap figure `id` is below `limit` bytes. */
export function heapBelow(id: string, limit: number): Target {
  const description = `row 9: ${id} < ${formatBytes(limit)}`;
  return {
    description,
    judge(results) {
      const m = memory(results, id);
      return { target: description, pass: m.bytes < limit, detail: `${m.name}: ${formatBytes(m.bytes)}` };
    },
  };
}

/** The heap figure `id` exceeds `baseId` by less than `slack` bytes (it does not grow with what separates them). */
export function heapDoesNotGrow(id: string, baseId: string, slack: number): Target {
  const description = `row 9: ${id} does not grow past ${baseId} (+ < ${formatBytes(slack)})`;
  return {
    description,
    judge(results) {
      const a = memory(results, id);
      const b = memory(results, baseId);
      const growth = a.bytes - b.bytes;
      return {
        target: description,
        pass: growth < slack,
        detail: `${formatBytes(b.bytes)} → ${formatBytes(a.bytes)} (${growth >= 0 ? '+' : ''}${formatBytes(growth)})`,
      };
    },
  };
}

/**
 * Row 1c: the exporter's overhead over the unobserved breaker (ns/op of `observed` minus
 * `unobserved`) is at most `maxNs`, and at most `factor` × the peer exporter's overhead over the
 * bare peer (the fastest of `peerObserved` minus `peerBare`).
 */
export function exporterOverheadAtMost(
  id: string,
  names: { unobserved: string; observed: string; peerBare: string; peerObserved: readonly string[] },
  maxNs: number,
  factor: number,
): Target {
  const description = `row ${id}: the exporter adds ≤ ${maxNs} ns and ≤ ${factor} × what the peer's exporter adds`;
  return {
    description,
    judge(results) {
      const r = row(results, id);
      const find = (name: string) => {
        const c = r.cases.find((x) => x.name === name);
        if (c === undefined) throw new Error(`no case '${name}' in row ${id}`);
        return c.ns;
      };
      const ours = Math.max(0, find(names.observed) - find(names.unobserved));
      const fastest = names.peerObserved.reduce((a, b) => (find(b) < find(a) ? b : a));
      const theirs = Math.max(0, find(fastest) - find(names.peerBare));
      const allowed = Math.min(maxNs, factor * theirs);
      return {
        target: description,
        pass: ours <= allowed,
        detail: `+${ns(ours)} ns over the unobserved breaker; ${fastest}: +${ns(theirs)} ns over ${names.peerBare} (allowed ≤ ${ns(allowed)} ns)`,
      };
    },
  };
}

/** Row 10: a scrape of N breakers takes at most `msPer1000` ms and allocates at most `bytesPer1000` per 1 000 breakers. */
export function scrapeAtMost(id: string, msPer1000: number, bytesPer1000: number): Target {
  const description = `row ${id}: a scrape ≤ ${msPer1000} ms and ≤ ${formatBytes(bytesPer1000)} allocated per 1 000 breakers`;
  return {
    description,
    judge(results) {
      const s = results.scrape?.find((x) => x.id === id);
      if (s === undefined) throw new Error(`no scrape '${id}' in the results`);
      const k = s.breakers / 1000;
      const ms = s.ms / k;
      const bytes = s.allocatedBytes / k;
      return {
        target: description,
        pass: ms <= msPer1000 && bytes <= bytesPer1000,
        detail: `${s.breakers} breakers: ${s.ms.toFixed(0)} ms, ${formatBytes(s.allocatedBytes)} allocated, ${formatBytes(s.textBytes)} of text (${ms.toFixed(1)} ms and ${formatBytes(bytes)} per 1 000)`,
      };
    },
  };
}

/** One line of the table: name, ns/op, × floor, × best peer (the latter for every case of a row with a peer). */
export interface TableLine {
  readonly name: string;
  readonly ns: string;
  readonly xFloor: string;
  readonly xBestPeer: string;
}

/** The lines of one row: the floor first, then the cases in the order measured. */
export function tableLines(r: RowResult): TableLine[] {
  const peer = bestPeer(r);
  const line = (c: CaseResult): TableLine => ({
    name: c.side === 'floor' ? `${c.name} (floor)` : c.side === 'breakwater' ? `**${c.name}**${c.informational ? ' (shown, not judged)' : ''}` : c.name,
    ns: ns(c.ns),
    xFloor: (c.ns / r.floor.ns).toFixed(2),
    xBestPeer: peer === undefined ? '—' : (c.ns / peer.ns).toFixed(2),
  });
  return [line(r.floor), ...r.cases.map(line)];
}

/** The results as plain text: one block per row, aligned columns. */
export function formatText(results: Results, verdicts: readonly Verdict[]): string {
  const out: string[] = [];
  const header: TableLine = { name: 'name', ns: 'ns/op', xFloor: '× floor', xBestPeer: '× best peer' };
  for (const r of results.rows) {
    const lines = [header, ...tableLines(r).map((l) => ({ ...l, name: l.name.replaceAll('**', '') }))];
    const w = [Math.max(...lines.map((l) => l.name.length)), Math.max(...lines.map((l) => l.ns.length)), 7, 11];
    out.push(`\n${r.id}. ${r.title}`);
    for (const l of lines) out.push(`  ${l.name.padEnd(w[0]!)}  ${l.ns.padStart(w[1]!)}  ${l.xFloor.padStart(w[2]!)}  ${l.xBestPeer.padStart(w[3]!)}`);
  }
  if (results.memory.length > 0) {
    out.push('\n9. Memory (retained heap)');
    const width = Math.max(...results.memory.map((m) => m.name.length));
    for (const m of results.memory) out.push(`  ${m.name.padEnd(width)}  ${formatBytes(m.bytes).padStart(9)}`);
  }
  for (const sc of results.scrape ?? []) {
    out.push(
      `\n${sc.id}. Prometheus scrape`,
      `  ${sc.name}: ${sc.ms.toFixed(0)} ms, ${formatBytes(sc.allocatedBytes)} allocated, ${formatBytes(sc.textBytes)} of text, ${sc.series} samples`,
      `  of which collecting the values (getMetricsAsJSON, no text): ${sc.collectMs.toFixed(0)} ms, ${formatBytes(sc.collectBytes)} allocated`,
    );
  }
  out.push(...formatRedisText(results.redis ?? []));
  out.push(...formatSimulatorText(results.simulator ?? []));
  out.push(...formatAdaptiveScenarioText(results.adaptiveScenario));
  out.push('\nTargets');
  for (const v of verdicts) out.push(`  ${v.pass ? 'PASS' : 'MISS'}  ${v.target} — ${v.detail}${v.note === undefined ? '' : `\n        why: ${v.note}`}`);
  return out.join('\n');
}

/** The results as Markdown tables (RESULTS.md's body). */
export function formatMarkdown(results: Results, verdicts: readonly Verdict[]): string {
  const out: string[] = [];
  for (const r of results.rows) {
    out.push(`### ${r.id}. ${r.title}`, '', '| name | ns/op | × floor | × best peer |', '|---|---:|---:|---:|');
    for (const l of tableLines(r)) out.push(`| ${l.name} | ${l.ns} | ${l.xFloor} | ${l.xBestPeer} |`);
    out.push('');
  }
  if (results.memory.length > 0) {
    out.push('### 9. Memory (retained heap, measured with `--expose-gc`)', '', '| what | heap |', '|---|---:|');
    for (const m of results.memory) out.push(`| ${m.name} | ${formatBytes(m.bytes)} |`);
    out.push('');
  }
  for (const sc of results.scrape ?? []) {
    out.push(`### ${sc.id}. Prometheus scrape`, '', '| what | time | allocated | text | samples |', '|---|---:|---:|---:|---:|');
    out.push(`| ${sc.name} | ${sc.ms.toFixed(0)} ms | ${formatBytes(sc.allocatedBytes)} | ${formatBytes(sc.textBytes)} | ${sc.series} |`);
    out.push(
      `| the same values collected without the text (\`getMetricsAsJSON\`) | ${sc.collectMs.toFixed(0)} ms | ${formatBytes(sc.collectBytes)} | — | — |`,
      '',
    );
  }
  out.push(...formatRedisMarkdown(results.redis ?? []));
  out.push(...formatSimulatorMarkdown(results.simulator ?? []));
  out.push(...formatAdaptiveScenarioMarkdown(results.adaptiveScenario));
  out.push('### Targets', '', '| | target | measured |', '|---|---|---|');
  for (const v of verdicts) out.push(`| ${v.pass ? '✅ holds' : '❌ missed'} | ${v.target} | ${v.detail} |`);
  out.push('');
  const notes = verdicts.filter((v) => !v.pass && v.note !== undefined);
  if (notes.length > 0) {
    out.push('### Why the missed targets are missed', '');
    for (const v of notes) out.push(`- **${v.target}.** ${v.note}`);
    out.push('');
  }
  return out.join('\n');
}
