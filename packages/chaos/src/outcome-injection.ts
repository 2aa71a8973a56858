import type { CallContext, PolicyFn } from '@breakwater/core';
import { follow, raceAbort } from '@breakwater/core/internal';
import { ChaosStrategy } from './chaos-strategy.js';
import { resolveOutcomeInjectionConfig, type OutcomeInjectionConfig, type ResolvedOutcomeInjectionConfig } from './config.js';

/** What the outcome function answered when it threw (`undefined` is an outcome here: a void result). */
const THREW: unique symbol = Symbol('the outcome function threw');

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
export class OutcomeInjection extends ChaosStrategy<ResolvedOutcomeInjectionConfig> {
  /** Which of the four strategies this is. */
  readonly strategy = 'outcome' as const;

  constructor(
    /** The name in events, errors and metrics' labels. */
    name: string,
    config: OutcomeInjectionConfig,
  ) {
    super(name, resolveOutcomeInjectionConfig(name, config), 'OutcomeInjection');
  }

  /** Resolves with the fake outcome (`fn` is not called; a promise is adopted); an outcome function that throws: `fn` runs, not injected. */
  protected inject<T>(fn: PolicyFn<T>, ctx: CallContext): Promise<T> {
    const outcome = this.generate('outcome', this.config.outcome, ctx, THREW);
    if (outcome === THREW) return this.notInjected(fn, ctx);
    if (this.counted()) this.publish({ strategy: 'outcome', attempt: ctx.attempt, result: outcome });
    return raceAbort(follow(outcome as T | PromiseLike<T>), ctx.signal);
  }
}
