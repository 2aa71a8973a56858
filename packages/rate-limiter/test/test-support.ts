// Helpers shared by this package's tests (not part of the public surface).
import { RequestNotPermittedError, type Clock } from '@breakwater/core';
import { RateLimiter } from '../src/rate-limiter.js';

/** One call of {@link driveOnClock}: when it was reserved, the wait it was given, when its fn started. */
export interface DrivenCall {
  /** The limiter's clock reading when it reserved the permit. */
  readonly reservedAt: number;
  /** The wait it was given (0: at once). */
  readonly waitMs: number;
  /** The clock reading when fn started (NaN if it never did). */
  readonly ranAt: number;
}

/** What {@link driveOnClock} saw. */
export interface DrivenReport {
  readonly limitForPeriod: number;
  readonly limitRefreshPeriod: number;
  /** The limiter's origin (its cycle 0 starts there). */
  readonly createdAt: number;
  readonly calls: readonly DrivenCall[];
  readonly refused: number;
  /**
   * Calls per cycle. A call counts in the cycle it was granted for — the cycle of its reservation
   * when it went at once, else the cycle its wait was computed to end at — unless its fn started
   * earlier than that cycle: it then counts in the cycle it really started in (an over-grant there).
   * A call that started late (the event loop lagged) still counts in the cycle it was granted for.
   */
  readonly perCycle: ReadonlyMap<number, number>;
  /** Calls whose fn started before the start of the cycle they were granted for. */
  readonly early: readonly string[];
  /** Waits that did not end exactly at a cycle start (the arithmetic, or this harness, is wrong). */
  readonly offCycle: readonly string[];
}

/** Below this, a difference of clock readings is rounding (float sums of ms), not time. */
const EPSILON = 1e-6;

/**
 * Drives a limiter of `limitForPeriod` per `limitRefreshPeriod` on `base` (a real clock) with
 * `callers` concurrent callers, each calling `execute` again as soon as its last call ended, for
 * `spanMs` of the clock's time, and records every call. The limiter reads time and arms its timers
 * through a recording view of `base` (same readings, same timers), so the report knows each
 * reservation's clock reading and wait exactly.
 *
 * @example
 * ```ts
 * const report = await driveOnClock(systemClock, { limitForPeriod: 5, limitRefreshPeriod: 10, callers: 40, spanMs: 300 });
 * expect(report.early).toEqual([]);
 * ```
 */
export async function driveOnClock(
  base: Clock,
  options: { limitForPeriod: number; limitRefreshPeriod: number; callers: number; spanMs: number },
): Promise<DrivenReport> {
  const { limitForPeriod, limitRefreshPeriod: period, callers, spanMs } = options;
  let readings: number[] = [];
  let armed: number[] = [];
  const clock: Clock = {
    now: () => {
      const t = base.now();
      readings.push(t);
      return t;
    },
    setTimeout: (fn, ms) => {
      armed.push(ms);
      return base.setTimeout(fn, ms);
    },
    clearTimeout: (handle) => base.clearTimeout(handle),
  };
  const limiter = new RateLimiter('real-clock', { limitForPeriod, limitRefreshPeriod: period, timeoutDuration: 1000, clock });
  // The limiter's origin is the last reading of its constructor (the config check reads the clock first).
  const createdAt = readings[readings.length - 1]!;
  const end = createdAt + spanMs;
  const calls: { reservedAt: number; waitMs: number; ranAt: number }[] = [];
  let refused = 0;

  async function caller(): Promise<void> {
    while (base.now() < end) {
      const call = { reservedAt: NaN, waitMs: 0, ranAt: NaN };
      calls.push(call);
      readings = [];
      armed = [];
      // fn of a call granted at once runs inside execute: it reads the reservation from `readings`.
      const done = limiter.execute(() => {
        call.ranAt = base.now();
      });
      // execute reserves synchronously: its first clock reading is the reservation, its only timer the wait.
      call.reservedAt = readings[0]!;
      call.waitMs = armed[0] ?? 0;
      try {
        await done;
      } catch (error) {
        if (!(error instanceof RequestNotPermittedError)) throw error;
        refused++;
      }
    }
  }
  await Promise.all(Array.from({ length: callers }, caller));

  const perCycle = new Map<number, number>();
  const early: string[] = [];
  const offCycle: string[] = [];
  for (const [i, call] of calls.entries()) {
    if (Number.isNaN(call.ranAt)) continue;
    const dueAt = call.reservedAt + call.waitMs - createdAt;
    const granted = call.waitMs === 0 ? Math.floor(dueAt / period) : Math.round(dueAt / period);
    if (call.waitMs !== 0 && Math.abs(dueAt - granted * period) > EPSILON) offCycle.push(`call ${i}: wait ends at ${dueAt} ms, not at a cycle start`);
    const startsAt = granted * period;
    const ran = call.ranAt - createdAt;
    if (ran < startsAt - EPSILON) {
      early.push(`call ${i}: granted for cycle ${granted} (from ${startsAt} ms), started at ${ran.toFixed(3)} ms`);
    }
    const counted = Math.min(granted, Math.floor((ran + EPSILON) / period));
    perCycle.set(counted, (perCycle.get(counted) ?? 0) + 1);
  }
  return { limitForPeriod, limitRefreshPeriod: period, createdAt, calls, refused, perCycle, early, offCycle };
}
