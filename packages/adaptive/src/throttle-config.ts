import { ConfigReader, type Clock, type Duration } from '@breakwater/core';

/**
 * Options of an {@link AdaptiveThrottle}.
 *
 * @example
 * ```ts
 * const config: AdaptiveThrottleConfig = { k: 2, window: '2m', maxRejectRatio: 0.9, isDrop: (e) => e instanceof HttpError && e.status >= 500 };
 * ```
 */
export interface AdaptiveThrottleConfig {
  /** How many requests per accept the backend is given before the throttle rejects locally; >= 1 (lower: more aggressive). Default 2 (Google SRE's). */
  readonly k?: number | undefined;
  /** The sliding window the counts cover (20 buckets); a finite duration >= 20 ms. Default `'2m'`. */
  readonly window?: Duration | undefined;
  /** The highest probability of a local rejection; in [0, 1] (0 never rejects). Default 0.9 (failsafe-go's): one request in ten still reaches the backend, so recovery is seen. */
  readonly maxRejectRatio?: number | undefined;
  /** Which errors were the backend refusing a request (not accepted). Default: every error (as failsafe-go's throttler). */
  readonly isDrop?: ((error: unknown) => boolean) | undefined;
  /** Random numbers in [0, 1) for the rejection draw. Default `Math.random` (seed one in tests). */
  readonly random?: (() => number) | undefined;
  /** `false`: `RequestNotPermittedError` carries no stack (cheaper rejections). Default true. */
  readonly writableStackTraceEnabled?: boolean | undefined;
  /** Source of time. Default `systemClock`. */
  readonly clock?: Clock | undefined;
}

/**
 * Every option of an {@link AdaptiveThrottle} once checked (what `throttle.config` reads back): the
 * window in ms, `isDrop` and `random` as given or their defaults.
 *
 * @example
 * ```ts
 * const { k, window, maxRejectRatio }: ResolvedAdaptiveThrottleConfig = throttle.config;
 * ```
 */
export interface ResolvedAdaptiveThrottleConfig {
  readonly k: number;
  readonly window: number;
  readonly maxRejectRatio: number;
  readonly isDrop: (error: unknown) => boolean;
  readonly random: () => number;
  readonly writableStackTraceEnabled: boolean;
  readonly clock: Clock;
}

const KEYS = ['k', 'window', 'maxRejectRatio', 'isDrop', 'random', 'writableStackTraceEnabled', 'clock'] as const;

/**
 * Every option of an AdaptiveThrottle, by name: what its config accepts (tools such as
 * `fromConfig` derive their key tables from it).
 *
 * @example
 * ```ts
 * ADAPTIVE_THROTTLE_OPTIONS.includes('maxRejectRatio'); // true
 * ```
 */
export const ADAPTIVE_THROTTLE_OPTIONS = KEYS;

/**
 * The default `isDrop` of a throttle: every error is a request the backend did not accept.
 *
 * @example
 * ```ts
 * everyErrorIsADrop(new Error('503')); // true
 * ```
 */
export const everyErrorIsADrop = (_error: unknown): boolean => true;

/** Checks a throttle's options; throws naming the throttle, the option and the value. */
export function resolveAdaptiveThrottleConfig(name: string, config: AdaptiveThrottleConfig | undefined): ResolvedAdaptiveThrottleConfig {
  const read = new ConfigReader<AdaptiveThrottleConfig>('AdaptiveThrottle', name, config, KEYS);
  const k = read.number('k', 2, { gte: 1 });
  if (k === Infinity) read.fail('k', 'a finite number >= 1', k);
  const window = read.duration('window', 120_000, { gte: 20 });
  if (!Number.isFinite(window)) read.fail('window', 'a finite duration >= 20 ms', config?.window);
  return {
    k,
    window,
    maxRejectRatio: read.number('maxRejectRatio', 0.9, { gte: 0, lte: 1 }),
    isDrop: read.fn<(error: unknown) => boolean>('isDrop') ?? everyErrorIsADrop,
    random: read.fn<() => number>('random') ?? Math.random,
    writableStackTraceEnabled: read.boolean('writableStackTraceEnabled', true),
    clock: read.clock(),
  };
}
