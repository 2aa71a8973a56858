import { wallTime, type Clock } from '@breakwater/core';
import { describeValue } from '@breakwater/core/internal';
import type { StateMetrics } from './metrics.js';
import type { CircuitStateMachine } from './state-machine.js';
import type { CircuitBreakerStateName } from './states.js';
import type { CountWindow } from './windows/count-window.js';
import { TimeWindow } from './windows/time-window.js';

// `breaker.snapshot()`: the breaker's state as a plain, JSON-safe object (format version 1) that
// `CircuitBreaker.restore` (restore.ts) resumes from in another process. Times of the breaker's
// clock are monotonic readings that mean nothing elsewhere, so every time in a snapshot is a wall
// time (ms since the Unix epoch) read from `wallClock`.

/**
 * A breaker's state as `breaker.snapshot()` returns it: plain, JSON-safe (no `undefined`, no
 * `Infinity`, no class instances), versioned. Every time in it is a wall-clock time (ms since the
 * Unix epoch), never a reading of the breaker's monotonic clock. Permits held by calls still
 * running are not kept: `restore` hands them out again.
 *
 * @example
 * ```ts
 * const snapshot: CircuitBreakerSnapshot = breaker.snapshot();
 * await redis.set(`breaker:${breaker.name}`, JSON.stringify(snapshot));
 * ```
 */
export interface CircuitBreakerSnapshot {
  /** The format; `restore` refuses any other. */
  readonly version: 1;
  /** The breaker's name (for whoever reads the store; `restore` does not check it). */
  readonly name: string;
  /** When it was taken (wall ms). */
  readonly takenAt: number;
  readonly state: CircuitBreakerStateName;
  /** The opening attempt (the argument of the next wait function call); 0 in CLOSED, DISABLED, METRICS_ONLY. */
  readonly attempt: number;
  /** OPEN: the wall time after which the next call moves it to HALF_OPEN; `null` in the other states. */
  readonly openUntil: number | null;
  /** HALF_OPEN with `maxWaitDurationInHalfOpenState`: the wall time it is forced out; `null` otherwise. */
  readonly halfOpenUntil: number | null;
  /** The current state's metrics (an OPEN's are those it opened from, as `breaker.metrics` shows them). */
  readonly metrics: MetricsSnapshot;
}

/**
 * The metrics part of a {@link CircuitBreakerSnapshot}.
 *
 * @example
 * ```ts
 * const { window, notPermitted } = breaker.snapshot().metrics;
 * ```
 */
export interface MetricsSnapshot {
  readonly window: WindowSnapshot;
  /** `numberOfNotPermittedCalls`. */
  readonly notPermitted: number;
  /** METRICS_ONLY: the rate events already published in this state (each is published once); `[]` elsewhere. */
  readonly reported: readonly ('failureRate' | 'slowCallRate')[];
}

/**
 * A window in a {@link CircuitBreakerSnapshot}:
 * - `COUNT_BASED` (`size` calls) and `HALF_OPEN_TRIALS` (HALF_OPEN's count window of
 *   `permittedNumberOfCallsInHalfOpenState`, also kept by an OPEN that failed its trials):
 *   `outcomes`, the calls held, oldest first, one digit a call — `0` SUCCESS, `1` ERROR,
 *   `2` SLOW_SUCCESS, `3` SLOW_ERROR;
 * - `TIME_BASED` (`size` seconds): `newestSecondAt`, the wall time at which the window's newest
 *   second began, and the `buckets` holding calls, each `age` seconds before that one.
 *
 * @example
 * ```ts
 * const w: WindowSnapshot = { type: 'COUNT_BASED', size: 10, outcomes: '0010' };
 * const t: WindowSnapshot = { type: 'TIME_BASED', size: 60, newestSecondAt: 1_764_619_200_000, buckets: [{ age: 2, calls: 3, failed: 1, slow: 0, slowFailed: 0 }] };
 * ```
 */
export type WindowSnapshot =
  | { readonly type: 'COUNT_BASED' | 'HALF_OPEN_TRIALS'; readonly size: number; readonly outcomes: string }
  | { readonly type: 'TIME_BASED'; readonly size: number; readonly newestSecondAt: number; readonly buckets: readonly TimeBucketSnapshot[] };

/**
 * One second of a TIME_BASED {@link WindowSnapshot}: `age` seconds before the newest one, and its counts
 * (`failed`, `slow` <= `calls`; `slowFailed` <= both).
 *
 * @example
 * ```ts
 * const bucket: TimeBucketSnapshot = { age: 0, calls: 12, failed: 3, slow: 1, slowFailed: 1 };
 * ```
 */
export interface TimeBucketSnapshot {
  readonly age: number;
  readonly calls: number;
  readonly failed: number;
  readonly slow: number;
  readonly slowFailed: number;
}

/**
 * Options of `breaker.snapshot()` and `CircuitBreaker.restore()`: `wallClock` reads wall-clock
 * time in ms since the Unix epoch (default: the breaker clock's `wallNow()`, which is `Date.now`
 * on `systemClock` and follows `now()` on a `VirtualClock`; `Date.now` for a clock without one);
 * the breaker's own `now()` is monotonic and means nothing in another process.
 *
 * @example
 * ```ts
 * const clock = new VirtualClock();
 * const wallClock = () => 1_764_619_200_000 + clock.now();
 * const snapshot = breaker.snapshot({ wallClock });
 * ```
 */
export interface SnapshotOptions {
  readonly wallClock?: (() => number) | undefined;
}

/** `wallClock()` of the options (the wall time of `clock` by default: `wallTime(clock)`), checked: a finite number. */
export function readWallClock(source: string, method: string, options: SnapshotOptions | undefined, clock: Clock): number {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new TypeError(`${source}: ${method} options must be an object, got ${describeValue(options)}`);
  }
  const wallClock = options?.wallClock ?? (() => wallTime(clock));
  if (typeof wallClock !== 'function') throw new TypeError(`${source}: ${method} option wallClock must be a function, got ${describeValue(wallClock)}`);
  const wall = wallClock();
  if (typeof wall !== 'number' || !Number.isFinite(wall)) {
    throw new TypeError(`${source}: ${method} option wallClock() must return a finite number of ms, got ${describeValue(wall)}`);
  }
  return wall;
}

/** The machine's current state as a snapshot, at the breaker clock's now and the wall time `wall`. */
export function takeSnapshot(machine: CircuitStateMachine, wall: number): CircuitBreakerSnapshot {
  const state = machine.state;
  const now = machine.clock.now();
  // A clock time as a wall time (the offset between the two clocks, now).
  const toWall = (t: number): number => wall + (t - now);
  const attempt = state.kind === 'OPEN' || state.kind === 'HALF_OPEN' || state.kind === 'FORCED_OPEN' ? state.attempt : 0;
  const reported: ('failureRate' | 'slowCallRate')[] = [];
  if (state.kind === 'METRICS_ONLY') {
    if (state.reported & 1) reported.push('failureRate');
    if (state.reported & 2) reported.push('slowCallRate');
  }
  return {
    version: 1,
    name: machine.name,
    takenAt: wall,
    state: state.kind,
    attempt,
    openUntil: state.kind === 'OPEN' ? toWall(state.deadline) : null,
    halfOpenUntil: state.kind === 'HALF_OPEN' && state.deadline !== Infinity ? toWall(state.deadline) : null,
    metrics: { window: windowSnapshot(state.metrics, now, wall), notPermitted: state.metrics.numberOfNotPermittedCalls, reported },
  };
}

function windowSnapshot(metrics: StateMetrics, now: number, wall: number): WindowSnapshot {
  const window = metrics.window;
  if (window instanceof TimeWindow) {
    const buckets = window.buckets(now);
    const newest = window.epoch;
    return {
      type: 'TIME_BASED',
      size: window.size,
      newestSecondAt: wall - (now - newest * 1000),
      buckets: buckets.map((b) => ({ age: newest - b.second, calls: b.calls, failed: b.failed, slow: b.slow, slowFailed: b.slowFailed })),
    };
  }
  const count = window as CountWindow;
  return { type: metrics.trials ? 'HALF_OPEN_TRIALS' : 'COUNT_BASED', size: count.size, outcomes: count.outcomes().join('') };
}
