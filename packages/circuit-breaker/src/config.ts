import { ConfigReader, errorMatcher, type Clock, type Duration, type ErrorClass, type ErrorPredicate } from '@breakwater/core';
import { callbackThrew, describeValue, warnOnce } from '@breakwater/core/internal';
import type { WindowSettings } from './metrics.js';
import { STATES, type CircuitBreakerStateName } from './states.js';

/**
 * The options of a {@link CircuitBreaker}. Every one is optional; defaults are Resilience4j's.
 *
 * @example
 * ```ts
 * const config: CircuitBreakerConfig = {
 *   slidingWindowSize: 20, minimumNumberOfCalls: 10, failureRateThreshold: 60,
 *   slowCallDurationThreshold: '100ms', slowCallRateThreshold: 50, waitDurationInOpenState: '10s',
 *   permittedNumberOfCallsInHalfOpenState: 5,
 * };
 * ```
 */
export interface CircuitBreakerConfig {
  /** Percentage of failed calls at which CLOSED opens (`>=`). Default 50, in (0, 100]. */
  readonly failureRateThreshold?: number | undefined;
  /** Percentage of slow calls at which CLOSED opens (`>=`). Default 100, in (0, 100]. */
  readonly slowCallRateThreshold?: number | undefined;
  /** A call longer than this (`>`) is slow. Default 60 000 ms, > 0. */
  readonly slowCallDurationThreshold?: Duration | undefined;
  /** Default `'COUNT_BASED'`. */
  readonly slidingWindowType?: 'COUNT_BASED' | 'TIME_BASED' | undefined;
  /** Calls (COUNT_BASED) or seconds (TIME_BASED). Default 100, integer in [1, 1 000 000]. */
  readonly slidingWindowSize?: number | undefined;
  /** Calls before the rates are trusted. Default 100, integer in [1, 1 000 000]. */
  readonly minimumNumberOfCalls?: number | undefined;
  /** Trial calls in HALF_OPEN. Default 10, integer in [1, 1 000 000]. */
  readonly permittedNumberOfCallsInHalfOpenState?: number | undefined;
  /** How long OPEN refuses calls. Default 60 000 ms, >= 1. Exclusive with `waitIntervalFunctionInOpenState`. */
  readonly waitDurationInOpenState?: Duration | undefined;
  /**
   * The wait in OPEN by opening attempt (1 on the first opening, +1 on each HALF_OPEN → OPEN).
   * Attempt 1 must give a finite wait >= 1 ms (checked at construction). A later call that throws
   * or gives anything else (NaN, Infinity, < 1, not a number) keeps the previous wait, and is
   * reported once through `process.emitWarning`.
   */
  readonly waitIntervalFunctionInOpenState?: ((attempt: number) => number) | undefined;
  /** A timer moves OPEN to HALF_OPEN at the deadline (otherwise the next call does). Default false. */
  readonly automaticTransitionFromOpenToHalfOpenEnabled?: boolean | undefined;
  /** After this long in HALF_OPEN, go to `transitionToStateAfterWaitDuration`. Default 0 (off), >= 0. */
  readonly maxWaitDurationInHalfOpenState?: Duration | undefined;
  /** Where `maxWaitDurationInHalfOpenState` leads. Default `'OPEN'`. */
  readonly transitionToStateAfterWaitDuration?: 'OPEN' | 'CLOSED' | undefined;
  /** Errors (is-a) recorded as failures; OR-ed with `recordException`. Default: every error. */
  readonly recordExceptions?: readonly ErrorClass[] | undefined;
  /** A predicate for errors recorded as failures; OR-ed with `recordExceptions`. */
  readonly recordException?: ErrorPredicate | undefined;
  /** Errors (is-a) neither recorded nor counted; OR-ed with `ignoreException`. Win over record. */
  readonly ignoreExceptions?: readonly ErrorClass[] | undefined;
  /** A predicate for ignored errors; OR-ed with `ignoreExceptions`. */
  readonly ignoreException?: ErrorPredicate | undefined;
  /**
   * A resolved value for which this returns true is recorded as a failure (the caller still gets
   * it). Never asked about `null` or `undefined` (as in Resilience4j): a call that resolves nothing
   * is a success, so `(r) => r.status >= 500` needs no null check.
   */
  readonly recordResult?: ((value: unknown) => boolean) | undefined;
  /** The state the breaker starts in. Default `'CLOSED'`. */
  readonly initialState?: CircuitBreakerStateName | undefined;
  /** When false, `CallNotPermittedError` carries no stack (cheap rejections). Default true. */
  readonly writableStackTraceEnabled?: boolean | undefined;
  /**
   * Resilience4j's name: when true, `health()` (`@breakwater/observe`) shows this breaker OPEN or
   * FORCED_OPEN as `DOWN`, which makes the whole snapshot `DOWN` (HTTP 503 for a readiness probe).
   * Default false: it is `CIRCUIT_OPEN` and the snapshot `DEGRADED`. Changes nothing else.
   */
  readonly allowHealthIndicatorToFail?: boolean | undefined;
  /** Default `systemClock`. */
  readonly clock?: Clock | undefined;
}

/**
 * The options, checked and with every default applied: what a breaker runs on.
 *
 * @example
 * ```ts
 * breaker.config.slowCallDurationThreshold; // 100, from '100ms'
 * breaker.config.waitInOpenState(2);         // the wait of the second opening
 * ```
 */
export interface ResolvedCircuitBreakerConfig extends WindowSettings {
  readonly slowCallDurationThreshold: number;
  readonly permittedNumberOfCallsInHalfOpenState: number;
  /** In ms; `undefined` when `waitIntervalFunctionInOpenState` was given instead. */
  readonly waitDurationInOpenState: number | undefined;
  /** The function given, if any. */
  readonly waitIntervalFunctionInOpenState: ((attempt: number) => number) | undefined;
  /** The wait of an opening attempt, whichever option gave it (a wait function's bad result already replaced). */
  readonly waitInOpenState: (attempt: number) => number;
  readonly automaticTransitionFromOpenToHalfOpenEnabled: boolean;
  readonly maxWaitDurationInHalfOpenState: number;
  readonly transitionToStateAfterWaitDuration: 'OPEN' | 'CLOSED';
  /** A copy of the classes given (empty: the default, record every error). */
  readonly recordExceptions: readonly ErrorClass[];
  readonly recordException: ErrorPredicate | undefined;
  /** A copy of the classes given (empty: the default, ignore none). */
  readonly ignoreExceptions: readonly ErrorClass[];
  readonly ignoreException: ErrorPredicate | undefined;
  /** `recordExceptions` and `recordException` OR-ed (every error when neither is given). */
  readonly isRecorded: ErrorPredicate;
  /** `ignoreExceptions` and `ignoreException` OR-ed (no error when neither is given). */
  readonly isIgnored: ErrorPredicate;
  readonly recordResult: ((value: unknown) => boolean) | undefined;
  readonly initialState: CircuitBreakerStateName;
  readonly writableStackTraceEnabled: boolean;
  readonly allowHealthIndicatorToFail: boolean;
  readonly clock: Clock;
}

const KEYS = [
  'failureRateThreshold',
  'slowCallRateThreshold',
  'slowCallDurationThreshold',
  'slidingWindowType',
  'slidingWindowSize',
  'minimumNumberOfCalls',
  'permittedNumberOfCallsInHalfOpenState',
  'waitDurationInOpenState',
  'waitIntervalFunctionInOpenState',
  'automaticTransitionFromOpenToHalfOpenEnabled',
  'maxWaitDurationInHalfOpenState',
  'transitionToStateAfterWaitDuration',
  'recordExceptions',
  'recordException',
  'ignoreExceptions',
  'ignoreException',
  'recordResult',
  'initialState',
  'writableStackTraceEnabled',
  'allowHealthIndicatorToFail',
  'clock',
] as const satisfies readonly (keyof CircuitBreakerConfig)[];

/**
 * Every option of a CircuitBreaker, by name: what its config accepts (tools such as `fromConfig` derive
 * their key tables from it, so an option added here cannot be dropped by them silently).
 *
 * @example
 * ```ts
 * CIRCUIT_BREAKER_OPTIONS.includes('slidingWindowSize'); // true
 * ```
 */
export const CIRCUIT_BREAKER_OPTIONS = KEYS;

const PERCENT = { gt: 0, lte: 100 } as const;
/**
 * The sizes that size memory (a window of `slidingWindowSize` bytes or buckets, a half-open window
 * of `permittedNumberOfCallsInHalfOpenState` bytes on each HALF_OPEN) are bounded, so a
 * valid-looking config can never allocate gigabytes or crash from a timer later.
 */
export const MAX_SIZE = 1_000_000;
const COUNT = { integer: true, gte: 1, lte: MAX_SIZE } as const;

/** Checks every option once and applies the defaults; bad input throws naming breaker, option and value. */
export function resolveCircuitBreakerConfig(name: string, config: CircuitBreakerConfig | undefined): ResolvedCircuitBreakerConfig {
  const read = new ConfigReader<CircuitBreakerConfig>('CircuitBreaker', name, config, KEYS);
  read.exclusive('waitDurationInOpenState', 'waitIntervalFunctionInOpenState');
  const waitFunction = read.fn<(attempt: number) => number>('waitIntervalFunctionInOpenState');
  const waitDuration = waitFunction === undefined ? read.duration('waitDurationInOpenState', 60_000, { gte: 1 }) : undefined;
  const recordExceptions = Object.freeze([...(read.classes<ErrorClass>('recordExceptions') ?? [])]);
  const recordException = read.fn<ErrorPredicate>('recordException');
  const ignoreExceptions = Object.freeze([...(read.classes<ErrorClass>('ignoreExceptions') ?? [])]);
  const ignoreException = read.fn<ErrorPredicate>('ignoreException');
  return {
    failureRateThreshold: read.number('failureRateThreshold', 50, PERCENT),
    slowCallRateThreshold: read.number('slowCallRateThreshold', 100, PERCENT),
    slowCallDurationThreshold: read.duration('slowCallDurationThreshold', 60_000, { gt: 0 }),
    slidingWindowType: read.oneOf('slidingWindowType', 'COUNT_BASED', ['COUNT_BASED', 'TIME_BASED']),
    slidingWindowSize: read.number('slidingWindowSize', 100, COUNT),
    minimumNumberOfCalls: read.number('minimumNumberOfCalls', 100, COUNT),
    permittedNumberOfCallsInHalfOpenState: read.number('permittedNumberOfCallsInHalfOpenState', 10, COUNT),
    waitDurationInOpenState: waitDuration,
    waitIntervalFunctionInOpenState: waitFunction,
    waitInOpenState: waitFunction === undefined ? () => waitDuration! : containedWait(read, waitFunction),
    automaticTransitionFromOpenToHalfOpenEnabled: read.boolean('automaticTransitionFromOpenToHalfOpenEnabled', false),
    maxWaitDurationInHalfOpenState: read.duration('maxWaitDurationInHalfOpenState', 0, { gte: 0 }),
    transitionToStateAfterWaitDuration: read.oneOf('transitionToStateAfterWaitDuration', 'OPEN', ['OPEN', 'CLOSED']),
    recordExceptions,
    recordException,
    ignoreExceptions,
    ignoreException,
    isRecorded: errorMatcher(recordExceptions, recordException, true),
    isIgnored: errorMatcher(ignoreExceptions, ignoreException, false),
    recordResult: read.fn('recordResult'),
    initialState: read.oneOf('initialState', 'CLOSED', STATES),
    writableStackTraceEnabled: read.boolean('writableStackTraceEnabled', true),
    allowHealthIndicatorToFail: read.boolean('allowHealthIndicatorToFail', false),
    clock: read.clock(),
  };
}

/** A wait that can be armed on a timer: a finite number of ms, at least 1. */
function isWait(ms: unknown): ms is number {
  return typeof ms === 'number' && ms >= 1 && ms < Infinity;
}

/**
 * The wait function, checked on attempt 1 at construction (a throw or a bad wait is refused
 * there), then contained: a later throw or bad result never reaches the breaker (it may run from a
 * timer); the previous good wait is used instead, and the first such problem is reported once.
 * Infinity counts as bad (a breaker that never leaves OPEN on its own is FORCED_OPEN's job).
 */
function containedWait(read: ConfigReader<CircuitBreakerConfig>, waitFunction: (attempt: number) => number): (attempt: number) => number {
  let first: unknown;
  try {
    first = waitFunction(1);
  } catch (error) {
    throw new TypeError(`${read.source}: waitIntervalFunctionInOpenState threw for attempt 1: ${describeThrownShort(error)}`, { cause: error });
  }
  if (!isWait(first)) read.fail('waitIntervalFunctionInOpenState', 'a function returning a finite wait in ms >= 1 (it returned this for attempt 1)', first);
  let previous = first;
  const source = read.source;
  return (attempt) => {
    let ms: unknown;
    try {
      ms = waitFunction(attempt);
    } catch (error) {
      callbackThrew(source, 'waitIntervalFunctionInOpenState', waitFunction, error, `the breaker keeps its previous wait, ${previous} ms`);
      return previous;
    }
    if (isWait(ms)) return (previous = ms);
    warnOnce(
      waitFunction,
      `${source}: waitIntervalFunctionInOpenState returned ${describeValue(ms)} for attempt ${attempt}, not a finite wait in ms >= 1; the breaker keeps its previous wait, ${previous} ms (reported once)`,
      'BreakwaterCallbackWarning',
    );
    return previous;
  };
}

/** A thrown value on one line, for a construction error's message (core's `describeThrown` gives the whole stack). */
function describeThrownShort(error: unknown): string {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    return 'a value that cannot be printed';
  }
}
