/**
 * The state of an atomic rate limiter between two calls: Resilience4j's `AtomicRateLimiter.State`,
 * in milliseconds and with its own origin. Immutable; {@link nextState} returns a new one.
 *
 * Time since `origin` is cut into cycles of `limitRefreshPeriod` ms: cycle `c` is
 * `[origin + c·period, origin + (c+1)·period)`. Each cycle brings at most `limitForPeriod`
 * permissions (what a quiet cycle leaves unused is lost: no burst carry-over); `permissions`
 * goes negative when callers reserve permissions of cycles to come.
 *
 * @example
 * ```ts
 * const s: RateLimiterState = nextState(initialState(10, 1000, 0), 3, 0, 250);
 * s.permissions; // 7
 * ```
 */
export interface RateLimiterState {
  /** Permissions a cycle brings (the limit in force; a change counts from the next refill). */
  readonly limitForPeriod: number;
  /** Length of a cycle, ms (> 0). */
  readonly limitRefreshPeriod: number;
  /** Clock time at which cycle 0 starts (the limiter's creation). */
  readonly origin: number;
  /** The cycle the state was last brought up to. */
  readonly cycle: number;
  /** Permissions left in `cycle`; negative when permissions of later cycles are reserved. */
  readonly permissions: number;
  /** The wait the last {@link nextState} computed for its permits, ms (0: at once). */
  readonly waitMs: number;
}

/**
 * The state of a limiter created at `origin`: cycle 0, a full cycle of permissions.
 *
 * @example
 * ```ts
 * const s = initialState(10, 1000, clock.now());
 * ```
 */
export function initialState(limitForPeriod: number, limitRefreshPeriod: number, origin: number): RateLimiterState {
  return { limitForPeriod, limitRefreshPeriod, origin, cycle: 0, permissions: limitForPeriod, waitMs: 0 };
}

/**
 * Resilience4j's `calculateNextState`, exactly: brings `state` up to the cycle of `now`
 * (refilling to at most `limitForPeriod`), computes how long a caller must wait for `permits`
 * (0 when they are there; else to the start of the first cycle whose refill covers them), and
 * reserves them only when that wait is `<= timeout`. `timeout = -1` reserves nothing (what the
 * metrics use to look without touching). `permits` may exceed `limitForPeriod`: as in Resilience4j
 * they are then taken from this cycle and the following ones, and the wait runs to the start of
 * the last cycle they need (`permissions` goes down by all of them at once).
 *
 * The caller got its permits when `next.waitMs <= timeout` ({@link isReserved}). A `now` that falls
 * in a cycle before `state.cycle` (a shared state, updated by a thread whose clock is a hair ahead)
 * counts in `state.cycle`: the state never goes back a cycle.
 *
 * @example
 * ```ts
 * let s = initialState(1, 250, 0);
 * s = nextState(s, 1, 0, 10);   // waitMs 0, permissions 0: granted at once
 * s = nextState(s, 1, 500, 20); // waitMs 230 (to cycle 1 at t=250), permissions -1: reserved
 * s = nextState(s, 1, 100, 30); // waitMs 470 > 100: refused, nothing reserved
 * nextState(initialState(2, 100, 0), 5, 1000, 0).waitMs; // 200: 2 now, 2 at t=100, the 5th at t=200
 * ```
 */
export function nextState(state: RateLimiterState, permits: number, timeout: number, now: number): RateLimiterState {
  const { limitForPeriod: limit, limitRefreshPeriod: period } = state;
  const elapsed = now - state.origin;
  // A `now` in a cycle before the state's (another thread's clock a hair ahead of this one's) counts in the state's.
  const currentCycle = Math.max(Math.floor(elapsed / period), state.cycle);
  let permissions = state.permissions;
  if (state.cycle !== currentCycle) {
    permissions = Math.min(permissions + (currentCycle - state.cycle) * limit, limit);
  }
  const waitMs = waitForPermits(permits, period, limit, permissions, elapsed, currentCycle);
  if (timeout >= waitMs) permissions -= permits;
  return { limitForPeriod: limit, limitRefreshPeriod: period, origin: state.origin, cycle: currentCycle, permissions, waitMs };
}

/**
 * Resilience4j's `nanosToWaitForPermission`: 0 when `available >= permits`; else the time to the
 * next cycle plus as many full cycles as the refills still need
 * (`divCeil(permits − (available + limit), limit)`).
 */
function waitForPermits(permits: number, period: number, limit: number, available: number, elapsed: number, cycle: number): number {
  if (available >= permits) return 0;
  const toNextCycle = (cycle + 1) * period - elapsed;
  const atNextCycleStart = available + limit;
  // divCeil(x, limit) with x = permits − atNextCycleStart >= 1 − limit, so the dividend is >= 0.
  const fullCycles = Math.floor((permits - atNextCycleStart + limit - 1) / limit);
  return fullCycles * period + toNextCycle;
}

/**
 * Whether the state {@link nextState} returned reserved its permits for a caller willing to
 * wait `timeout` ms.
 *
 * @example
 * ```ts
 * const next = nextState(state, 1, timeout, clock.now());
 * if (isReserved(next, timeout)) await sleep(clock, next.waitMs);
 * ```
 */
export function isReserved(next: RateLimiterState, timeout: number): boolean {
  return timeout >= next.waitMs;
}

/**
 * `state` brought up to the cycle of `now`, nothing reserved (`waitMs` is the wait for one permit).
 *
 * @example
 * ```ts
 * refresh(state, clock.now()).permissions; // what `availablePermissions` shows
 * ```
 */
export function refresh(state: RateLimiterState, now: number): RateLimiterState {
  return nextState(state, 1, -1, now);
}

/**
 * Takes every permission left in the current cycle: `permissions` becomes `min(available, 0)`
 * (reservations of later cycles stay as they are).
 *
 * @example
 * ```ts
 * drain(state, clock.now()).permissions; // <= 0
 * ```
 */
export function drain(state: RateLimiterState, now: number): RateLimiterState {
  const current = refresh(state, now);
  return current.permissions > 0 ? { ...current, permissions: 0 } : current;
}

/**
 * Hands back `permits` reserved earlier and not used (an aborted waiter's), capped at the limit.
 * Only sound for the most recent reservation still in the future (see the RateLimiter's docs).
 *
 * @example
 * ```ts
 * state = giveBack(state, waiter.permits, clock.now());
 * ```
 */
export function giveBack(state: RateLimiterState, permits: number, now: number): RateLimiterState {
  const current = refresh(state, now);
  return { ...current, permissions: Math.min(current.permissions + permits, current.limitForPeriod) };
}
