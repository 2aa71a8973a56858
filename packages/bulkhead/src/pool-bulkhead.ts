import type { CallContext, ExecuteOptions, Policy, PolicyFn } from '@breakwater/core';
import { enterCall, NEVER_ABORTED, ROOT_CONTEXT } from '@breakwater/core/internal';
import { resolvePoolBulkheadConfig, type PoolBulkheadConfig } from './config.js';
import { PoolCore } from './pool-core.js';
import { WorkerPoolBulkhead, type WorkerPoolBulkheadConfig } from './worker-pool-bulkhead.js';

/**
 * A pool bulkhead of async slots: at most `maxThreadPoolSize` calls run at once, admitted by
 * Java's `ThreadPoolExecutor` rule — run if fewer than `coreThreadPoolSize` are running; else
 * wait in a FIFO queue of `queueCapacity`; else run if fewer than `maxThreadPoolSize` are running;
 * else refuse at once with {@link BulkheadFullError}. So at most `max + queueCapacity` calls are
 * in it. A queued call whose signal aborts leaves the queue at once. For CPU-bound work in real
 * threads, see {@link PoolBulkhead.workers}.
 *
 * @example
 * ```ts
 * const pdf = new PoolBulkhead('pdf', { maxThreadPoolSize: 4, coreThreadPoolSize: 2, queueCapacity: 20 });
 * const file = await pdf.submit((ctx) => render(doc, { signal: ctx.signal }));
 * process.on('SIGTERM', () => void pdf.close());
 * ```
 */
export class PoolBulkhead extends PoolCore<PolicyFn<unknown>, CallContext> implements Policy {
  readonly kind = 'poolBulkhead' as const;

  constructor(name: string, config?: PoolBulkheadConfig) {
    super(name, resolvePoolBulkheadConfig(name, config));
  }

  /**
   * Same as `new PoolBulkhead(name, config)`.
   *
   * @example
   * ```ts
   * const pdf = PoolBulkhead.of('pdf', { maxThreadPoolSize: 2 });
   * ```
   */
  static of(name: string, config?: PoolBulkheadConfig): PoolBulkhead {
    return new PoolBulkhead(name, config);
  }

  /**
   * A pool bulkhead whose calls run in worker threads (piscina): the same admission rule, the
   * same events and metrics; `run(payload)` sends the payload (structured clone) to the default
   * export of the worker module `filename`.
   *
   * @example
   * ```ts
   * const thumbs = PoolBulkhead.workers<{ path: string }, Buffer>('thumbs', {
   *   filename: new URL('./thumbnail.mjs', import.meta.url),
   *   maxThreadPoolSize: 4,
   * });
   * const png = await thumbs.run({ path: 'a.jpg' });
   * await thumbs.close();
   * ```
   */
  static workers<T = unknown, R = unknown>(name: string, config: WorkerPoolBulkheadConfig): WorkerPoolBulkhead<T, R> {
    return new WorkerPoolBulkhead<T, R>(name, config);
  }

  /**
   * Runs `fn` in a slot, now or after waiting in the queue; the slot comes back when `fn`
   * settles, exactly once whatever `fn` returns. `fn` gets the call's context. A caller's signal
   * that aborts rejects the call at once, queued or running (a running `fn` keeps its slot until
   * it really settles). Never throws synchronously.
   *
   * @example
   * ```ts
   * const out = await pdf.execute((ctx) => render(doc, { signal: ctx.signal }), { signal });
   * ```
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext | null): Promise<T> {
    if (options === undefined) return this.admitCall<T>(fn, ROOT_CONTEXT, NEVER_ABORTED);
    const ctx = enterCall(options);
    if (ctx instanceof Promise) return ctx;
    return this.admitCall<T>(fn, ctx, ctx.signal);
  }

  /**
   * The same as {@link execute} (Resilience4j's name).
   *
   * @example
   * ```ts
   * const out = await pdf.submit(() => render(doc));
   * ```
   */
  submit<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext | null): Promise<T> {
    return this.execute(fn, options);
  }

  /**
   * Wraps `fn` so that each call runs in a slot of the pool.
   *
   * @example
   * ```ts
   * const renderInPool = pdf.decorate((doc: Doc) => render(doc));
   * await renderInPool(doc);
   * ```
   */
  decorate<A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>): (...args: A) => Promise<R> {
    return (...args: A) => this.execute(() => fn(...args));
  }

  protected start(fn: PolicyFn<unknown>, ctx: CallContext): unknown {
    return fn(ctx);
  }
}
