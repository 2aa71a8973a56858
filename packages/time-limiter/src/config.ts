import { ConfigReader, type Clock, type Duration } from '@breakwater/core';

/**
 * Options of a {@link TimeLimiter}.
 *
 * @example
 * ```ts
 * const config: TimeLimiterConfig = { timeoutDuration: '600ms', cancelRunningFuture: true };
 * const limiter = new TimeLimiter('pg', config);
 * ```
 */
export interface TimeLimiterConfig {
  /** How long a call may run before it is given up on (ms or `'2s'`). Default 1000; > 0; `Infinity` sets no timer. */
  readonly timeoutDuration?: Duration | undefined;
  /** Abort `ctx.signal` with the `TimeoutError` when the call times out. Default `true`. */
  readonly cancelRunningFuture?: boolean | undefined;
  /** The clock of the timer and of `elapsed`. Default `systemClock`. */
  readonly clock?: Clock | undefined;
}

/**
 * A {@link TimeLimiterConfig} with every default applied and durations in ms.
 *
 * @example
 * ```ts
 * new TimeLimiter('pg', { timeoutDuration: '2s' }).config.timeoutDuration; // 2000
 * ```
 */
export interface ResolvedTimeLimiterConfig {
  readonly timeoutDuration: number;
  readonly cancelRunningFuture: boolean;
  readonly clock: Clock;
}

const KEYS = ['timeoutDuration', 'cancelRunningFuture', 'clock'] as const;

/**
 * Every option of a TimeLimiter, by name: what its config accepts (tools such as `fromConfig` derive
 * their key tables from it, so an option added here cannot be dropped by them silently).
 *
 * @example
 * ```ts
 * TIME_LIMITER_OPTIONS.includes('timeoutDuration'); // true
 * ```
 */
export const TIME_LIMITER_OPTIONS = KEYS;

/** Checks the options once, with messages naming the limiter, the option and the value. */
export function resolveTimeLimiterConfig(name: string, config: TimeLimiterConfig | undefined): ResolvedTimeLimiterConfig {
  const read = new ConfigReader<TimeLimiterConfig>('TimeLimiter', name, config, [...KEYS]);
  return Object.freeze({
    timeoutDuration: read.duration('timeoutDuration', 1000, { gt: 0 }),
    cancelRunningFuture: read.boolean('cancelRunningFuture', true),
    clock: read.clock(),
  });
}
