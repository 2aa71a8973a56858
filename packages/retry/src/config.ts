import { CallNotPermittedError, ConfigReader, errorMatcher, type Clock, type Duration, type ErrorClass, type ErrorPredicate } from '@breakwater/core';
import type { IntervalBiFunction, IntervalFunction } from './interval-function.js';
import { RetryBudget } from './retry-budget.js';

/**
 * Options of a {@link Retry}. `waitDuration`, `intervalFunction` and `intervalBiFunction` are
 * three ways of giving the wait: give one of them at most.
 *
 * @example
 * ```ts
 * const config: RetryConfig = {
 *   maxAttempts: 4,
 *   intervalFunction: IntervalFunction.ofExponentialBackoff(200, 2, 2000),
 *   retryExceptions: [TimeoutError],
 *   retryOnResult: (r: Response) => r.status === 503,
 * };
 * ```
 */
export interface RetryConfig {
  /** Attempts in all, the first call included. Default 3; an integer >= 1. */
  readonly maxAttempts?: number | undefined;
  /** A constant wait between attempts. Default 500 ms; >= 0. */
  readonly waitDuration?: Duration | undefined;
  /** The wait after failed attempt n: `(n, state) => ms`. */
  readonly intervalFunction?: IntervalFunction | undefined;
  /** The wait after failed attempt n, knowing its outcome: `(n, {error} | {result}, state) => ms`. */
  readonly intervalBiFunction?: IntervalBiFunction | undefined;
  /** Errors to retry, by class (is-a); OR-ed with `retryOnException`. Default: retry every error. */
  readonly retryExceptions?: readonly ErrorClass[] | undefined;
  /** Errors to retry, by predicate; OR-ed with `retryExceptions`. */
  readonly retryOnException?: ErrorPredicate | undefined;
  /** Errors never retried, by class (is-a); wins over the two above. */
  readonly ignoreExceptions?: readonly ErrorClass[] | undefined;
  /** Retry an attempt that resolved with a value this predicate accepts. */
  // biome-ignore lint/suspicious/noExplicitAny: the caller annotates the result as it likes (`(r: Response) => …`); unknown would refuse that
  readonly retryOnResult?: ((result: any) => boolean) | undefined;
  /** When the value is still to be retried after the last attempt: reject with `MaxRetriesExceededError` (true) or return it (false, the default). */
  readonly failAfterMaxAttempts?: boolean | undefined;
  /** Called with a value about to be retried, before the wait (e.g. to release a response body). */
  // biome-ignore lint/suspicious/noExplicitAny: the caller annotates the result as it likes (`(n, r: Response) => …`)
  readonly consumeResultBeforeRetryAttempt?: ((attempt: number, result: any) => void) | undefined;
  /** Retry a `CallNotPermittedError` (an open breaker inside the retry). Default false (differs from Resilience4j). */
  readonly retryCallNotPermitted?: boolean | undefined;
  /** A budget shared with other retries: a retry is taken only while it allows one. */
  readonly budget?: RetryBudget | undefined;
  /** The clock of the waits. Default `systemClock`. */
  readonly clock?: Clock | undefined;
  /** The random source handed to interval functions (`state.random`). Default `Math.random`. */
  readonly random?: (() => number) | undefined;
}

/**
 * A {@link RetryConfig} with every default applied and durations in ms.
 *
 * @example
 * ```ts
 * new Retry('pg', { waitDuration: '1s' }).config.waitDuration; // 1000
 * ```
 */
export interface ResolvedRetryConfig {
  readonly maxAttempts: number;
  readonly waitDuration: number;
  readonly intervalFunction: IntervalFunction | undefined;
  readonly intervalBiFunction: IntervalBiFunction | undefined;
  readonly retryExceptions: readonly ErrorClass[];
  readonly retryOnException: ErrorPredicate | undefined;
  readonly ignoreExceptions: readonly ErrorClass[];
  // biome-ignore lint/suspicious/noExplicitAny: as RetryConfig's retryOnResult
  readonly retryOnResult: ((result: any) => boolean) | undefined;
  readonly failAfterMaxAttempts: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: as RetryConfig's consumeResultBeforeRetryAttempt
  readonly consumeResultBeforeRetryAttempt: ((attempt: number, result: any) => void) | undefined;
  readonly retryCallNotPermitted: boolean;
  readonly budget: RetryBudget | undefined;
  readonly clock: Clock;
  readonly random: () => number;
  /** Whether an error is to be retried (ignore > call-not-permitted rule > retry classes/predicate). */
  readonly isRetryable: ErrorPredicate;
}

const KEYS = [
  'maxAttempts',
  'waitDuration',
  'intervalFunction',
  'intervalBiFunction',
  'retryExceptions',
  'retryOnException',
  'ignoreExceptions',
  'retryOnResult',
  'failAfterMaxAttempts',
  'consumeResultBeforeRetryAttempt',
  'retryCallNotPermitted',
  'budget',
  'clock',
  'random',
] as const;

/**
 * Every option of a Retry, by name: what its config accepts (tools such as `fromConfig` derive
 * their key tables from it, so an option added here cannot be dropped by them silently).
 *
 * @example
 * ```ts
 * RETRY_OPTIONS.includes('maxAttempts'); // true
 * ```
 */
export const RETRY_OPTIONS = KEYS;

/** Checks the options once, with messages naming the retry, the option and the value. */
export function resolveRetryConfig(name: string, config: RetryConfig | undefined): ResolvedRetryConfig {
  const read = new ConfigReader<RetryConfig>('Retry', name, config, [...KEYS]);
  read.exclusive('waitDuration', 'intervalFunction');
  read.exclusive('waitDuration', 'intervalBiFunction');
  read.exclusive('intervalFunction', 'intervalBiFunction');
  const retryExceptions = read.classes<ErrorClass>('retryExceptions') ?? [];
  const retryOnException = read.fn<ErrorPredicate>('retryOnException');
  const ignoreExceptions = read.classes<ErrorClass>('ignoreExceptions') ?? [];
  const retryCallNotPermitted = read.boolean('retryCallNotPermitted', false);
  const retries = errorMatcher(retryExceptions, retryOnException, true);
  const ignores = errorMatcher(ignoreExceptions, undefined, false);
  const isRetryable: ErrorPredicate = retryCallNotPermitted
    ? (error) => !ignores(error) && retries(error)
    : (error) => !ignores(error) && !(error instanceof CallNotPermittedError) && retries(error);
  const waitDuration = read.duration('waitDuration', 500, { gte: 0 });
  if (waitDuration === Infinity) read.fail('waitDuration', 'a finite duration >= 0', waitDuration);
  return Object.freeze({
    maxAttempts: read.number('maxAttempts', 3, { integer: true, gte: 1 }),
    waitDuration,
    intervalFunction: read.fn<IntervalFunction>('intervalFunction'),
    intervalBiFunction: read.fn<IntervalBiFunction>('intervalBiFunction'),
    retryExceptions,
    retryOnException,
    ignoreExceptions,
    retryOnResult: read.fn<(result: unknown) => boolean>('retryOnResult'),
    failAfterMaxAttempts: read.boolean('failAfterMaxAttempts', false),
    consumeResultBeforeRetryAttempt: read.fn<(attempt: number, result: unknown) => void>('consumeResultBeforeRetryAttempt'),
    retryCallNotPermitted,
    budget: read.instance<RetryBudget>('budget', 'a RetryBudget', (v) => v instanceof RetryBudget),
    clock: read.clock(),
    random: read.fn<() => number>('random') ?? Math.random,
    isRetryable,
  });
}
