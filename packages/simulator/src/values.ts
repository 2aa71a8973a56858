import { parseDuration } from '@breakwater/core';
import { isMap, isScalar } from 'yaml';
import { LIMITS } from './limits.js';
import type { Latency } from './scenario.js';
import type { Entry, YamlSource } from './yaml-source.js';

const UNITS = "a number of ms, or a number with a unit: '250ms', '10s', '1.5m', '2h'";

/** A duration in ms (>= 0, at most {@link LIMITS}.maxDurationMs): a number of ms or a string with a unit. */
export function duration(src: YamlSource, e: Entry, { positive = false } = {}): number {
  const raw = src.js(e.value);
  const ms = typeof raw === 'number' || typeof raw === 'string' ? parseDuration(raw) : undefined;
  if (ms === undefined || !Number.isFinite(ms)) src.fail(e.value, e.path, `not a duration: ${JSON.stringify(raw)} (${UNITS})`);
  if (ms < 0 || (positive && ms === 0)) src.fail(e.value, e.path, `must be ${positive ? '> 0' : '>= 0'}, got ${JSON.stringify(raw)}`);
  if (ms > LIMITS.maxDurationMs) src.fail(e.value, e.path, `must be at most 365 days (${LIMITS.maxDurationMs} ms), got ${JSON.stringify(raw)}`);
  return ms;
}

/** A number in [min, max] (or (min, max] with `gt`). */
export function number(src: YamlSource, e: Entry, range: { min?: number; gt?: number; max?: number; integer?: boolean; hint?: string }): number {
  const raw = src.js(e.value);
  if (typeof raw !== 'number' || !Number.isFinite(raw)) src.fail(e.value, e.path, `must be a number, got ${JSON.stringify(raw)}`);
  const bad =
    (range.integer === true && !Number.isInteger(raw)) ||
    (range.min !== undefined && raw < range.min) ||
    (range.gt !== undefined && raw <= range.gt) ||
    (range.max !== undefined && raw > range.max);
  if (bad) {
    const lower = range.gt !== undefined ? `> ${range.gt}` : range.min !== undefined ? `>= ${range.min}` : '';
    const upper = range.max !== undefined ? `<= ${range.max}` : '';
    const what = [range.integer ? 'a whole number' : 'a number', [lower, upper].filter(Boolean).join(' and ')].filter(Boolean).join(' ');
    src.fail(e.value, e.path, `must be ${what}, got ${raw}${range.hint ? ` (${range.hint})` : ''}`);
  }
  return raw;
}

/** A share in [0, 1]. */
export function ratio(src: YamlSource, e: Entry): number {
  return number(src, e, { min: 0, max: 1, hint: 'a share: 0.4 is 40%' });
}

/** A string among `choices`. */
export function choice<T extends string>(src: YamlSource, e: Entry, choices: readonly T[]): T {
  const raw = src.js(e.value);
  if (typeof raw !== 'string' || !choices.includes(raw as T)) src.fail(e.value, e.path, `must be one of ${choices.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw as T;
}

/** A string. */
export function text(src: YamlSource, e: Entry): string {
  const raw = src.js(e.value);
  if (typeof raw !== 'string' && typeof raw !== 'number') src.fail(e.value, e.path, `must be a string, got ${JSON.stringify(raw)}`);
  return String(raw);
}

/** A latency distribution: a duration (fixed), or `{ fixed }`, `{ uniform: [min, max] }`, `{ logNormal: { p50, p99 } }`. */
export function latency(src: YamlSource, e: Entry): Latency {
  if (isScalar(e.value)) return { kind: 'fixed', ms: duration(src, e) };
  if (!isMap(e.value) || e.value.items.length !== 1) {
    src.fail(e.value, e.path, 'must be a duration (fixed) or one of { fixed: 100ms }, { uniform: [100ms, 500ms] }, { logNormal: { p50: 100ms, p99: 2s } }');
  }
  const [kind, inner] = [...src.entries(e.value, e.path, ['fixed', 'uniform', 'logNormal'], 'a latency distribution')][0]!;
  if (kind === 'fixed') return { kind: 'fixed', ms: duration(src, inner) };
  if (kind === 'uniform') {
    const ends = src.items(inner.value, inner.path);
    if (ends.length !== 2) src.fail(inner.value, inner.path, 'must be [min, max]');
    const [min, max] = ends.map((node, i) => duration(src, { key: String(i), path: `${inner.path}[${i}]`, keyNode: undefined, value: node }));
    if (min! > max!) src.fail(inner.value, inner.path, `min must be <= max, got [${min}, ${max}] ms`);
    return { kind: 'uniform', min: min!, max: max! };
  }
  const p = src.entries(inner.value, inner.path, ['p50', 'p99'], 'the median and 99th percentile');
  const p50e = p.get('p50') ?? src.fail(inner.value, inner.path, 'needs p50 and p99');
  const p99e = p.get('p99') ?? src.fail(inner.value, inner.path, 'needs p50 and p99');
  const p50 = duration(src, p50e, { positive: true });
  const p99 = duration(src, p99e, { positive: true });
  if (p99 < p50) src.fail(p99e.value, p99e.path, `must be >= p50 (${p50} ms), got ${p99} ms`);
  return { kind: 'logNormal', p50, p99 };
}
