import { ConfigReader, type Clock, type Duration, type Outcome } from '@breakwater/core';
import type { ScriptClient } from '../script-runner.js';

/**
 * What a RedisRateLimiter does when Redis does not answer within `commandTimeout` (down, failing
 * over, unreachable, or an error reply):
 *
 * - `'local'`: an in-process `RateLimiter` at `localLimitForPeriod` per cycle takes over (like
 *   rate-limiter-flexible's `insuranceLimiter`); the default.
 * - `'fail-open'`: every call is permitted.
 * - `'fail-closed'`: every call is refused with a `StoreUnavailableError`.
 *
 * @example
 * ```ts
 * const mode: OnStoreError = 'fail-closed'; // a payment limit that must never be exceeded
 * ```
 */
export type OnStoreError = 'local' | 'fail-open' | 'fail-closed';

/**
 * Options of a {@link RedisRateLimiter}. Durations are ms or strings like `'500ms'`, `'1s'`.
 *
 * @example
 * ```ts
 * const config: RedisRateLimiterConfig = { client, limitForPeriod: 50, limitRefreshPeriod: '1s', timeoutDuration: '5s' };
 * ```
 */
export interface RedisRateLimiterConfig {
  /** A connected node-redis client (`createClient(...)` after `connect()`), or cluster. Required. */
  readonly client: ScriptClient;
  /** Permissions per cycle, over all instances together; integer >= 1. Default 50. */
  readonly limitForPeriod?: number | undefined;
  /** Length of a cycle; finite, > 0. Every instance sharing the name must use the same. Default 500 ms. */
  readonly limitRefreshPeriod?: Duration | undefined;
  /** Longest a caller may wait for its permits; >= 0 (`Infinity`: no limit). Default 5000 ms. */
  readonly timeoutDuration?: Duration | undefined;
  /** Longest one round trip to Redis may take before it counts as a store error; > 0. Default 250 ms. */
  readonly commandTimeout?: Duration | undefined;
  /** What happens while Redis does not answer. Default `'local'`. */
  readonly onStoreError?: OnStoreError | undefined;
  /** The per-process limit of the `'local'` fallback; integer >= 1. Default `limitForPeriod`. */
  readonly localLimitForPeriod?: number | undefined;
  /** Runs after each decorated call; `true` drains the permissions left in the cycle (for every instance). */
  readonly drainPermissionsOnResult?: ((outcome: Outcome) => boolean) | undefined;
  /** `false`: refusals carry no stack (cheaper). Default true. */
  readonly writableStackTraceEnabled?: boolean | undefined;
  /** The clock of the local waits and of the events. Default `systemClock`. */
  readonly clock?: Clock | undefined;
  /**
   * The time of the cycle arithmetic: `'redis'` (Redis `TIME`, the one clock of all instances;
   * the default), or a function giving ms since the epoch — for tests only (a `VirtualClock`'s
   * `now`), since every instance must then read the same time.
   */
  readonly time?: 'redis' | (() => number) | undefined;
}

/**
 * Every option of a {@link RedisRateLimiter} once checked (durations in ms).
 *
 * @example
 * ```ts
 * const { limitForPeriod, commandTimeout }: ResolvedRedisRateLimiterConfig = limiter.config;
 * ```
 */
export interface ResolvedRedisRateLimiterConfig {
  readonly client: ScriptClient;
  readonly limitForPeriod: number;
  readonly limitRefreshPeriod: number;
  readonly timeoutDuration: number;
  readonly commandTimeout: number;
  readonly onStoreError: OnStoreError;
  readonly localLimitForPeriod: number;
  readonly drainPermissionsOnResult: ((outcome: Outcome) => boolean) | undefined;
  readonly writableStackTraceEnabled: boolean;
  readonly clock: Clock;
  readonly time: 'redis' | (() => number);
}

const KEYS = [
  'client',
  'limitForPeriod',
  'limitRefreshPeriod',
  'timeoutDuration',
  'commandTimeout',
  'onStoreError',
  'localLimitForPeriod',
  'drainPermissionsOnResult',
  'writableStackTraceEnabled',
  'clock',
  'time',
] as const;

/**
 * Every option of a RedisRateLimiter, by name.
 *
 * @example
 * ```ts
 * REDIS_RATE_LIMITER_OPTIONS.includes('commandTimeout'); // true
 * ```
 */
export const REDIS_RATE_LIMITER_OPTIONS = KEYS;

/** The modes of `onStoreError`. */
const MODES: readonly OnStoreError[] = ['local', 'fail-open', 'fail-closed'];

function isClient(value: unknown): boolean {
  const c = value as Partial<ScriptClient> | null;
  return typeof c === 'object' && c !== null && typeof c.evalSha === 'function' && typeof c.eval === 'function';
}

/** Checks and resolves a RedisRateLimiter's options; throws naming the limiter, option, value and range. */
export function resolveRedisRateLimiterConfig(name: string, config: RedisRateLimiterConfig | undefined): ResolvedRedisRateLimiterConfig {
  const read = new ConfigReader<RedisRateLimiterConfig>('RedisRateLimiter', name, config, KEYS);
  const mustBe = 'a node-redis client (createClient() from redis, connected)';
  const client = read.instance<ScriptClient>('client', mustBe, isClient) ?? read.fail('client', mustBe, undefined, 'type');
  const limitRefreshPeriod = read.duration('limitRefreshPeriod', 500, { gt: 0 });
  if (!Number.isFinite(limitRefreshPeriod)) read.fail('limitRefreshPeriod', 'a finite duration > 0', config?.limitRefreshPeriod);
  const commandTimeout = read.duration('commandTimeout', 250, { gt: 0 });
  if (!Number.isFinite(commandTimeout)) read.fail('commandTimeout', 'a finite duration > 0', config?.commandTimeout);
  const limitForPeriod = read.number('limitForPeriod', 50, { integer: true, gte: 1 });
  const time = config?.time;
  if (time !== undefined && time !== 'redis' && typeof time !== 'function')
    read.fail('time', "'redis' or a function returning ms since the epoch", time, 'type');
  return {
    client,
    limitForPeriod,
    limitRefreshPeriod,
    timeoutDuration: read.duration('timeoutDuration', 5000, { gte: 0 }),
    commandTimeout,
    onStoreError: read.oneOf('onStoreError', 'local', MODES),
    localLimitForPeriod: read.number('localLimitForPeriod', limitForPeriod, { integer: true, gte: 1 }),
    drainPermissionsOnResult: read.fn<(outcome: Outcome) => boolean>('drainPermissionsOnResult'),
    writableStackTraceEnabled: read.boolean('writableStackTraceEnabled', true),
    clock: read.clock(),
    time: time ?? 'redis',
  };
}
