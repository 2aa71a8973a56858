import type { TimerHandle } from '@breakwater/core';
import type { StateMetrics } from './metrics.js';

/**
 * The six states of a circuit breaker, as in Resilience4j.
 *
 * @example
 * ```ts
 * const state: CircuitBreakerStateName = breaker.state; // 'CLOSED' | 'OPEN' | …
 * ```
 */
export type CircuitBreakerStateName = 'CLOSED' | 'OPEN' | 'HALF_OPEN' | 'DISABLED' | 'FORCED_OPEN' | 'METRICS_ONLY';

/**
 * Every state name, in a fixed order.
 *
 * @example
 * ```ts
 * for (const s of STATES) gauge.set({ state: s }, breaker.state === s ? 1 : 0);
 * ```
 */
export const STATES: readonly CircuitBreakerStateName[] = ['CLOSED', 'OPEN', 'HALF_OPEN', 'DISABLED', 'FORCED_OPEN', 'METRICS_ONLY'];

/**
 * The legal transitions (Resilience4j's `StateTransition`); a self-transition is legal from
 * every state. CLOSED cannot go straight to HALF_OPEN, and METRICS_ONLY never opens on its own
 * nor by hand (it leaves only to CLOSED, DISABLED or FORCED_OPEN).
 */
const LEGAL: Readonly<Record<CircuitBreakerStateName, readonly CircuitBreakerStateName[]>> = {
  CLOSED: ['CLOSED', 'OPEN', 'DISABLED', 'METRICS_ONLY', 'FORCED_OPEN'],
  OPEN: ['OPEN', 'CLOSED', 'HALF_OPEN', 'DISABLED', 'METRICS_ONLY', 'FORCED_OPEN'],
  HALF_OPEN: ['HALF_OPEN', 'CLOSED', 'OPEN', 'DISABLED', 'METRICS_ONLY', 'FORCED_OPEN'],
  DISABLED: ['DISABLED', 'CLOSED', 'OPEN', 'HALF_OPEN', 'METRICS_ONLY', 'FORCED_OPEN'],
  FORCED_OPEN: ['FORCED_OPEN', 'CLOSED', 'OPEN', 'HALF_OPEN', 'DISABLED', 'METRICS_ONLY'],
  METRICS_ONLY: ['METRICS_ONLY', 'CLOSED', 'DISABLED', 'FORCED_OPEN'],
};

/**
 * Whether the state machine allows `from → to`.
 *
 * @example
 * ```ts
 * isLegalTransition('CLOSED', 'HALF_OPEN'); // false
 * isLegalTransition('OPEN', 'HALF_OPEN');   // true
 * ```
 */
export function isLegalTransition(from: CircuitBreakerStateName, to: CircuitBreakerStateName): boolean {
  return LEGAL[from].includes(to);
}

/** CLOSED: permits every call and records it. */
export interface ClosedState {
  readonly kind: 'CLOSED';
  readonly metrics: StateMetrics;
}

/** OPEN: refuses calls until `clock.now() > deadline`. `attempt` is 1 on the first opening. */
export interface OpenState {
  readonly kind: 'OPEN';
  readonly deadline: number;
  readonly attempt: number;
  /** The metrics of the state it opened from, kept visible. */
  readonly metrics: StateMetrics;
  /** The timer of `automaticTransitionFromOpenToHalfOpenEnabled`, if set. */
  timer: TimerHandle | undefined;
}

/**
 * HALF_OPEN: hands out `available` permits and decides on the trial calls. A call of `execute`
 * holds this very object as its permit (so a permit of an earlier HALF_OPEN is never given back to
 * a later one, and each call gives its own back at most once); permits taken through the public
 * `tryAcquirePermission` are counted in `apiHeld`, so `releasePermission` can never give back more
 * than those.
 */
export interface HalfOpenState {
  readonly kind: 'HALF_OPEN';
  readonly attempt: number;
  readonly metrics: StateMetrics;
  /** Permits not yet handed out. */
  available: number;
  /** Permits handed out by `tryAcquirePermission` / `acquirePermission` and neither recorded nor released. */
  apiHeld: number;
  /** When `maxWaitDurationInHalfOpenState` forces it out (a clock time); `Infinity` without that option. */
  readonly deadline: number;
  /** The timer of `maxWaitDurationInHalfOpenState`, if set. */
  timer: TimerHandle | undefined;
}

/** DISABLED: permits every call and records nothing. */
export interface DisabledState {
  readonly kind: 'DISABLED';
  readonly metrics: StateMetrics;
}

/** FORCED_OPEN: refuses every call until a manual transition. */
export interface ForcedOpenState {
  readonly kind: 'FORCED_OPEN';
  readonly attempt: number;
  readonly metrics: StateMetrics;
}

/** METRICS_ONLY: permits and records every call, never transitions on its own. */
export interface MetricsOnlyState {
  readonly kind: 'METRICS_ONLY';
  readonly metrics: StateMetrics;
  /** The rate events already published in this state (each is published once): bit flags. */
  reported: number;
}

/** One object per state, replaced on each transition. */
export type BreakerState = ClosedState | OpenState | HalfOpenState | DisabledState | ForcedOpenState | MetricsOnlyState;
