import type { CallContext, ExecuteOptions, Policy, PolicyFn } from '@breakwater/core';
import { checkPermits } from './config.js';

/**
 * A view of a rate limiter that takes `permits` permits per call (from {@link RateLimiter.withPermits}).
 *
 * @example
 * ```ts
 * const bulk = limiter.withPermits(5);
 * await bulk.execute(() => api.batch(items));
 * ```
 */
export interface RateLimiterPolicy extends Policy {
  readonly kind: 'rateLimiter';
  /** Permits each call takes. */
  readonly permits: number;
  decorate<A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>): (...args: A) => Promise<R>;
}

/**
 * The policy of `limiter.withPermits(permits)`, whose `execute` is the limiter's, taking `permits`
 * per call — for a rate limiter of your own (or another store's, as `@breakwater/redis` does) that
 * offers `withPermits` the same way.
 *
 * @example
 * ```ts
 * withPermits(permits: number): RateLimiterPolicy {
 *   return weightedPolicy(this.name, permits, (fn, options) => this.#execute(fn, options, permits));
 * }
 * ```
 */
export function weightedPolicy(
  name: string,
  permits: number,
  execute: <T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext | null) => Promise<T>,
): RateLimiterPolicy {
  return {
    name,
    kind: 'rateLimiter',
    permits,
    execute,
    decorate:
      <A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>) =>
      (...args: A): Promise<R> =>
        execute(() => fn(...args)),
  };
}

/**
 * How a rate limiter runs a call: `fn` once `permits` permits are taken (what {@link withPermitsOf} takes).
 *
 * @example
 * ```ts
 * const executeWith: ExecuteWithPermits = (fn, options, permits) => this.#execute(fn, options, permits);
 * ```
 */
export type ExecuteWithPermits = <T>(fn: PolicyFn<T>, options: ExecuteOptions | CallContext | null | undefined, permits: number) => Promise<T>;

/**
 * `withPermits(permits)` of a rate limiter whose calls run through `execute(fn, options, permits)`:
 * `permits` is checked (a `TypeError` or `RangeError` naming `source` unless an integer >= 1), then
 * the {@link weightedPolicy} whose calls take `permits` each. `RateLimiter` and
 * `@breakwater/redis`'s `RedisRateLimiter` both answer `withPermits` with it.
 *
 * @example
 * ```ts
 * withPermits(permits: number): RateLimiterPolicy {
 *   return withPermitsOf(this.#source, this.name, permits, (fn, options, n) => this.#execute(fn, options, n));
 * }
 * ```
 */
export function withPermitsOf(source: string, name: string, permits: number, execute: ExecuteWithPermits): RateLimiterPolicy {
  checkPermits(source, 'withPermits(permits)', permits);
  return weightedPolicy(name, permits, (fn, options) => execute(fn, options, permits));
}
