import type { PoolLimits } from './config.js';

/**
 * What a pool does with a new call: run it now, queue it, or refuse it.
 *
 * @example
 * ```ts
 * const decision: Admission = admit(pool.metrics.activeCount, pool.metrics.queueDepth, limits);
 * ```
 */
export type Admission = 'run' | 'queue' | 'reject';

/**
 * Java's `ThreadPoolExecutor` admission rule (with idle non-core threads ending at once): run the
 * call if fewer than `coreThreadPoolSize` are running; else queue it if the queue has room; else
 * run it if fewer than `maxThreadPoolSize` are running; else refuse it. So at most
 * `maxThreadPoolSize + queueCapacity` calls are ever in the pool, and extra slots beyond the core
 * are used only once the queue is full.
 *
 * @example
 * ```ts
 * const limits = { coreThreadPoolSize: 2, maxThreadPoolSize: 4, queueCapacity: 10 };
 * admit(1, 0, limits);  // 'run'
 * admit(2, 3, limits);  // 'queue'
 * admit(2, 10, limits); // 'run'   (queue full, an extra slot)
 * admit(4, 10, limits); // 'reject'
 * ```
 */
export function admit(active: number, queued: number, limits: PoolLimits): Admission {
  if (active < limits.coreThreadPoolSize) return 'run';
  if (queued < limits.queueCapacity) return 'queue';
  if (active < limits.maxThreadPoolSize) return 'run';
  return 'reject';
}
