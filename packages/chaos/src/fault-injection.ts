import type { CallContext, PolicyFn } from '@breakwater/core';
import { ChaosStrategy } from './chaos-strategy.js';
import { resolveFaultInjectionConfig, type FaultInjectionConfig, type ResolvedFaultInjectionConfig } from './config.js';

/**
 * Throws a fault instead of calling `fn`, on a share of the calls (Polly Simmy's fault strategy;
 * contract: docs/chaos.md). Off unless `enabled`; then a call is injected when `random() < rate`.
 * `fault` is the error, or a function of the call returning it (`undefined`: not this call). Place
 * it innermost, so the policies around it see the fault as if the backend had failed.
 *
 * @example
 * ```ts
 * const faults = new FaultInjection('pg', { enabled: process.env['CHAOS'] === 'on', rate: 0.1, fault: () => new Error('chaos: ECONNRESET') });
 * const rows = await faults.execute((ctx) => pool.query(sql, { signal: ctx.signal }));
 * ```
 */
export class FaultInjection extends ChaosStrategy<ResolvedFaultInjectionConfig> {
  /** Which of the four strategies this is. */
  readonly strategy = 'fault' as const;

  constructor(
    /** The name in events, errors and metrics' labels. */
    name: string,
    config: FaultInjectionConfig,
  ) {
    super(name, resolveFaultInjectionConfig(name, config), 'FaultInjection');
  }

  /** Rejects with the fault (`fn` is not called); a fault function that throws or returns `undefined`: `fn` runs, not injected. */
  protected inject<T>(fn: PolicyFn<T>, ctx: CallContext): Promise<T> {
    const fault = this.generate('fault', this.config.fault, ctx, undefined);
    if (fault === undefined) return this.notInjected(fn, ctx);
    if (this.counted()) this.publish({ strategy: 'fault', attempt: ctx.attempt, error: fault });
    return Promise.reject(fault);
  }
}
