import type { AnyEventOf, CallContext, EventOf, ExecuteOptions, Observable, Policy, PolicyFn } from '@breakwater/core';
import { follow, raceAbort } from '@breakwater/core/internal';
import { ChaosCore } from './chaos-core.js';
import { resolveOutcomeInjectionConfig, type OutcomeInjectionConfig, type ResolvedOutcomeInjectionConfig } from './config.js';
import type { ChaosEvents, ChaosMetrics } from './events.js';

/**
 * Returns a fake result instead of calling `fn`, on a share of the calls (Polly Simmy's outcome
 * strategy; contract: docs/chaos.md). Off unless `enabled`; then a call is injected when
 * `random() < rate`. `outcome` is the result, or a function of the call returning it (a promise is
 * adopted: a rejected one fails the call). The result is not checked against `fn`'s type: it is
 * yours to make one the caller can take.
 *
 * @example
 * ```ts
 * const fakes = new OutcomeInjection('inventory', { enabled: true, rate: 0.1, outcome: () => ({ status: 503, items: [] }) });
 * const page = await fakes.execute((ctx) => inventory.list({ signal: ctx.signal }));
 * ```
 */
export class OutcomeInjection implements Policy, Observable<ChaosEvents> {
  /** `'chaos'`, for all four strategies (what `decorate()` and the exporters read). */
  readonly kind = 'chaos' as const;
  /** Which of the four strategies this is. */
  readonly strategy = 'outcome' as const;
  /** Every option as resolved at construction. */
  readonly config: ResolvedOutcomeInjectionConfig;
  readonly #core: ChaosCore;

  constructor(
    /** The name in events, errors and metrics' labels. */
    readonly name: string,
    config: OutcomeInjectionConfig,
  ) {
    this.config = resolveOutcomeInjectionConfig(name, config);
    this.#core = new ChaosCore(name, `OutcomeInjection '${name}'`, this.config);
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
   * Resolves with the fake outcome when the call is injected (`fn` is not called), else runs `fn`.
   * Never throws synchronously; a caller's abort rejects at once with the signal's reason.
   *
   * @example
   * ```ts
   * const res = await fakes.execute((ctx) => fetch(url, { signal: ctx.signal }), { signal });
   * ```
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext | null): Promise<T> {
    const core = this.#core;
    if (core.off) return core.pass(fn, options);
    const ctx = core.enter(options);
    if (ctx instanceof Promise) return ctx;
    if (!core.decide(ctx)) return core.run(fn, ctx);
    if (ctx.signal.aborted) return Promise.reject(ctx.signal.reason);
    let outcome = this.config.outcome;
    if (typeof outcome === 'function') {
      const generate = outcome as (ctx: CallContext) => unknown;
      try {
        outcome = generate(ctx);
      } catch (error) {
        core.generatorThrew('outcome', generate, error);
        return core.run(fn, ctx);
      }
    }
    if (core.inject()) core.publish({ strategy: 'outcome', attempt: ctx.attempt, result: outcome });
    return raceAbort(follow(outcome as T | PromiseLike<T>), ctx.signal);
  }
}
