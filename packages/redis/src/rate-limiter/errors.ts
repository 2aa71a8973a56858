import { RequestNotPermittedError } from '@breakwater/core';

/**
 * A RedisRateLimiter with `onStoreError: 'fail-closed'` refused a call because its store (Redis)
 * did not answer; `cause` is the client's error. A `RequestNotPermittedError` (so code that
 * handles refusals handles it too), with `store` naming the store and `waitMs` 0 (no wait is known).
 *
 * @example
 * ```ts
 * await limiter.execute(call).catch((e) => {
 *   if (e instanceof StoreUnavailableError) log.warn(`${e.store} is down: ${String(e.cause)}`);
 * });
 * ```
 */
export class StoreUnavailableError extends RequestNotPermittedError {
  static {
    this.prototype.name = 'StoreUnavailableError';
  }
  /** The store that did not answer. */
  readonly store = 'redis' as const;

  constructor(rateLimiterName: string, cause: unknown) {
    super(rateLimiterName, 0);
    this.message = `RedisRateLimiter '${rateLimiterName}' does not permit further calls: its store (redis) is unavailable (${describe(cause)})`;
    Object.defineProperty(this, 'cause', { value: cause, writable: true, configurable: true, enumerable: false });
  }
}

function describe(cause: unknown): string {
  return cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
}
