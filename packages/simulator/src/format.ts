/**
 * A duration in ms as people read it, the one format of the table, the HTML report and the CLI's
 * progress: `850 ms`, `1.75 s`, `2 min 5 s`, `2 min`, `1 h 2 min` (rounded to the last unit shown;
 * no zero padding); `—` for none.
 *
 * @example
 * ```ts
 * formatMs(125_000); // '2 min 5 s'
 * ```
 */
export function formatMs(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '—';
  if (ms === 0) return '0 s';
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  if (Math.abs(ms) < 60_000) return `${+(ms / 1000).toFixed(2)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) {
    const [m, s] = [Math.floor(seconds / 60), seconds % 60];
    return s === 0 ? `${m} min` : `${m} min ${s} s`;
  }
  const minutes = Math.round(ms / 60_000);
  const [h, m] = [Math.floor(minutes / 60), minutes % 60];
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

/** A plain text table: a header row, a rule, the rows; text columns padded right, numbers left. */
export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const numeric = header.map((_, c) => rows.length > 0 && rows.every((r) => typeof r[c] === 'number' || /^(\d+(\.\d+)?%?|—)$/.test(String(r[c]))));
  const widths = header.map((_, c) => Math.max(...cells.map((r) => (r[c] ?? '').length)));
  const line = (r: readonly string[]) =>
    r
      .map((cell, c) => (numeric[c] ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd();
  return [line(cells[0]!), widths.map((w) => '─'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** A ratio with two decimals, a percentage with one. */
export const fixed2 = (n: number): string => n.toFixed(2);
export const percent = (part: number, of: number): string => (of === 0 ? '—' : `${((100 * part) / of).toFixed(1)}%`);
