import type { Clock, Outcome } from '@breakwater/core';
import { HandBackList, WaitQueue, type HandBackReservation } from '@breakwater/core/internal';
import type { PermitState } from './permit-state.js';
import type { RateLimiterState } from './state.js';

/** What {@link Permits} needs from its limiter. */
export interface PermitsOptions {
  /** Where the cycle state lives (this thread, or a `SharedArrayBuffer`). */
  readonly state: PermitState;
  /** The clock the waiters wait on. */
  readonly clock: Clock;
  /** A waiter's wait ended and its `permits` are there, after `waitMs` (the limiter publishes `successfulAcquire`). */
  readonly granted: (permits: number, waitMs: number) => void;
}

/** Permits a caller reserved and waits for on a timer. */
interface Reservation extends HandBackReservation<Reservation> {
  readonly permits: number;
  /** Time (in the state's base) at which its permits are there. */
  readonly releaseAt: number;
  /** Whether its caller gave up waiting (its permits wait to be handed back). */
  aborted: boolean;
}

/** What a waiter gets when its wait on the clock ends: its reserved permits are there. */
const GRANTED: Outcome<void> = Object.freeze({ result: undefined });

/**
 * A rate limiter's permits over time: the cycle state (the pure arithmetic of state.ts, kept in
 * this thread or shared between threads: a {@link PermitState}), the reservations made on it, and
 * the callers of this thread waiting on a timer for theirs (core's `WaitQueue`: an aborted waiter
 * leaves at once, a wait keeps the process alive).
 *
 * An aborted waiter hands its permits back when it can. The reservations that can still be handed
 * back are those made after the last permits taken by anything else, in reservation order
 * (`#returnable`); permits come back only from the end of that list: an aborted reservation's
 * permits come back when they are the last ones reserved, and an earlier one stays as a hole until
 * everything reserved after it has come back too. Else a later waiter's permits would be counted
 * twice, and a cycle could let more than its limit through. On a shared state, a change by another
 * thread counts as "taken by anything else": this thread's reservations before it stay used.
 */
export class Permits {
  /** Where the cycle state lives. */
  readonly state: PermitState;
  /** The callers waiting on a timer for the permits they reserved. */
  readonly #waiters: WaitQueue<void, Reservation>;
  /** The waiters' reservations an abort can still hand back, oldest first. */
  readonly #returnable = new HandBackList<Reservation>();

  constructor(options: PermitsOptions) {
    const clock = options.clock;
    this.state = options.state;
    const granted = options.granted;
    this.#waiters = new WaitQueue<void, Reservation>({
      clock,
      // The end of the wait is the grant: the reserved permits are there.
      onTimeout: (reservation, waitedMs) => {
        this.#returnable.granted(reservation);
        granted(reservation.permits, waitedMs);
        return GRANTED;
      },
      onAbort: (reservation) => this.#handBack(reservation),
    });
  }

  /** The permissions per cycle in force. */
  get limitForPeriod(): number {
    return this.state.limitForPeriod;
  }

  /** The wait the last reservation computed, ms (what a refusal reports). */
  get lastWaitMs(): number {
    return this.state.lastWaitMs;
  }

  /** Callers waiting for their permits. */
  get waiting(): number {
    return this.#waiters.size;
  }

  /** The state brought up to `clock.now()`, reserving nothing (for the metrics). */
  current(): RateLimiterState {
    return this.state.current();
  }

  /**
   * For a caller that waits through {@link wait}: reserves `permits` if they are there within
   * `timeout`. Returns 0 (taken now), the ms to wait for them (reserved: call `wait`), or -1
   * (refused; nothing reserved).
   */
  acquire(permits: number, timeout: number): number {
    const state = this.state;
    const wait = state.reserve(permits, timeout);
    if (wait === 0 || state.interleaved) this.#noHandBackBeforeNow();
    return wait;
  }

  /** For a caller that waits on its own (`reservePermission`): as {@link acquire}, but its reservation can never be handed back. */
  reserve(permits: number, timeout: number): number {
    const state = this.state;
    const wait = state.reserve(permits, timeout);
    if (wait >= 0 || state.interleaved) this.#noHandBackBeforeNow();
    return wait;
  }

  /** Waits for permits {@link acquire} reserved, until they are there or `signal` aborts (they are then handed back if they can be). */
  wait(permits: number, waitMs: number, signal: AbortSignal): Promise<void> {
    const reservation: Reservation = { prev: null, next: null, linked: false, permits, releaseAt: this.state.reservedAt + waitMs, aborted: false };
    this.#returnable.push(reservation);
    return this.#waiters.wait(signal, waitMs, reservation);
  }

  /** Takes the permissions left in the current cycle; returns how many there were (<= 0: none). */
  drain(): number {
    const state = this.state;
    const before = state.drain();
    if (before > 0 || state.interleaved) this.#noHandBackBeforeNow();
    return before;
  }

  /** Sets the permissions per cycle (from the next refill on, as in Resilience4j). */
  changeLimit(limitForPeriod: number): void {
    this.state.changeLimit(limitForPeriod);
    this.#noHandBackBeforeNow();
  }

  /** Permits were taken by something other than a waiter (or the limit changed): no reservation made so far can be handed back. */
  #noHandBackBeforeNow(): void {
    this.#returnable.clear();
  }

  /**
   * A waiter aborted: the permits of every aborted reservation at the end of the list (still in
   * the future) come back. A give-back the state refuses means another thread changed a shared
   * state since: nothing of this thread's can come back any more (the list is cleared).
   */
  #handBack(reservation: Reservation): void {
    const now = this.state.now();
    this.#returnable.handBack(
      reservation,
      (last) => this.state.giveBack(last.permits, now),
      (last) => last.releaseAt > now,
    );
  }
}
