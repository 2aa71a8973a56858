import { ConfigReader, type Clock, type Duration, type ExecuteOptions, type Outcome } from '@breakwater/core';
import { describeValue, enterCall } from '@breakwater/core/internal';

/**
 * What a decorated call ended with, as `drainPermissionsOnResult` sees it.
 *
 * @deprecated The same type as `Outcome` of `@breakwater/core` (under its old name here): use that.
 *
 * @example
 * ```ts
 * const tooMany = (o: Outcome) => 'error' in o && (o.error as { status?: number }).status === 429;
 * ```
 */
export type CallOutcome = Outcome;

/**
 * Options of a {@link RateLimiter}. Durations are ms or strings like `'500ms'`, `'1s'`.
 *
 * @example
 * ```ts
 * const config: RateLimiterConfig = { limitForPeriod: 10, limitRefreshPeriod: '1s', timeoutDuration: 0 };
 * ```
 */
export interface RateLimiterConfig {
  /** Permissions per cycle; integer >= 1. Default 50. */
  readonly limitForPeriod?: number | undefined;
  /** Length of a cycle; finite, > 0. Default 500 ms. */
  readonly limitRefreshPeriod?: Duration | undefined;
  /** Longest a caller may wait for its permits; >= 0 (`Infinity`: no limit). Default 5000 ms. */
  readonly timeoutDuration?: Duration | undefined;
  /** Runs after each decorated call; `true` drains the permissions left in the cycle. */
  readonly drainPermissionsOnResult?: ((outcome: Outcome) => boolean) | undefined;
  /** `false`: `RequestNotPermittedError` carries no stack (cheaper rejections). Default true. */
  readonly writableStackTraceEnabled?: boolean | undefined;
  /** Source of time and timers. Default `systemClock`. */
  readonly clock?: Clock | undefined;
}

/**
 * Every option of a {@link RateLimiter} once checked: what was given or its default, durations in
 * ms (what `limiter.config` reads back).
 *
 * @example
 * ```ts
 * const { limitForPeriod, limitRefreshPeriod, timeoutDuration }: ResolvedRateLimiterConfig = limiter.config;
 * ```
 */
export interface ResolvedRateLimiterConfig {
  readonly limitForPeriod: number;
  readonly limitRefreshPeriod: number;
  readonly timeoutDuration: number;
  readonly drainPermissionsOnResult: ((outcome: Outcome) => boolean) | undefined;
  readonly writableStackTraceEnabled: boolean;
  readonly clock: Clock;
}

const KEYS = ['limitForPeriod', 'limitRefreshPeriod', 'timeoutDuration', 'drainPermissionsOnResult', 'writableStackTraceEnabled', 'clock'] as const;

/**
 * Every option of a RateLimiter, by name: what its config accepts (tools such as `fromConfig` derive
 * their key tables from it, so an option added here cannot be dropped by them silently).
 *
 * @example
 * ```ts
 * RATE_LIMITER_OPTIONS.includes('limitForPeriod'); // true
 * ```
 */
export const RATE_LIMITER_OPTIONS = KEYS;

/** Checks and resolves a rate limiter's options; throws naming the limiter, option and value. */
export function resolveRateLimiterConfig(name: string, config: RateLimiterConfig | undefined): ResolvedRateLimiterConfig {
  const read = new ConfigReader<RateLimiterConfig>('RateLimiter', name, config, KEYS);
  const limitRefreshPeriod = read.duration('limitRefreshPeriod', 500, { gt: 0 });
  if (!Number.isFinite(limitRefreshPeriod)) read.fail('limitRefreshPeriod', 'a finite duration > 0', config?.limitRefreshPeriod);
  return {
    limitForPeriod: read.number('limitForPeriod', 50, { integer: true, gte: 1 }),
    limitRefreshPeriod,
    timeoutDuration: read.duration('timeoutDuration', 5000, { gte: 0 }),
    drainPermissionsOnResult: read.fn<(outcome: Outcome) => boolean>('drainPermissionsOnResult'),
    writableStackTraceEnabled: read.boolean('writableStackTraceEnabled', true),
    clock: read.clock(),
  };
}

/** Checks a value given at run time (`changeLimitForPeriod`, `changeTimeoutDuration`). */
export function resolveRateLimiterChange<K extends 'limitForPeriod' | 'timeoutDuration'>(name: string, key: K, value: unknown): number {
  const read = new ConfigReader<RateLimiterConfig>('RateLimiter', name, { [key]: value }, KEYS);
  if (value === undefined) read.fail(key, key === 'limitForPeriod' ? 'an integer >= 1' : 'a duration >= 0', value, 'type');
  return key === 'limitForPeriod' ? read.number('limitForPeriod', 0, { integer: true, gte: 1 }) : read.duration('timeoutDuration', 0, { gte: 0 });
}

/**
 * Checks a number of permits given at run time; `what` names the argument in the message
 * (`acquirePermission(permits)`, `withPermits(permits)`), `source` the limiter. Exported for
 * limiters kept elsewhere (`@breakwater/redis`), so every limiter words the error alike.
 *
 * @example
 * ```ts
 * checkPermits(`RateLimiter 'pg'`, 'withPermits(permits)', 0); // RangeError: … must be an integer >= 1, got 0
 * ```
 */
export function checkPermits(source: string, what: string, permits: number): void {
  if (permits === 1) return;
  if (typeof permits !== 'number') {
    throw new TypeError(`${source}: ${what} must be a number, got ${describeValue(permits)}`);
  }
  if (!Number.isSafeInteger(permits) || permits < 1) {
    const range = permits > Number.MAX_SAFE_INTEGER ? `an integer in [1, ${Number.MAX_SAFE_INTEGER}]` : 'an integer >= 1';
    throw new RangeError(`${source}: ${what} must be ${range}, got ${String(permits)}`);
  }
}

/**
 * `acquirePermission(permits, options)`'s arguments: the caller's signal, or the rejection to
 * return (a bad `permits`, bad `options`, a signal already aborted). Never throws.
 */
export function acquireSignal(source: string, permits: number, options: ExecuteOptions | null | undefined): AbortSignal | Promise<never> {
  try {
    checkPermits(source, 'acquirePermission(permits)', permits);
  } catch (error) {
    return Promise.reject(error);
  }
  const ctx = enterCall(options);
  return ctx instanceof Promise ? ctx : ctx.signal;
}
