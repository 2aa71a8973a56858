import type { CallContext, ExecuteOptions, Policy, PolicyFn } from '@breakwater/core';

/**
 * An adaptive limiter seen through one partition (`limiter.inPartition('batch')`): a `Policy`
 * whose calls run in that partition, under the same limit, slots, queue, events and metrics as
 * the limiter's own. Its `kind` and `name` are the limiter's, so `decorate()` prints and orders it
 * as the limiter.
 *
 * @example
 * ```ts
 * const batch: AdaptivePartitionPolicy = limiter.inPartition('batch');
 * await batch.execute(() => backend.export(rows));
 * const pipeline = decorate().with(batch);
 * ```
 */
export interface AdaptivePartitionPolicy extends Policy {
  readonly kind: 'adaptiveLimiter';
  readonly name: string;
  /** The partition its calls run in. */
  readonly partition: string;
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext | null): Promise<T>;
  /** Wraps `fn` so that each call runs in this partition. */
  decorate<A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>): (...args: A) => Promise<R>;
}

/** Runs a call in a lane (the limiter's `execute` with the lane already resolved). */
export type LaneExecutor = <T>(fn: PolicyFn<T>, options: ExecuteOptions | CallContext | null | undefined, lane: number) => Promise<T>;

/** Builds the view of partition `partition` (lane `lane`) over `executeIn`. */
export function partitionView(name: string, partition: string, lane: number, executeIn: LaneExecutor): AdaptivePartitionPolicy {
  return Object.freeze({
    kind: 'adaptiveLimiter' as const,
    name,
    partition,
    execute: <T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext | null): Promise<T> => executeIn(fn, options, lane),
    decorate:
      <A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>) =>
      (...args: A): Promise<R> =>
        executeIn(() => fn(...args), undefined, lane),
  });
}
