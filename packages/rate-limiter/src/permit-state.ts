import type { Clock } from '@breakwater/core';
import { drain, giveBack, initialState, nextState, refresh, type RateLimiterState } from './state.js';

/**
 * Where a limiter's cycle state lives and how it is updated: in this thread ({@link LocalPermitState})
 * or in a `SharedArrayBuffer` that worker threads update by compare-and-swap (`SharedPermitState`).
 * Both run the same pure arithmetic of state.ts; `Permits` (reservations, waiters, hand-back) is
 * written once over this interface.
 */
export interface PermitState {
  /** The permissions per cycle in force. */
  readonly limitForPeriod: number;
  /** The wait the last {@link reserve} computed, ms (what a refusal reports). */
  readonly lastWaitMs: number;
  /** The time reading of the last {@link reserve}, in {@link now}'s base: a waiter's permits are there at this + its wait. */
  readonly reservedAt: number;
  /**
   * Whether something other than this thread changed the state between this thread's last change
   * and the one {@link reserve} or {@link drain} just made, were it only to bring it to a new cycle
   * (then none of this thread's earlier reservations can be handed back). False when they changed
   * nothing; always false for a state no other thread sees.
   */
  readonly interleaved: boolean;
  /** The time the state counts in, now. */
  now(): number;
  /** The state brought up to now, reserving nothing (for the metrics). */
  current(): RateLimiterState;
  /** Reserves `permits` if they are there within `timeout`: the wait (>= 0), or -1 (refused; nothing reserved). */
  reserve(permits: number, timeout: number): number;
  /** Takes the permissions left in the current cycle; returns how many there were (<= 0: none). */
  drain(): number;
  /** Sets the permissions per cycle. */
  changeLimit(limitForPeriod: number): void;
  /**
   * Hands back `permits` of this thread's latest reservation still standing, at time `now`.
   * Returns false, handing back nothing, when another thread changed the state since this
   * thread's last change (its reservations can no longer be handed back).
   */
  giveBack(permits: number, now: number): boolean;
}

/** The state of an in-process limiter: one object, replaced on each change (no other thread sees it). */
export class LocalPermitState implements PermitState {
  readonly #clock: Clock;
  #state: RateLimiterState;
  reservedAt = 0;
  readonly interleaved = false;

  constructor(limitForPeriod: number, limitRefreshPeriod: number, clock: Clock) {
    this.#clock = clock;
    this.#state = initialState(limitForPeriod, limitRefreshPeriod, clock.now());
  }

  get limitForPeriod(): number {
    return this.#state.limitForPeriod;
  }

  get lastWaitMs(): number {
    return this.#state.waitMs;
  }

  now(): number {
    return this.#clock.now();
  }

  current(): RateLimiterState {
    return refresh(this.#state, this.#clock.now());
  }

  reserve(permits: number, timeout: number): number {
    const now = this.#clock.now();
    const next = nextState(this.#state, permits, timeout, now);
    this.#state = next;
    this.reservedAt = now;
    return timeout >= next.waitMs ? next.waitMs : -1;
  }

  drain(): number {
    const now = this.#clock.now();
    const before = refresh(this.#state, now).permissions;
    this.#state = drain(this.#state, now);
    return before;
  }

  changeLimit(limitForPeriod: number): void {
    this.#state = { ...this.#state, limitForPeriod };
  }

  giveBack(permits: number, now: number): boolean {
    this.#state = giveBack(this.#state, permits, now);
    return true;
  }
}
