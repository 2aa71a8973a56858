import { closest, parseDuration } from '@breakwater/core';
import type { TraceEntry } from './scenario.js';
import { ScenarioError } from './yaml-source.js';

const FIELDS = ['timestamp', 'latency', 'outcome'] as const;
const OUTCOMES: Record<string, TraceEntry['outcome']> = {
  ok: 'ok', success: 'ok', succeeded: 'ok',
  error: 'error', failure: 'error', failed: 'error', fail: 'error',
  hang: 'hang', timeout: 'hang',
};

/** One line's fields, by name, and a way to fail at that line. */
type Line = { readonly n: number; readonly fields: Readonly<Record<string, unknown>>; readonly extra: readonly string[] };

function entryOf(file: string, line: Line): { at: number; latencyMs: number; outcome: TraceEntry['outcome'] } {
  const fail = (key: string, problem: string): never => {
    throw new ScenarioError(file, line.n, 1, key, problem);
  };
  for (const key of FIELDS) {
    if (line.fields[key] === undefined || line.fields[key] === '') {
      const guess = closest(key, line.extra);
      fail(key, `missing${guess === undefined ? '' : ` (did you mean '${guess}'?)`}: each line needs ${FIELDS.join(', ')}`);
    }
  }
  const ts = line.fields['timestamp'];
  const numeric = typeof ts === 'number' ? ts : typeof ts === 'string' && /^-?\d+(\.\d+)?$/.test(ts) ? Number(ts) : undefined;
  const at = numeric ?? (typeof ts === 'string' ? Date.parse(ts) : NaN);
  if (!Number.isFinite(at)) fail('timestamp', `not a time: ${JSON.stringify(ts)} (ms as a number, or an ISO 8601 date)`);
  const rawLatency = line.fields['latency'];
  const latency = typeof rawLatency === 'string' && /^\d+(\.\d+)?$/.test(rawLatency) ? Number(rawLatency) : parseDuration(rawLatency);
  if (latency === undefined || !(latency >= 0) || latency === Infinity) {
    fail('latency', `not a duration: ${JSON.stringify(rawLatency)} (ms as a number, or '250ms', '1.5s')`);
  }
  const rawOutcome = line.fields['outcome'];
  let outcome: TraceEntry['outcome'] | undefined;
  const status = typeof rawOutcome === 'number' ? rawOutcome : typeof rawOutcome === 'string' && /^\d{3}$/.test(rawOutcome) ? Number(rawOutcome) : undefined;
  if (status !== undefined && Number.isInteger(status) && status >= 100 && status <= 599) outcome = status >= 500 ? 'error' : 'ok';
  else if (typeof rawOutcome === 'string') outcome = OUTCOMES[rawOutcome.toLowerCase()];
  if (outcome === undefined) {
    fail('outcome', `must be ok, error or hang (or success/failure/timeout, or an HTTP status: 5xx is an error), got ${JSON.stringify(rawOutcome)}`);
  }
  return { at, latencyMs: latency!, outcome: outcome! };
}

function splitCsv(line: string): string[] {
  const out: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') out.push(cell.trim()), (cell = '');
    else cell += c;
  }
  out.push(cell.trim());
  return out;
}

function* linesOf(file: string, text: string, format: 'jsonl' | 'csv'): Generator<Line> {
  const lines = text.split(/\r?\n/);
  let header: string[] | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '' || raw.startsWith('#')) continue;
    const n = i + 1;
    if (format === 'jsonl') {
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch (error) {
        throw new ScenarioError(file, n, 1, '', `not a JSON object: ${(error as Error).message}`);
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ScenarioError(file, n, 1, '', 'each line must be a JSON object');
      const fields = value as Record<string, unknown>;
      yield { n, fields, extra: Object.keys(fields).filter((k) => !(FIELDS as readonly string[]).includes(k)) };
      continue;
    }
    const cells = splitCsv(raw);
    if (header === undefined) {
      header = cells.map((c) => c.toLowerCase());
      continue;
    }
    if (cells.length !== header.length) throw new ScenarioError(file, n, 1, '', `has ${cells.length} fields, the header has ${header.length}`);
    yield { n, fields: Object.fromEntries(header.map((h, c) => [h, cells[c]])), extra: header.filter((k) => !(FIELDS as readonly string[]).includes(k)) };
  }
}

/**
 * A recorded trace (JSONL: one `{"timestamp", "latency", "outcome"}` object a line; CSV: a header
 * naming those columns, then one call a line) as entries sorted by time, from 0 ms. Other fields
 * are ignored; a malformed line is refused with its file, line and field.
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
  return raw.map((e) => ({ atMs: e.at - first, latencyMs: e.latencyMs, outcome: e.outcome }));
}
