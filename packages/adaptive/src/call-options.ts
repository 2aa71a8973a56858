import type { ExecuteOptions } from '@breakwater/core';

/**
 * The options of one call of an {@link AdaptiveLimiter}: the caller's signal and the call's partition.
 *
 * @example
 * ```ts
 * await limiter.execute(() => backend.report(id), { partition: 'batch', signal });
 * ```
 */
export interface AdaptiveCallOptions extends ExecuteOptions {
  /** One of the limiter's `partitions` (absent: the call has no guaranteed share). */
  readonly partition?: string | undefined;
}
