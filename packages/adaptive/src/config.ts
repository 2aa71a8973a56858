import { ConfigReader, type Clock, type Duration } from '@breakwater/core';
import { isPlainObject } from '@breakwater/core/internal';
import type { LimitAlgorithm } from './limit/algorithm.js';
import { isLimitAlgorithm, namedAlgorithm, windowAlgorithm, type AlgorithmName, type WindowOptions } from './named-algorithms.js';
import { checkPartitions } from './partitions.js';

/**
 * Options of an {@link AdaptiveLimiter}. Durations are ms or strings like `'50ms'`.
 *
 * @example
 * ```ts
 * const config: AdaptiveLimiterConfig = { algorithm: 'vegas', maxLimit: 200, maxWaitDuration: '50ms', queue: 'lifo' };
 * ```
 */
export interface AdaptiveLimiterConfig {
  /** `'vegas'`, `'aimd'`, `'gradient2'`, or a {@link LimitAlgorithm} of your own. Default `'vegas'` (Netflix's default). */
  readonly algorithm?: AlgorithmName | LimitAlgorithm | undefined;
  /** The limit to start with (a named algorithm only); integer >= 1. Default: the algorithm's (20). */
  readonly initialLimit?: number | undefined;
  /** The lowest limit (a named algorithm only); integer >= 1. Default: the algorithm's. */
  readonly minLimit?: number | undefined;
  /** The highest limit (a named algorithm only); integer >= 1. Default: the algorithm's. */
  readonly maxLimit?: number | undefined;
  /** How samples are gathered into windows (`windowed()`'s options), or `false` to feed every call's sample straight to the algorithm. Default `{}` (Netflix's `WindowedLimit` defaults). */
  readonly window?: WindowOptions | false | undefined;
  /** Longest a call waits for a slot when the limit is reached; >= 0 (0: refuse at once; `Infinity`: no limit). Default 0. */
  readonly maxWaitDuration?: Duration | undefined;
  /** Which waiter gets a freed slot: `'fifo'` (the oldest) or `'lifo'` (the newest: under overload, the caller most likely still waiting). Default `'fifo'`. */
  readonly queue?: 'fifo' | 'lifo' | undefined;
  /** Most calls waiting at once; integer >= 0 (a call beyond is refused at once; `Infinity`: no bound). Default 100 (Netflix's LIFO backlog). */
  readonly maxQueue?: number | undefined;
  /** Guaranteed shares of the limit by partition name, each in (0, 1], summing to at most 1: `{ critical: 0.7, batch: 0.3 }`. */
  readonly partitions?: Readonly<Record<string, number>> | undefined;
  /** Which errors tell of an overloaded backend (a drop), besides a `TimeoutError` which always does. Default: none. */
  readonly isDrop?: ((error: unknown) => boolean) | undefined;
  /** `false`: `RequestNotPermittedError` carries no stack (cheaper rejections). Default true. */
  readonly writableStackTraceEnabled?: boolean | undefined;
  /** Source of time and timers. Default `systemClock`. */
  readonly clock?: Clock | undefined;
}

/**
 * Every option of an {@link AdaptiveLimiter} once checked (what `limiter.config` reads back):
 * `algorithm` is the algorithm the limiter feeds (a named one built, and wrapped in `windowed()`
 * unless `window: false`).
 *
 * @example
 * ```ts
 * const { algorithm, maxWaitDuration, queue }: ResolvedAdaptiveLimiterConfig = limiter.config;
 * console.log(algorithm.name, algorithm.limit);
 * ```
 */
export interface ResolvedAdaptiveLimiterConfig {
  readonly algorithm: LimitAlgorithm;
  readonly maxWaitDuration: number;
  readonly queue: 'fifo' | 'lifo';
  readonly maxQueue: number;
  readonly partitions: Readonly<Record<string, number>>;
  readonly isDrop: ((error: unknown) => boolean) | undefined;
  readonly writableStackTraceEnabled: boolean;
  readonly clock: Clock;
}

const KEYS = [
  'algorithm',
  'initialLimit',
  'minLimit',
  'maxLimit',
  'window',
  'maxWaitDuration',
  'queue',
  'maxQueue',
  'partitions',
  'isDrop',
  'writableStackTraceEnabled',
  'clock',
] as const;

/**
 * Every option of an AdaptiveLimiter, by name: what its config accepts (tools such as `fromConfig`
 * derive their key tables from it, so an option added here cannot be dropped by them silently).
 *
 * @example
 * ```ts
 * ADAPTIVE_LIMITER_OPTIONS.includes('maxWaitDuration'); // true
 * ```
 */
export const ADAPTIVE_LIMITER_OPTIONS = KEYS;

const ALGORITHMS: readonly AlgorithmName[] = ['vegas', 'aimd', 'gradient2'];

/** Checks an adaptive limiter's options; throws naming the limiter, the option and the value. */
export function resolveAdaptiveLimiterConfig(name: string, config: AdaptiveLimiterConfig | undefined): ResolvedAdaptiveLimiterConfig {
  const read = new ConfigReader<AdaptiveLimiterConfig>('AdaptiveLimiter', name, config, KEYS);
  const given = config?.algorithm;
  const limits = {
    initialLimit: read.has('initialLimit') ? read.number('initialLimit', 0, { integer: true, gte: 1 }) : undefined,
    minLimit: read.has('minLimit') ? read.number('minLimit', 0, { integer: true, gte: 1 }) : undefined,
    maxLimit: read.has('maxLimit') ? read.number('maxLimit', 0, { integer: true, gte: 1 }) : undefined,
  };
  let base: LimitAlgorithm;
  if (given === undefined || typeof given === 'string') {
    const algorithm = read.oneOf<AlgorithmName>('algorithm', 'vegas', ALGORITHMS);
    base = namedAlgorithm(read.source, algorithm, limits);
  } else {
    if (!isLimitAlgorithm(given))
      read.fail('algorithm', `one of ${ALGORITHMS.map((a) => `'${a}'`).join(', ')} or a LimitAlgorithm (name, limit, onSample)`, given, 'type');
    for (const key of ['initialLimit', 'minLimit', 'maxLimit'] as const) {
      if (limits[key] !== undefined) {
        throw new TypeError(`${read.source}: ${key} applies to a named algorithm only (the LimitAlgorithm given has its own limits)`);
      }
    }
    base = given;
  }
  const window = config?.window;
  if (window !== undefined && window !== false && !isPlainObject(window)) read.fail('window', 'an object of window options, or false', window, 'type');
  return {
    algorithm: window === false ? base : windowAlgorithm(read.source, base, window ?? {}),
    maxWaitDuration: read.duration('maxWaitDuration', 0, { gte: 0 }),
    queue: read.oneOf('queue', 'fifo', ['fifo', 'lifo'] as const),
    maxQueue: readMaxQueue(read, config?.maxQueue),
    partitions: checkPartitions(read, config?.partitions),
    isDrop: read.fn<(error: unknown) => boolean>('isDrop'),
    writableStackTraceEnabled: read.boolean('writableStackTraceEnabled', true),
    clock: read.clock(),
  };
}

function readMaxQueue(read: ConfigReader<AdaptiveLimiterConfig>, value: unknown): number {
  if (value === Infinity) return Infinity;
  if (value !== undefined && typeof value === 'number' && !Number.isInteger(value)) read.fail('maxQueue', 'an integer >= 0, or Infinity', value);
  return read.number('maxQueue', 100, { integer: true, gte: 0 });
}
