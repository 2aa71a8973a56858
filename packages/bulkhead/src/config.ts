import { availableParallelism } from 'node:os';
import { ConfigReader, type Clock, type Duration } from '@breakwater/core';
import { describeValue, isPlainObject } from '@breakwater/core/internal';

/**
 * Options of a semaphore {@link Bulkhead}.
 *
 * @example
 * ```ts
 * const config: BulkheadConfig = { maxConcurrentCalls: 10, maxWaitDuration: '50ms' };
 * ```
 */
export interface BulkheadConfig {
  /** Calls allowed at once; integer >= 0 (0 refuses every call). Default 25. */
  readonly maxConcurrentCalls?: number | undefined;
  /** Longest a call waits for a free slot; >= 0 (0: refuse at once; `Infinity`: no limit). Default 0. */
  readonly maxWaitDuration?: Duration | undefined;
  /** `true`: strict FIFO hand-over to waiters; `false`: a newcomer may take a freed slot first. Default true. */
  readonly fairCallHandlingEnabled?: boolean | undefined;
  /** `false`: `BulkheadFullError` carries no stack (cheaper rejections). Default true. */
  readonly writableStackTraceEnabled?: boolean | undefined;
  /** Source of time and timers. Default `systemClock`. */
  readonly clock?: Clock | undefined;
}

/**
 * What {@link Bulkhead.changeConfig} can change at run time.
 *
 * @example
 * ```ts
 * const evening: BulkheadConfigChange = { maxConcurrentCalls: 50, maxWaitDuration: '20ms' };
 * db.changeConfig(evening);
 * ```
 */
export interface BulkheadConfigChange {
  readonly maxConcurrentCalls?: number | undefined;
  readonly maxWaitDuration?: Duration | undefined;
}

/**
 * Every option of a semaphore {@link Bulkhead} once checked: what was given or its default,
 * durations in ms (what `bulkhead.config` reads back).
 *
 * @example
 * ```ts
 * const { maxConcurrentCalls, maxWaitDuration }: ResolvedBulkheadConfig = db.config;
 * ```
 */
export interface ResolvedBulkheadConfig {
  readonly maxConcurrentCalls: number;
  readonly maxWaitDuration: number;
  readonly fairCallHandlingEnabled: boolean;
  readonly writableStackTraceEnabled: boolean;
  readonly clock: Clock;
}

const BULKHEAD_KEYS = ['maxConcurrentCalls', 'maxWaitDuration', 'fairCallHandlingEnabled', 'writableStackTraceEnabled', 'clock'] as const;

/**
 * Every option of a semaphore Bulkhead, by name: what its config accepts (tools such as `fromConfig` derive
 * their key tables from it, so an option added here cannot be dropped by them silently).
 *
 * @example
 * ```ts
 * BULKHEAD_OPTIONS.includes('maxConcurrentCalls'); // true
 * ```
 */
export const BULKHEAD_OPTIONS = BULKHEAD_KEYS;

/** Checks a semaphore bulkhead's options; throws naming the bulkhead, the option and the value. */
export function resolveBulkheadConfig(name: string, config: BulkheadConfig | undefined): ResolvedBulkheadConfig {
  const read = new ConfigReader<BulkheadConfig>('Bulkhead', name, config, BULKHEAD_KEYS);
  return {
    maxConcurrentCalls: read.number('maxConcurrentCalls', 25, { integer: true, gte: 0 }),
    maxWaitDuration: read.duration('maxWaitDuration', 0, { gte: 0 }),
    fairCallHandlingEnabled: read.boolean('fairCallHandlingEnabled', true),
    writableStackTraceEnabled: read.boolean('writableStackTraceEnabled', true),
    clock: read.clock(),
  };
}

/** Checks a run-time change (an object; absent keys keep `current`). */
export function resolveBulkheadConfigChange(
  name: string,
  change: BulkheadConfigChange,
  current: { readonly maxConcurrentCalls: number; readonly maxWaitDuration: number },
): { readonly maxConcurrentCalls: number; readonly maxWaitDuration: number } {
  if (!isPlainObject(change)) {
    throw new TypeError(
      `Bulkhead '${name}': changeConfig(change) must be an object of { maxConcurrentCalls?, maxWaitDuration? }, got ${describeValue(change)}`,
    );
  }
  const read = new ConfigReader<BulkheadConfigChange>('Bulkhead', name, change, ['maxConcurrentCalls', 'maxWaitDuration']);
  return {
    maxConcurrentCalls: read.number('maxConcurrentCalls', current.maxConcurrentCalls, { integer: true, gte: 0 }),
    maxWaitDuration: read.duration('maxWaitDuration', current.maxWaitDuration, { gte: 0 }),
  };
}

/**
 * Options of a {@link PoolBulkhead} (async slots) and of a worker pool.
 *
 * @example
 * ```ts
 * const config: PoolBulkheadConfig = { maxThreadPoolSize: 8, coreThreadPoolSize: 4, queueCapacity: 50 };
 * ```
 */
export interface PoolBulkheadConfig {
  /** Most calls running at once; integer >= 1. Default `os.availableParallelism()`. */
  readonly maxThreadPoolSize?: number | undefined;
  /** Calls that run before any is queued; integer in [1, maxThreadPoolSize]. Default `max(1, maxThreadPoolSize − 1)`. */
  readonly coreThreadPoolSize?: number | undefined;
  /** Calls that may wait for a slot; integer >= 0. Default 100. */
  readonly queueCapacity?: number | undefined;
  /** `false`: `BulkheadFullError` carries no stack (cheaper rejections). Default true. */
  readonly writableStackTraceEnabled?: boolean | undefined;
  /** Source of time (event timestamps). Default `systemClock`. */
  readonly clock?: Clock | undefined;
}

/**
 * A pool's limits, as {@link admit} reads them.
 *
 * @example
 * ```ts
 * const limits: PoolLimits = { coreThreadPoolSize: 2, maxThreadPoolSize: 4, queueCapacity: 10 };
 * ```
 */
export interface PoolLimits {
  readonly coreThreadPoolSize: number;
  readonly maxThreadPoolSize: number;
  readonly queueCapacity: number;
}

/**
 * Every option of a pool bulkhead once checked: what was given or its default (what
 * `pool.config` reads back).
 *
 * @example
 * ```ts
 * const { maxThreadPoolSize, queueCapacity }: ResolvedPoolConfig = pdf.config;
 * ```
 */
export interface ResolvedPoolConfig extends PoolLimits {
  readonly writableStackTraceEnabled: boolean;
  readonly clock: Clock;
}

export const POOL_KEYS = ['maxThreadPoolSize', 'coreThreadPoolSize', 'queueCapacity', 'writableStackTraceEnabled', 'clock'] as const;

/**
 * Every option of a PoolBulkhead, by name: what its config accepts (tools such as `fromConfig` derive
 * their key tables from it, so an option added here cannot be dropped by them silently).
 *
 * @example
 * ```ts
 * POOL_BULKHEAD_OPTIONS.includes('queueCapacity'); // true
 * ```
 */
export const POOL_BULKHEAD_OPTIONS = POOL_KEYS;

/**
 * Options of a pool's `close()`.
 *
 * @example
 * ```ts
 * await pool.close({ timeout: '10s' }); // running tasks get 10 s, then their threads are stopped
 * ```
 */
export interface PoolCloseOptions {
  /**
   * `true`: do not wait for running calls. A worker pool terminates its threads at once and the
   * tasks they ran reject; an async pool resolves at once and lets its running calls go on.
   */
  readonly force?: boolean | undefined;
  /** Wait at most this long for running calls, then close with force. Default: no limit. */
  readonly timeout?: Duration | undefined;
}

/** Checks `close(options)`. */
export function resolvePoolCloseOptions(name: string, options: PoolCloseOptions | null | undefined): { readonly force: boolean; readonly timeout: number } {
  if (options !== undefined && options !== null && !isPlainObject(options)) {
    throw new TypeError(`PoolBulkhead '${name}': close(options) must be an object of { force?, timeout? }, got ${describeValue(options)}`);
  }
  const read = ConfigReader.unnamed<PoolCloseOptions>(`PoolBulkhead '${name}': close(options)`, options ?? undefined, ['force', 'timeout']);
  return { force: read.boolean('force', false), timeout: read.duration('timeout', Infinity, { gte: 0 }) };
}

/** Checks a pool bulkhead's options; throws naming the pool, the option and the value. */
export function resolvePoolBulkheadConfig(name: string, config: PoolBulkheadConfig | undefined): ResolvedPoolConfig {
  return readPoolOptions(new ConfigReader<PoolBulkheadConfig>('PoolBulkhead', name, config, POOL_KEYS));
}

/** Reads the options every pool has with `read`, which knows the component's keys (a worker pool has more). */
export function readPoolOptions<C extends PoolBulkheadConfig>(read: ConfigReader<C>): ResolvedPoolConfig {
  const max = read.number('maxThreadPoolSize', availableParallelism(), { integer: true, gte: 1 });
  const core = read.number('coreThreadPoolSize', Math.max(1, max - 1), { integer: true, gte: 1 });
  if (core > max) read.fail('coreThreadPoolSize', `an integer in [1, ${max}] (maxThreadPoolSize)`, core);
  return {
    maxThreadPoolSize: max,
    coreThreadPoolSize: core,
    queueCapacity: read.number('queueCapacity', 100, { integer: true, gte: 0 }),
    writableStackTraceEnabled: read.boolean('writableStackTraceEnabled', true),
    clock: read.clock(),
  };
}
