import { describeValue } from '@breakwater/core/internal';
import { checkSnapshot } from './check-snapshot.js';
import type { ResolvedCircuitBreakerConfig } from './config.js';
import { closedMetrics, FAILURE_EXCEEDED, halfOpenMetrics, judge, SLOW_EXCEEDED, type StateMetrics } from './metrics.js';
import type { Outcome } from './outcome.js';
import { readWallClock, type CircuitBreakerSnapshot, type SnapshotOptions, type WindowSnapshot } from './snapshot.js';
import type { CircuitStateMachine } from './state-machine.js';
import type { BreakerState } from './states.js';
import type { TimeWindow } from './windows/time-window.js';

// `CircuitBreaker.restore`: a checked snapshot (check-snapshot.ts) laid onto a new breaker's
// state machine. Wall times become times of the new breaker's clock by one offset read at
// restore: a deadline that passed while the snapshot sat in its store has passed here too, and
// time-window buckets that aged out of the window are dropped. What no breaker with this config
// could have left is repaired as that breaker would have (contract: docs/scale-out.md): a deadline is kept only up
// to the config's wait from when the snapshot was taken, and a HALF_OPEN whose trials already
// decide is moved to the OPEN or CLOSED they decide.

/**
 * Options of `CircuitBreaker.restore()`: `wallClock` as for `snapshot()` (default: the clock's `wallNow()`), and
 * `stateOnly: true` to restore only the state, the opening attempt and the deadlines, with fresh
 * metrics — what a snapshot whose window does not fit the config (another window type or size,
 * another number of half-open permits) can still give.
 *
 * @example
 * ```ts
 * const breaker = CircuitBreaker.restore('pg', config, snapshot, { stateOnly: true });
 * ```
 */
export interface RestoreOptions extends SnapshotOptions {
  readonly stateOnly?: boolean | undefined;
}

/**
 * Floating-point noise of wall times (ms): a reading within this much of a second's start counts as
 * that second, and a deadline within this much past the config's wait is kept as it is.
 */
const WALL_NOISE = 1e-3;

/** Lays `value` (an untrusted snapshot) onto `machine`, the state machine of a breaker just built. Publishes nothing. */
export function restoreInto(machine: CircuitStateMachine, value: unknown, options: RestoreOptions | undefined): void {
  const prefix = `${machine.source}: restore(name, config, snapshot): `;
  const wall = readWallClock(machine.source, 'restore(name, config, snapshot, options)', options, machine.clock);
  const stateOnly = options?.stateOnly ?? false;
  if (typeof stateOnly !== 'boolean') throw new TypeError(`${prefix}option stateOnly must be a boolean, got ${describeValue(stateOnly)}`);
  const snapshot = checkSnapshot(prefix, value);
  const config = machine.config;
  if (!stateOnly) checkFits(prefix, snapshot.metrics.window, config);
  const now = machine.clock.now();
  // A wall time of the snapshot plus `offset` is a time of this clock; `takenAt` is this clock's
  // `now - elapsed`. Time that passed since the snapshot was taken counts; a wall clock behind the
  // one that took it counts as none passed.
  const elapsed = Math.max(0, wall - snapshot.takenAt);
  const offset = now - elapsed - snapshot.takenAt;
  const metrics = stateOnly ? freshMetrics(snapshot, config, now) : restoredMetrics(snapshot, config, now, offset);
  machine.adopt(restoredState(machine, snapshot, metrics, { now, offset, takenAt: now - elapsed }));
}

/** The times restore maps by, on the new breaker's clock: its reading, the wall-to-clock offset, when the snapshot was taken. */
interface Times {
  readonly now: number;
  readonly offset: number;
  readonly takenAt: number;
}

/**
 * A deadline of the snapshot (wall ms) as a time of this clock, no later than `maxWait` after the
 * snapshot was taken: the state that set it began at or before then, so a breaker waiting at most
 * `maxWait` could not have set a later one.
 */
function bounded(deadline: number, takenAt: number, maxWait: number, times: Times): number {
  return deadline - takenAt > maxWait + WALL_NOISE ? times.takenAt + maxWait : deadline + times.offset;
}

/** The snapshot's window has the config's type and size (HALF_OPEN's trials: its number of permits). */
function checkFits(prefix: string, window: WindowSnapshot, config: ResolvedCircuitBreakerConfig): void {
  const trials = window.type === 'HALF_OPEN_TRIALS';
  const type = trials ? 'HALF_OPEN_TRIALS' : config.slidingWindowType;
  const size = trials ? config.permittedNumberOfCallsInHalfOpenState : config.slidingWindowSize;
  if (window.type === type && window.size === size) return;
  throw new TypeError(
    `${prefix}the snapshot's window (${describeWindow(window.type, window.size)}) does not fit the config's (${describeWindow(type, size)}); ` +
      'pass { stateOnly: true } to restore the state and opening attempt only, with fresh metrics',
  );
}

function describeWindow(type: WindowSnapshot['type'], size: number): string {
  if (type === 'TIME_BASED') return `TIME_BASED, ${size} s`;
  return type === 'COUNT_BASED' ? `COUNT_BASED, ${size} calls` : `HALF_OPEN_TRIALS, ${size} permits`;
}

function freshMetrics(snapshot: CircuitBreakerSnapshot, config: ResolvedCircuitBreakerConfig, now: number): StateMetrics {
  return snapshot.state === 'HALF_OPEN' ? halfOpenMetrics(config, config.permittedNumberOfCallsInHalfOpenState) : closedMetrics(config, now);
}

function restoredMetrics(snapshot: CircuitBreakerSnapshot, config: ResolvedCircuitBreakerConfig, now: number, offset: number): StateMetrics {
  const w = snapshot.metrics.window;
  const metrics = w.type === 'HALF_OPEN_TRIALS' ? halfOpenMetrics(config, w.size) : closedMetrics(config, now);
  if (w.type === 'TIME_BASED') {
    const window = metrics.window as TimeWindow;
    // The newest second of the snapshot, as a second of this clock (never after the current one).
    const newest = Math.min(Math.floor((w.newestSecondAt + offset + WALL_NOISE) / 1000), window.epoch);
    for (const b of w.buckets) window.addBucket({ second: newest - b.age, calls: b.calls, failed: b.failed, slow: b.slow, slowFailed: b.slowFailed });
  } else {
    for (let i = 0; i < w.outcomes.length; i++) metrics.window.record(Number(w.outcomes[i]) as Outcome, now);
  }
  metrics.numberOfNotPermittedCalls = snapshot.metrics.notPermitted;
  return metrics;
}

function restoredState(machine: CircuitStateMachine, snapshot: CircuitBreakerSnapshot, metrics: StateMetrics, times: Times): BreakerState {
  const { state, attempt } = snapshot;
  const config = machine.config;
  switch (state) {
    case 'CLOSED':
    case 'DISABLED':
      return { kind: state, metrics };
    case 'FORCED_OPEN':
      return { kind: state, attempt, metrics };
    case 'METRICS_ONLY': {
      const reported = snapshot.metrics.reported;
      const bits = (reported.includes('failureRate') ? FAILURE_EXCEEDED : 0) | (reported.includes('slowCallRate') ? SLOW_EXCEEDED : 0);
      return { kind: state, metrics, reported: bits };
    }
    case 'OPEN':
      // Attempt 0 is an OPEN of a given wait (`transitionToOpenStateFor` from CLOSED): bounded by a first opening's.
      return machine.openState(metrics, attempt, bounded(snapshot.openUntil!, snapshot.takenAt, config.waitInOpenState(Math.max(1, attempt)), times));
    case 'HALF_OPEN': {
      // Trials that already decide (enough recorded, judged by this config): the state the last of
      // them would have moved to, when the snapshot was taken — OPEN at the next attempt, keeping
      // the trials visible, or CLOSED with fresh metrics.
      const verdict = judge(metrics.window, metrics.thresholds);
      if (verdict > 0) return machine.openState(metrics, attempt + 1, times.takenAt + config.waitInOpenState(attempt + 1));
      if (verdict === 0) return { kind: 'CLOSED', metrics: closedMetrics(config, times.now) };
      // Permits held by calls still running when the snapshot was taken are free again: those
      // calls cannot report here. The trials already recorded keep theirs.
      const available = Math.max(0, config.permittedNumberOfCallsInHalfOpenState - metrics.window.calls);
      const maxWait = config.maxWaitDurationInHalfOpenState;
      const until =
        maxWait === 0 ? Infinity : snapshot.halfOpenUntil === null ? times.now + maxWait : bounded(snapshot.halfOpenUntil, snapshot.takenAt, maxWait, times);
      return machine.halfOpenState(attempt, metrics, available, until);
    }
  }
}
