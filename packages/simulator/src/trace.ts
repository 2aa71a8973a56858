import { parseDuration } from '@breakwater/core';
import { closest } from '@breakwater/core/internal';
import { LIMITS } from './limits.js';
import type { TraceEntry } from './scenario.js';
import { ScenarioError } from './yaml-source.js';

const FIELDS = ['timestamp', 'latency', 'outcome'] as const;
const OUTCOMES: Record<string, TraceEntry['outcome']> = {
  ok: 'ok',
  success: 'ok',
  succeeded: 'ok',
  error: 'error',
  failure: 'error',
  failed: 'error',
  fail: 'error',
  hang: 'hang',
  timeout: 'hang',
};

/** One line's fields, by name, where each starts (column, 1-based), and its other fields' names. */
type Line = {
  readonly n: number;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly columns: Readonly<Record<string, number>>;
  readonly extra: readonly string[];
};

/**
 * What kind of value a field holds, for an error: never the value itself (a trace may be any file
 * a scenario names, and an error must not echo what it holds).
 */
function kindOf(value: unknown): string {
  if (typeof value === 'string') return `text of ${value.length} character${value.length === 1 ? '' : 's'}`;
  if (typeof value === 'number') return value < 0 ? 'a negative number' : Number.isFinite(value) ? 'a number' : 'not a finite number';
  if (typeof value === 'boolean') return 'true or false';
  if (value === null) return 'null';
  return Array.isArray(value) ? 'a list' : 'an object';
}

function entryOf(file: string, line: Line): { at: number; latencyMs: number; outcome: TraceEntry['outcome']; n: number; column: number } {
  const fail = (key: string, problem: string): never => {
    throw new ScenarioError(file, line.n, line.columns[key] ?? 1, key, problem);
  };
  for (const key of FIELDS) {
    if (line.fields[key] === undefined || line.fields[key] === '') {
      // A did-you-mean names one of the line's own field names only when it is a near-spelling of a known one.
      const guess = closest(key, line.extra);
      fail(key, `missing${guess === undefined ? '' : ` (did you mean '${guess}'?)`}: each line needs ${FIELDS.join(', ')}`);
    }
  }
  const ts = line.fields['timestamp'];
  const numeric = typeof ts === 'number' ? ts : typeof ts === 'string' && /^-?\d+(\.\d+)?$/.test(ts) ? Number(ts) : undefined;
  const at = numeric ?? (typeof ts === 'string' ? Date.parse(ts) : NaN);
  if (!Number.isFinite(at)) fail('timestamp', `not a time: got ${kindOf(ts)} (ms as a number, or an ISO 8601 date)`);
  const rawLatency = line.fields['latency'];
  const latency = typeof rawLatency === 'string' && /^\d+(\.\d+)?$/.test(rawLatency) ? Number(rawLatency) : parseDuration(rawLatency);
  if (latency === undefined || !(latency >= 0) || latency === Infinity) {
    fail('latency', `not a duration: got ${kindOf(rawLatency)} (ms as a number, or a duration: 250ms, 1.5s)`);
  }
  if (latency! > LIMITS.maxDurationMs) fail('latency', `must be at most 365 days (${LIMITS.maxDurationMs} ms)`);
  const rawOutcome = line.fields['outcome'];
  let outcome: TraceEntry['outcome'] | undefined;
  const status = typeof rawOutcome === 'number' ? rawOutcome : typeof rawOutcome === 'string' && /^\d{3}$/.test(rawOutcome) ? Number(rawOutcome) : undefined;
  if (status !== undefined && Number.isInteger(status) && status >= 100 && status <= 599) outcome = status >= 500 ? 'error' : 'ok';
  else if (typeof rawOutcome === 'string') outcome = Object.hasOwn(OUTCOMES, rawOutcome.toLowerCase()) ? OUTCOMES[rawOutcome.toLowerCase()] : undefined;
  if (outcome === undefined) {
    fail('outcome', `must be ok, error or hang (or success/failure/timeout, or an HTTP status: 5xx is an error), got ${kindOf(rawOutcome)}`);
  }
  return { at, latencyMs: latency!, outcome: outcome!, n: line.n, column: line.columns['timestamp'] ?? 1 };
}

/** A CSV line's cells (trimmed) and the column each starts at (1-based). */
function splitCsv(line: string): { cells: string[]; starts: number[] } {
  const cells: string[] = [];
  const starts: number[] = [1];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      cells.push(cell.trim());
      cell = '';
      starts.push(i + 2);
    } else cell += c;
  }
  cells.push(cell.trim());
  return { cells, starts };
}

const JSONL_HINT = '(one JSON object a line: {"timestamp": …, "latency": …, "outcome": …})';

/**
 * A JSONL line as an object. An error is placed at the column where the line breaks (from the
 * parser's position) and says what was expected, never what is there.
 */
function jsonObject(file: string, n: number, raw: string, indent: number): Record<string, unknown> {
  if (!raw.startsWith('{')) throw new ScenarioError(file, n, indent + 1, '', `not a JSON object: expected { ${JSONL_HINT}`);
  try {
    return JSON.parse(raw) as Record<string, unknown>; // a line starting with { that parses is an object
  } catch (error) {
    // Only a number is taken from the parser's message: its text may quote the line.
    const position = /at position (\d+)/.exec((error as Error).message)?.[1];
    throw new ScenarioError(file, n, indent + 1 + Number(position ?? 0), '', `not valid JSON ${JSONL_HINT}`);
  }
}

/** Where each known field's key starts in a JSONL line (1-based; 1 when it is not found as written). */
function keyColumns(raw: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of FIELDS) {
    const at = raw.indexOf(`"${key}"`);
    if (at >= 0) out[key] = at + 1;
  }
  return out;
}

function* linesOf(file: string, text: string, format: 'jsonl' | 'csv'): Generator<Line> {
  const lines = text.split(/\r?\n/);
  let header: string[] | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const raw = line.trim();
    if (raw === '' || raw.startsWith('#')) continue;
    const n = i + 1;
    const indent = line.length - line.trimStart().length;
    if (format === 'jsonl') {
      const fields = jsonObject(file, n, raw, indent);
      const columns = Object.fromEntries(Object.entries(keyColumns(raw)).map(([k, c]) => [k, c + indent]));
      yield { n, fields, columns, extra: Object.keys(fields).filter((k) => !(FIELDS as readonly string[]).includes(k)) };
      continue;
    }
    const { cells, starts } = splitCsv(raw);
    if (header === undefined) {
      header = cells.map((c) => c.toLowerCase());
      continue;
    }
    if (cells.length !== header.length) throw new ScenarioError(file, n, 1, '', `has ${cells.length} fields, the header has ${header.length}`);
    yield {
      n,
      fields: Object.fromEntries(header.map((h, c) => [h, cells[c]])),
      columns: Object.fromEntries(header.map((h, c) => [h, starts[c]! + indent])),
      extra: header.filter((k) => !(FIELDS as readonly string[]).includes(k)),
    };
  }
}

/**
 * A recorded trace (JSONL: one `{"timestamp", "latency", "outcome"}` object a line; CSV: a header
 * naming those columns, then one call a line) as entries sorted by time, from 0 ms. Other fields
 * are ignored; a malformed line is refused with its file, line, column and field, and what was
 * expected — never with what the line holds (a trace may be any file a scenario names).
 *
 * @example
 * ```ts
 * const entries = parseTrace('access.jsonl', '{"timestamp": 0, "latency": 120, "outcome": "ok"}\n');
 * // [{ atMs: 0, latencyMs: 120, outcome: 'ok' }]
 * ```
 */
export function parseTrace(file: string, text: string, format: 'jsonl' | 'csv' = file.toLowerCase().endsWith('.csv') ? 'csv' : 'jsonl'): TraceEntry[] {
  const raw = [...linesOf(file, text, format)].map((line) => entryOf(file, line));
  if (raw.length === 0) throw new ScenarioError(file, 1, 1, '', 'the trace has no call in it');
  raw.sort((a, b) => a.at - b.at);
  const first = raw[0]!.at;
  const last = raw.at(-1)!;
  if (last.at - first > LIMITS.maxDurationMs) {
    throw new ScenarioError(file, last.n, last.column, 'timestamp', `the trace spans more than 365 days (${LIMITS.maxDurationMs} ms) from its earliest line`);
  }
  return raw.map((e) => ({ atMs: e.at - first, latencyMs: e.latencyMs, outcome: e.outcome }));
}
