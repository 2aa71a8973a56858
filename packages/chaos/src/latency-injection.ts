import { parseDuration, sleep } from '@breakwater/core';
import type { CallContext, Duration, PolicyFn } from '@breakwater/core';
import { describeValue, invoke, raceAbort, warnOnce } from '@breakwater/core/internal';
import { ChaosStrategy } from './chaos-strategy.js';
import { resolveLatencyInjectionConfig, type LatencyInjectionConfig, type ResolvedLatencyInjectionConfig } from './config.js';

/**
 * Waits before calling `fn`, on a share of the calls (Polly Simmy's latency strategy; contract:
 * docs/chaos.md). Off unless `enabled`; then a call is injected when `random() < rate`. The wait is
 * `latency` (default 30 s), or a function of the call returning it; a latency <= 0 is no wait and
 * no injection. The wait is on the clock and ends at once, with the signal's reason, when the
 * caller aborts (its timer cleared). Place it innermost, so a time limiter around it sees a slow
 * backend.
 *
 * @example
 * ```ts
 * const slow = new LatencyInjection('pg', { enabled: true, rate: 0.05, latency: '2s' });
 * const rows = await slow.execute((ctx) => pool.query(sql, { signal: ctx.signal }), { signal: AbortSignal.timeout(1000) });
 * ```
 */
export class LatencyInjection extends ChaosStrategy<ResolvedLatencyInjectionConfig> {
  /** Which of the four strategies this is. */
  readonly strategy = 'latency' as const;

  constructor(
    /** The name in events, errors and metrics' labels. */
    name: string,
    config?: LatencyInjectionConfig,
  ) {
    super(name, resolveLatencyInjectionConfig(name, config), 'LatencyInjection');
  }

  /** Waits the latency on the clock (the caller's abort ends the wait at once), then runs `fn`; a latency <= 0: `fn` runs, not injected. */
  protected inject<T>(fn: PolicyFn<T>, ctx: CallContext): Promise<T> {
    const latency = this.#latency(ctx);
    if (!(latency > 0)) return this.notInjected(fn, ctx);
    if (this.counted()) this.publish({ strategy: 'latency', attempt: ctx.attempt, latencyMs: latency });
    const signal = ctx.signal;
    return raceAbort(
      sleep(this.config.clock, latency, signal).then(() => invoke(fn, ctx)),
      signal,
    );
  }

  /** This call's latency in ms; 0 (no injection) when a function throws or returns no finite duration (reported once). */
  #latency(ctx: CallContext): number {
    const latency = this.config.latency;
    if (typeof latency === 'number') return latency;
    const value = this.generate('latency', latency, ctx, 0) as Duration;
    const ms = parseDuration(value);
    if (ms === undefined || !Number.isFinite(ms)) {
      warnOnce(
        latency,
        `${this.source}: latency returned ${describeValue(value)}, not a finite duration; the call is not injected (reported once)`,
        'BreakwaterCallbackWarning',
      );
      return 0;
    }
    return ms;
  }
}
