import type { AnyEventOf, CallContext, EventOf, ExecuteOptions, Observable, Policy, PolicyFn } from '@breakwater/core';
import { invoke, raceAbort } from '@breakwater/core/internal';
import { ChaosCore } from './chaos-core.js';
import { resolveBehaviorInjectionConfig, type BehaviorInjectionConfig, type ResolvedBehaviorInjectionConfig } from './config.js';
import type { ChaosEvents, ChaosMetrics } from './events.js';

/**
 * Runs a behaviour of yours before calling `fn`, on a share of the calls (Polly Simmy's behaviour
 * strategy; contract: docs/chaos.md): drop a cache, kill a pooled connection, restart a worker. Off
 * unless `enabled`; then a call is injected when `random() < rate`. The behaviour is awaited; if it
 * throws or rejects, the call fails with that error and `fn` is not called (as in Polly).
 *
 * @example
 * ```ts
 * const monkey = new BehaviorInjection('pg', { enabled: true, rate: 0.01, behavior: async () => { await pool.killOneConnection(); } });
 * const rows = await monkey.execute((ctx) => pool.query(sql, { signal: ctx.signal }));
 * ```
 */
export class BehaviorInjection implements Policy, Observable<ChaosEvents> {
  /** `'chaos'`, for all four strategies (what `decorate()` and the exporters read). */
  readonly kind = 'chaos' as const;
  /** Which of the four strategies this is. */
  readonly strategy = 'behavior' as const;
  /** Every option as resolved at construction. */
  readonly config: ResolvedBehaviorInjectionConfig;
  readonly #core: ChaosCore;

  constructor(
    /** The name in events, errors and metrics' labels. */
    readonly name: string,
    config: BehaviorInjectionConfig,
  ) {
    this.config = resolveBehaviorInjectionConfig(name, config);
    this.#core = new ChaosCore(name, `BehaviorInjection '${name}'`, this.config);
  }

  /** A fresh snapshot of the counts. */
  get metrics(): ChaosMetrics {
    return this.#core.metrics;
  }

  /** Subscribes to one event type, or to all with `'*'`; returns the unsubscribe function. */
  on<K extends keyof ChaosEvents & string>(type: K, listener: (event: EventOf<ChaosEvents, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<ChaosEvents>) => void): () => void;
  on(type: string, listener: (event: never) => void): () => void {
    return this.#core.events.subscribe(type, listener);
  }

  /**
   * Runs the behaviour first when the call is injected (awaited), then `fn`. Never throws
   * synchronously; a caller's abort rejects at once with the signal's reason (`fn` is then not
   * called, even when the behaviour ends later).
   *
   * @example
   * ```ts
   * await monkey.execute((ctx) => fetch(url, { signal: ctx.signal }), { signal });
   * ```
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext | null): Promise<T> {
    const core = this.#core;
    if (core.off) return core.pass(fn, options);
    const ctx = core.enter(options);
    if (ctx instanceof Promise) return ctx;
    if (!core.decide(ctx)) return core.run(fn, ctx);
    if (ctx.signal.aborted) return Promise.reject(ctx.signal.reason);
    if (core.inject()) core.publish({ strategy: 'behavior', attempt: ctx.attempt });
    const signal = ctx.signal;
    const behaved = invoke(this.config.behavior, ctx).then(() => (signal.aborted ? Promise.reject(signal.reason) : invoke(fn, ctx)));
    return raceAbort(behaved, signal);
  }
}
