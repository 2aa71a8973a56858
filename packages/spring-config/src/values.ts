// Spring's binding of values: numbers and booleans quoted or not, durations in Spring's and
// ISO-8601's forms, enums in any case and with any separators, class lists, names of code.
import { parseDuration } from '@breakwater/core';
import type { ValueKind } from './option-tables.js';
import { describeFound, failAt } from './paths.js';
import { closestKey } from './relaxed-binding.js';

/** ISO-8601 durations (`PT2S`, `P1DT2H`, `pt0,5s`): sign, days, then hours, minutes, seconds after the `T`. */
const ISO_8601_DURATION = /^([-+]?)P(?:([-+]?\d+(?:[.,]\d+)?)D)?(?:T(?:([-+]?\d+(?:[.,]\d+)?)H)?(?:([-+]?\d+(?:[.,]\d+)?)M)?(?:([-+]?\d+(?:[.,]\d+)?)S)?)?$/i;
/** Spring's simple form: a number and an optional unit (`500`, `500ms`, `2S`). */
const SPRING_SIMPLE_DURATION = /^([-+]?\d+(?:\.\d+)?)\s*([a-z]{0,2})$/i;
/** Milliseconds per unit of Spring's simple form. */
const MS_PER_SPRING_UNIT: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Spring's words for booleans (`on`/`off`, `yes`/`no`: YAML 1.1 booleans, strings to a YAML 1.2 parser). */
const TRUE_WORDS = new Set(['true', 'on', 'yes', '1']);
const FALSE_WORDS = new Set(['false', 'off', 'no', '0']);
/** A number written as text (`"50"`, `" 12.5 "`, `1e3`). */
const NUMBER_TEXT = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$/i;

/**
 * A Spring duration in ms: a number (ms), Spring's simple form (`500`, `500ms`, `2s`, `2S`, `1d`,
 * `ns` and `us` too, units in any case), ISO-8601 in any case (`PT2S`, `pt0.1s`, `P1DT2H`), or
 * Breakwater's own form (`1.5m`).
 */
export function springDuration(raw: unknown): number | undefined {
  if (typeof raw !== 'string') return parseDuration(raw);
  const text = raw.trim();
  const simple = SPRING_SIMPLE_DURATION.exec(text);
  if (simple !== null) {
    const unit = simple[2]!.toLowerCase() || 'ms';
    const factor = MS_PER_SPRING_UNIT[unit];
    return factor === undefined ? undefined : Number(simple[1]) * factor;
  }
  const iso = ISO_8601_DURATION.exec(text);
  if (iso === null || /^[-+]?PT?$/i.test(text) || /T$/i.test(text)) return undefined;
  const [days, hours, minutes, seconds] = iso.slice(2).map((x) => (x === undefined ? 0 : Number(x.replace(',', '.'))));
  const ms = days! * 86_400_000 + hours! * 3_600_000 + minutes! * 60_000 + seconds! * 1000;
  return iso[1] === '-' ? -ms : ms;
}

/**
 * The value `x` written at `at`, bound as `kind` (`values`: an enum's values). Names of classes,
 * predicates and functions stay names here; they are looked up when the options are built.
 */
export function bindValue(at: string, kind: ValueKind, x: unknown, values: readonly string[] | undefined): unknown {
  if (x === undefined || x === null) failAt(at, 'has no value (give one, or remove the key)');
  switch (kind) {
    case 'number': {
      if (typeof x === 'number') return x;
      if (typeof x === 'string' && NUMBER_TEXT.test(x.trim())) return Number(x.trim());
      return failAt(at, `must be a number, got ${describeFound(x)}`);
    }
    case 'boolean': {
      if (typeof x === 'boolean') return x;
      const text = typeof x === 'string' ? x.trim().toLowerCase() : undefined;
      if (text !== undefined && TRUE_WORDS.has(text)) return true;
      if (text !== undefined && FALSE_WORDS.has(text)) return false;
      return failAt(at, `must be true or false, got ${describeFound(x)}`);
    }
    case 'duration': {
      const ms = springDuration(x);
      if (ms === undefined || !Number.isFinite(ms))
        failAt(at, `must be a duration (ms, '500ms', '10s', '2S', '1d' or ISO-8601 like 'PT10S'), got ${describeFound(x)}`);
      return ms;
    }
    case 'enum': {
      // Spring's lenient enum binding: 'time_based', 'time-based', 'TimeBased' are TIME_BASED.
      const all = values ?? [];
      const wanted =
        typeof x === 'string'
          ? x
              .trim()
              .replace(/[^a-z0-9]/gi, '')
              .toLowerCase()
          : undefined;
      const found = all.find((v) => v.replace(/[^a-z0-9]/gi, '').toLowerCase() === wanted);
      if (found !== undefined) return found;
      const guess = typeof x === 'string' ? closestKey(x, all) : undefined;
      return failAt(
        at,
        `must be one of ${all.map((v) => `'${v}'`).join(', ')}, got ${describeFound(x)}${guess === undefined ? '' : `; did you mean '${guess}'?`}`,
      );
    }
    case 'classes': {
      const names =
        typeof x === 'string'
          ? x
              .split(',')
              .map((s) => s.trim())
              .filter((s) => s !== '')
          : x;
      if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) return failAt(at, `must be a list of class names, got ${describeFound(x)}`);
      return names;
    }
    case 'predicate':
    case 'function': {
      if (typeof x !== 'string' || x.trim() === '') failAt(at, `must be the name of a ${kind}, got ${describeFound(x)}`);
      return x.trim();
    }
  }
}
