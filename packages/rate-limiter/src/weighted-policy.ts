import type { CallContext, ExecuteOptions, Policy, PolicyFn } from '@breakwater/core';

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
    decorate: <A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>) =>
      (...args: A): Promise<R> => execute(() => fn(...args)),
  };
}
