import type { EventPublisher } from '@breakwater/core';
import { NEVER_ABORTED } from '@breakwater/core/internal';
import { RateLimiter } from '@breakwater/rate-limiter';
import type { OnStoreError, ResolvedRedisRateLimiterConfig } from './config.js';
import { StoreUnavailableError } from './errors.js';
import type { RedisRateLimiterEvents } from './events.js';

/**
 * What decides a RedisRateLimiter's calls while Redis is unavailable (`onStoreError`):
 * `'local'` an in-process RateLimiter (its events are published as the Redis limiter's, with
 * `cycle: -1`), `'fail-open'` permits every call, `'fail-closed'` refuses every one with a
 * {@link StoreUnavailableError} whose `cause` is the store's error.
 */
export class Fallback {
  readonly mode: OnStoreError;
  readonly #name: string;
  readonly #events: EventPublisher<RedisRateLimiterEvents>;
  /** The in-process limiter of `'local'` (undefined in the other modes). */
  readonly local: RateLimiter | undefined;
  /** Whether `localLimitForPeriod` follows `changeLimitForPeriod` (it was not given). */
  readonly #followsLimit: boolean;

  constructor(name: string, c: ResolvedRedisRateLimiterConfig, followsLimit: boolean, events: EventPublisher<RedisRateLimiterEvents>) {
    this.mode = c.onStoreError;
    this.#name = name;
    this.#events = events;
    this.#followsLimit = followsLimit;
    if (this.mode !== 'local') return;
    const local = (this.local = new RateLimiter(name, {
      limitForPeriod: c.localLimitForPeriod,
      limitRefreshPeriod: c.limitRefreshPeriod,
      timeoutDuration: c.timeoutDuration,
      writableStackTraceEnabled: c.writableStackTraceEnabled,
      clock: c.clock,
    }));
    local.on('successfulAcquire', (e) => this.#granted(e.permits, e.waitMs));
    local.on('failedAcquire', (e) => this.#refused(e.permits, e.waitMs));
    local.on('drained', (e) => events.wants('drained') && events.emit('drained', { permits: e.permits }));
  }

  /** `acquirePermission` while Redis is unavailable. */
  acquire(permits: number, signal: AbortSignal, error: unknown): Promise<void> {
    if (this.local !== undefined) return this.local.acquirePermission(permits, signal === NEVER_ABORTED ? undefined : { signal });
    if (this.mode === 'fail-open') {
      this.#granted(permits, 0);
      return Promise.resolve();
    }
    this.#refused(permits, 0);
    return Promise.reject(new StoreUnavailableError(this.#name, error));
  }

  /** `reservePermission` while Redis is unavailable: `'fail-open'` 0, `'fail-closed'` -1 (nothing reserved). */
  reserve(permits: number): number {
    if (this.local !== undefined) return this.local.reservePermission(permits);
    if (this.mode === 'fail-open') {
      this.#granted(permits, 0);
      return 0;
    }
    this.#refused(permits, 0);
    return -1;
  }

  /** `drainPermissions` while Redis is unavailable (only the local limiter has permissions to drain). */
  drain(): void {
    if (this.local !== undefined) this.local.drainPermissions();
    else if (this.#events.wants('drained')) this.#events.emit('drained', { permits: 0 });
  }

  /** `changeLimitForPeriod`: the local limit follows unless `localLimitForPeriod` was given. */
  changeLimit(limitForPeriod: number): void {
    if (this.#followsLimit) this.local?.changeLimitForPeriod(limitForPeriod);
  }

  /** `changeTimeoutDuration`. */
  changeTimeout(timeoutDuration: number): void {
    this.local?.changeTimeoutDuration(timeoutDuration);
  }

  #granted(permits: number, waitMs: number): void {
    if (this.#events.wants('successfulAcquire')) this.#events.emit('successfulAcquire', { permits, waitMs, cycle: -1 });
  }

  #refused(permits: number, waitMs: number): void {
    if (this.#events.wants('failedAcquire')) this.#events.emit('failedAcquire', { permits, waitMs });
  }
}
