import { describeValue, isPlainObject } from '@breakwater/core/internal';
import type { CircuitBreakerSnapshot, MetricsSnapshot, TimeBucketSnapshot, WindowSnapshot } from './snapshot.js';
import { STATES, type CircuitBreakerStateName } from './states.js';

// The checks of a snapshot given to `CircuitBreaker.restore`: it comes from a store, so it is
// untrusted JSON. Each check names the field (`snapshot.metrics.window.buckets[2].failed`) and the
// value given: a `TypeError` for a wrong type or shape, a `RangeError` for a number out of range
// (a time outside the `Date` range, a count no breaker in that state keeps). What depends on the
// config (the window's fit, deadlines beyond its waits, decided trials) is restore's (restore.ts).

/** The most a window holds (as the options that size memory: docs/circuit-breaker.md). */
const MAX_SIZE = 1_000_000;
/** The most a time-window bucket counts (its counters are 32-bit). */
const MAX_COUNT = 2 ** 32 - 1;
/** The latest (and minus the earliest) wall time a `Date` holds, in ms: no wall clock reads beyond it. */
const MAX_WALL_TIME = 8.64e15;
const WINDOW_TYPES = ['COUNT_BASED', 'HALF_OPEN_TRIALS', 'TIME_BASED'] as const;

class Checker {
  constructor(readonly prefix: string) {}

  /** Throws, naming the field, what it needs and what it got (`shown`: `value` described). */
  fail(field: string, needs: string, value: unknown, range = false, shown = describeValue(value)): never {
    const message = `${this.prefix}${field} must be ${needs}, got ${shown}`;
    throw range ? new RangeError(message) : new TypeError(message);
  }

  object(field: string, value: unknown): Record<string, unknown> {
    if (!isPlainObject(value)) this.fail(field, 'an object', value);
    return value;
  }

  /** A wall time: a finite number within the `Date` range (so sums and differences of wall times stay exact to well below a ms). */
  time(field: string, value: unknown): number {
    if (typeof value !== 'number') this.fail(field, 'a number (wall-clock ms)', value);
    if (!Number.isFinite(value)) this.fail(field, 'a finite number (wall-clock ms)', value, true);
    if (Math.abs(value) > MAX_WALL_TIME) this.fail(field, `a wall-clock time in ms within the Date range [${-MAX_WALL_TIME}, ${MAX_WALL_TIME}]`, value, true);
    return value;
  }

  /** An integer in [min, max]; `why` (e.g. ` in FORCED_OPEN (…)`) follows the range in the message. */
  integer(field: string, value: unknown, min: number, max: number, why = ''): number {
    if (typeof value !== 'number') this.fail(field, `an integer in [${min}, ${max}]${why}`, value);
    if (!Number.isInteger(value) || value < min || value > max) this.fail(field, `an integer in [${min}, ${max}]${why}`, value, true);
    return value;
  }

  oneOf<T extends string>(field: string, value: unknown, values: readonly T[]): T {
    if (!values.includes(value as T)) this.fail(field, `one of ${values.map((v) => `'${v}'`).join(', ')}`, value);
    return value as T;
  }
}

/**
 * `value` checked as a {@link CircuitBreakerSnapshot} of format version 1 (consistent in itself;
 * whether it fits the breaker's config is restore's check). `prefix` starts every message.
 */
export function checkSnapshot(prefix: string, value: unknown): CircuitBreakerSnapshot {
  const c: Checker = new Checker(prefix);
  const s = c.object('snapshot', value);
  if (s['version'] !== 1) c.fail('snapshot.version', '1 (the only snapshot format this version reads)', s['version'], typeof s['version'] === 'number');
  const name = s['name'];
  if (typeof name !== 'string') c.fail('snapshot.name', 'a string', name);
  const takenAt = c.time('snapshot.takenAt', s['takenAt']);
  const state = c.oneOf('snapshot.state', s['state'], STATES);
  const keepsNoAttempt = state === 'CLOSED' || state === 'DISABLED' || state === 'METRICS_ONLY';
  // Every move to FORCED_OPEN adds one to the attempt (and a breaker created FORCED_OPEN is at 1).
  const attempt =
    state === 'FORCED_OPEN'
      ? c.integer('snapshot.attempt', s['attempt'], 1, Number.MAX_SAFE_INTEGER, ' in FORCED_OPEN (every move there counts an opening)')
      : c.integer('snapshot.attempt', s['attempt'], 0, keepsNoAttempt ? 0 : Number.MAX_SAFE_INTEGER);
  const openUntil = state === 'OPEN' ? c.time('snapshot.openUntil', s['openUntil']) : nothing(c, 'snapshot.openUntil', s['openUntil'], state);
  const halfOpenUntil =
    state === 'HALF_OPEN' && s['halfOpenUntil'] !== null
      ? c.time('snapshot.halfOpenUntil', s['halfOpenUntil'])
      : nothing(c, 'snapshot.halfOpenUntil', s['halfOpenUntil'], state);
  const metrics = checkMetrics(c, s['metrics'], state, takenAt);
  return { version: 1, name, takenAt, state, attempt, openUntil, halfOpenUntil, metrics };
}

function nothing(c: Checker, field: string, value: unknown, state: CircuitBreakerStateName): null {
  if (value !== null) c.fail(field, `null in ${state}`, value);
  return null;
}

function checkMetrics(c: Checker, value: unknown, state: CircuitBreakerStateName, takenAt: number): MetricsSnapshot {
  const m = c.object('snapshot.metrics', value);
  const notPermitted = c.integer('snapshot.metrics.notPermitted', m['notPermitted'], 0, Number.MAX_SAFE_INTEGER);
  // CLOSED, DISABLED and METRICS_ONLY permit every call, and start with fresh metrics.
  if (notPermitted > 0 && (state === 'CLOSED' || state === 'DISABLED' || state === 'METRICS_ONLY')) {
    c.fail('snapshot.metrics.notPermitted', `0 in ${state} (it refuses no call)`, notPermitted, true);
  }
  const reported = m['reported'];
  if (!Array.isArray(reported)) c.fail('snapshot.metrics.reported', 'an array', reported);
  if (reported.length > 0 && state !== 'METRICS_ONLY')
    c.fail('snapshot.metrics.reported', `empty in ${state} (only METRICS_ONLY reports rates once)`, reported);
  for (const [i, r] of reported.entries()) c.oneOf(`snapshot.metrics.reported[${i}]`, r, ['failureRate', 'slowCallRate']);
  if (new Set(reported).size !== reported.length) c.fail('snapshot.metrics.reported', 'without repeats', reported);
  const window = checkWindow(c, m['window'], takenAt);
  const type = window.type;
  if (state === 'HALF_OPEN' ? type !== 'HALF_OPEN_TRIALS' : state !== 'OPEN' && type === 'HALF_OPEN_TRIALS') {
    c.fail('snapshot.metrics.window.type', state === 'HALF_OPEN' ? `'HALF_OPEN_TRIALS' in HALF_OPEN` : `'COUNT_BASED' or 'TIME_BASED' in ${state}`, type);
  }
  const calls = window.type === 'TIME_BASED' ? window.buckets.reduce((n, b) => n + b.calls, 0) : window.outcomes.length;
  if ((state === 'DISABLED' || state === 'FORCED_OPEN') && calls > 0)
    c.fail('snapshot.metrics.window', `empty in ${state} (it records nothing)`, window, false, `${calls} calls`);
  return { window, notPermitted, reported: reported as MetricsSnapshot['reported'] };
}

function checkWindow(c: Checker, value: unknown, takenAt: number): WindowSnapshot {
  const w = c.object('snapshot.metrics.window', value);
  const type = c.oneOf('snapshot.metrics.window.type', w['type'], WINDOW_TYPES);
  const size = c.integer('snapshot.metrics.window.size', w['size'], 1, MAX_SIZE);
  if (type !== 'TIME_BASED') {
    const outcomes = w['outcomes'];
    if (typeof outcomes !== 'string' || !/^[0-3]*$/.test(outcomes))
      c.fail('snapshot.metrics.window.outcomes', 'a string of digits 0-3 (one per call)', outcomes);
    if (outcomes.length > size)
      c.fail('snapshot.metrics.window.outcomes', `at most ${size} calls long (the window's size)`, outcomes, true, `${outcomes.length}`);
    return { type, size, outcomes };
  }
  const newestSecondAt = c.time('snapshot.metrics.window.newestSecondAt', w['newestSecondAt']);
  if (!(newestSecondAt <= takenAt && newestSecondAt > takenAt - 1000)) {
    c.fail('snapshot.metrics.window.newestSecondAt', `in the second before snapshot.takenAt (${takenAt - 1000}, ${takenAt}]`, newestSecondAt, true);
  }
  const buckets = w['buckets'];
  if (!Array.isArray(buckets)) c.fail('snapshot.metrics.window.buckets', 'an array', buckets);
  if (buckets.length > size) c.fail('snapshot.metrics.window.buckets', `at most ${size} buckets long (the window's size)`, buckets, true, `${buckets.length}`);
  const ages = new Set<number>();
  const checked = buckets.map((b: unknown, i): TimeBucketSnapshot => {
    const field = `snapshot.metrics.window.buckets[${i}]`;
    const o = c.object(field, b);
    const age = c.integer(`${field}.age`, o['age'], 0, size - 1);
    if (ages.has(age)) c.fail(`${field}.age`, 'different from every other bucket’s', age, true);
    ages.add(age);
    const calls = c.integer(`${field}.calls`, o['calls'], 0, MAX_COUNT);
    const failed = c.integer(`${field}.failed`, o['failed'], 0, calls);
    const slow = c.integer(`${field}.slow`, o['slow'], 0, calls);
    const slowFailed = c.integer(`${field}.slowFailed`, o['slowFailed'], 0, Math.min(failed, slow));
    return { age, calls, failed, slow, slowFailed };
  });
  return { type, size, newestSecondAt, buckets: checked };
}
