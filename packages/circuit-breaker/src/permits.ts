import type { BreakerState, HalfOpenState } from './states.js';

// What a call holds while it runs, and how it gives it back or uses it up. Only HALF_OPEN hands
// out permits that count (its trial permits); the other states permit or refuse a call outright.

/**
 * The permit of a call made through the public permission API (`tryAcquirePermission` /
 * `acquirePermission`, then `onSuccess` / `onResult` / `onError` or `releasePermission`). Such
 * permits are counted in the HALF_OPEN state's `apiHeld`, not held by a call.
 */
export const API_PERMIT: unique symbol = Symbol('permit of the public permission API');

/**
 * What a call holds while it runs: the HALF_OPEN state object that handed a call of `execute` its
 * trial permit, {@link API_PERMIT}, or `null` (no permit to give back: CLOSED, DISABLED,
 * METRICS_ONLY).
 */
export type Permit = HalfOpenState | typeof API_PERMIT | null;

/**
 * Gives back the permit of a call that is not recorded into `state` (the current one), at most
 * once per call: a call of `execute` only into the HALF_OPEN that handed it out (a later one has
 * fresh permits of its own), a permit of the public API only while one is counted in `apiHeld`.
 */
export function releasePermit(state: BreakerState, permit: Permit): void {
  if (permit === null) return;
  if (permit === API_PERMIT) {
    if (state.kind === 'HALF_OPEN' && state.apiHeld > 0) {
      state.apiHeld--;
      state.available++;
    }
  } else if (permit === state) permit.available++;
}

/** A call is recorded: a permit of the public API is used up (a permit of `execute` simply stays taken). */
export function consumePermit(state: BreakerState, permit: Permit): void {
  if (permit !== API_PERMIT) return;
  if (state.kind === 'HALF_OPEN' && state.apiHeld > 0) state.apiHeld--;
}
