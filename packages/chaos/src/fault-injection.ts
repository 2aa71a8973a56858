import type { AnyEventOf, CallContext, EventOf, ExecuteOptions, Observable, Policy, PolicyFn } from '@breakwater/core';
import { ChaosCore } from './chaos-core.js';
import { resolveFaultInjectionConfig, type FaultInjectionConfig, type ResolvedFaultInjectionConfig } from './config.js';
import type { ChaosEvents, ChaosMetrics } from './events.js';

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
export class FaultInjection implements Policy, Observable<ChaosEvents> {
  /** `'chaos'`, for all four strategies (what `decorate()` and the exporters read). */
  readonly kind = 'chaos' as const;
  /** Which of the four strategies this is. */
  readonly strategy = 'fault' as const;
  /** Every option as resolved at construction. */
  readonly config: ResolvedFaultInjectionConfig;
  readonly #core: ChaosCore;

  constructor(
    /** The name in events, errors and metrics' labels. */
    readonly name: string,
    config: FaultInjectionConfig,
  ) {
    this.config = resolveFaultInjectionConfig(name, config);
    this.#core = new ChaosCore(name, `FaultInjection '${name}'`, this.config);
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
   * Rejects with the fault when the call is injected (`fn` is not called), else runs `fn`. Never
   * throws synchronously; a caller's abort rejects at once with the signal's reason.
   *
   * @example
   * ```ts
   * await faults.execute((ctx) => fetch(url, { signal: ctx.signal }), { signal });
   * ```
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext | null): Promise<T> {
    const core = this.#core;
    if (core.off) return core.pass(fn, options);
    const ctx = core.enter(options);
    if (ctx instanceof Promise) return ctx;
    if (!core.decide(ctx)) return core.run(fn, ctx);
    if (ctx.signal.aborted) return Promise.reject(ctx.signal.reason);
    let fault = this.config.fault;
    if (typeof fault === 'function') {
      const generate = fault as (ctx: CallContext) => unknown;
      try {
        fault = generate(ctx);
      } catch (error) {
        core.generatorThrew('fault', generate, error);
        return core.run(fn, ctx);
      }
      if (fault === undefined) return core.run(fn, ctx);
    }
    if (core.inject()) core.publish({ strategy: 'fault', attempt: ctx.attempt, error: fault });
    return Promise.reject(fault);
  }
}
