import type { CircuitBreakerStateName } from './states.js';

/**
 * Why a breaker changed state, carried by every `stateTransition` event:
 * - `'failure_rate'`: CLOSED or HALF_OPEN → OPEN because the failure rate reached its threshold
 *   (also when the slow-call rate reached its own at the same call);
 * - `'slow_call_rate'`: CLOSED or HALF_OPEN → OPEN because only the slow-call rate reached its threshold;
 * - `'half_open_trial'`: HALF_OPEN → CLOSED, the trial calls below both thresholds;
 * - `'wait_elapsed'`: OPEN → HALF_OPEN after the wait (on the first call after it, or by the
 *   automatic timer), and the move forced by `maxWaitDurationInHalfOpenState`;
 * - `'manual'`: every `transitionTo…State()` and `reset()`, wherever it is called from (a listener too);
 * - `'fleet'`: a `transitionTo…State({ cause: 'fleet' })`, what a fleet sync (`RedisBreakerSync`)
 *   does to mirror what other instances decided.
 *
 * METRICS_ONLY never transitions on its own, so its rate events come with no transition.
 *
 * @example
 * ```ts
 * breaker.on('stateTransition', (e) => {
 *   if (e.to === 'OPEN' && e.cause === 'slow_call_rate') log(`${e.name} opened: too many slow calls`);
 * });
 * ```
 */
export type TransitionCause = 'failure_rate' | 'slow_call_rate' | 'half_open_trial' | 'wait_elapsed' | 'manual' | 'fleet';

/**
 * Options of the manual transitions (`transitionToOpenState(options)` …): `cause` is what the
 * `stateTransition` event reports — `'manual'` (the default) for a person or the application,
 * `'fleet'` for a sync that mirrors what other instances decided (`RedisBreakerSync`).
 *
 * @example
 * ```ts
 * breaker.transitionToForcedOpenState({ cause: 'fleet' });
 * ```
 */
export interface TransitionOptions {
  readonly cause?: 'manual' | 'fleet';
}

/** The cause a manual transition reports: `options.cause`, `'manual'` by default; anything else is a `TypeError`. */
export function manualCause(options: TransitionOptions | undefined): 'manual' | 'fleet' {
  const cause = options?.cause;
  if (cause === undefined || cause === 'manual' || cause === 'fleet') return cause ?? 'manual';
  throw new TypeError(`CircuitBreaker transition: option cause must be 'manual' or 'fleet', got ${JSON.stringify(cause)}`);
}

/**
 * Observes every recorded call of a breaker, as `breaker.observeCalls` takes it:
 * `kind` is `'successful'` (SUCCESS or SLOW_SUCCESS, and an error that is not recorded),
 * `'failed'` (ERROR or SLOW_ERROR: a recorded error, a `recordResult` match, a `TimeoutError`) or
 * `'ignored'` (an ignored error, or a call whose caller aborted); `elapsedMs` is the call's
 * measured duration in milliseconds. Called with two plain arguments, no event object: meant for
 * exporters (a histogram's `observe`). A throw is reported once and changes nothing.
 *
 * @example
 * ```ts
 * const observer: CallObserver = (kind, elapsedMs) => histogram.labels(name, kind).observe(elapsedMs / 1000);
 * const stop = breaker.observeCalls(observer);
 * ```
 */
export type CallObserver = (kind: 'successful' | 'failed' | 'ignored', elapsedMs: number) => void;

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
  /** The state changed (self-transitions publish nothing), and why ({@link TransitionCause}). */
  stateTransition: { readonly from: CircuitBreakerStateName; readonly to: CircuitBreakerStateName; readonly cause: TransitionCause };
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
