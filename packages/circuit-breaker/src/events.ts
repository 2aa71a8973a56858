import type { CircuitBreakerStateName } from './states.js';

/**
 * The events of a circuit breaker, by type (each also carries `type`, `name` and `at`).
 *
 * @example
 * ```ts
 * breaker.on('stateTransition', (e) => log(`${e.name}: ${e.from} → ${e.to}`));
 * breaker.on('failureRateExceeded', (e) => log(`failure rate ${e.failureRate}%`));
 * ```
 */
export type CircuitBreakerEvents = {
  /** A call recorded as a success (an error that is not recorded counts as one too). */
  success: { readonly elapsed: number };
  /** A call recorded as a failure (a `recordResult` match carries a `ResultRecordedAsFailureError`). */
  error: { readonly error: unknown; readonly elapsed: number };
  /** An ignored error: not recorded, permission released. */
  ignoredError: { readonly error: unknown; readonly elapsed: number };
  /** A call refused. */
  callNotPermitted: { readonly state: CircuitBreakerStateName };
  /** The state changed (self-transitions publish nothing). */
  stateTransition: { readonly from: CircuitBreakerStateName; readonly to: CircuitBreakerStateName };
  /** `reset()` was called. */
  reset: Record<never, never>;
  /** The failure rate reached its threshold. */
  failureRateExceeded: { readonly failureRate: number };
  /** The slow-call rate reached its threshold. */
  slowCallRateExceeded: { readonly slowCallRate: number };
};

/** Every event type a circuit breaker publishes (`on` refuses any other, with a "did you mean"). */
export const EVENT_TYPES = [
  'success',
  'error',
  'ignoredError',
  'callNotPermitted',
  'stateTransition',
  'reset',
  'failureRateExceeded',
  'slowCallRateExceeded',
] as const satisfies readonly (keyof CircuitBreakerEvents)[];
