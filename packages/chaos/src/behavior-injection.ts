import type { CallContext, PolicyFn } from '@breakwater/core';
import { invoke, raceAbort } from '@breakwater/core/internal';
import { ChaosStrategy } from './chaos-strategy.js';
import { resolveBehaviorInjectionConfig, type BehaviorInjectionConfig, type ResolvedBehaviorInjectionConfig } from './config.js';

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
export class BehaviorInjection extends ChaosStrategy<ResolvedBehaviorInjectionConfig> {
  /** Which of the four strategies this is. */
  readonly strategy = 'behavior' as const;

  constructor(
    /** The name in events, errors and metrics' labels. */
    name: string,
    config: BehaviorInjectionConfig,
  ) {
    super(name, resolveBehaviorInjectionConfig(name, config), 'BehaviorInjection');
  }

  /**
   * Runs the behaviour first (awaited), then `fn`; a behaviour that throws or rejects fails the
   * call with that error and `fn` is not called. A caller's abort during the behaviour rejects at
   * once, and `fn` is then not called, even when the behaviour ends later.
   */
  protected inject<T>(fn: PolicyFn<T>, ctx: CallContext): Promise<T> {
    if (this.counted()) this.publish({ strategy: 'behavior', attempt: ctx.attempt });
    const signal = ctx.signal;
    const behaved = invoke(this.config.behavior, ctx).then(() => (signal.aborted ? Promise.reject(signal.reason) : invoke(fn, ctx)));
    return raceAbort(behaved, signal);
  }
}
