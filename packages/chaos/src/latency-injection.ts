import { parseDuration, sleep } from '@breakwater/core';
import type { AnyEventOf, CallContext, Clock, Duration, EventOf, ExecuteOptions, Observable, Policy, PolicyFn } from '@breakwater/core';
import { describeValue, invoke, raceAbort, warnOnce } from '@breakwater/core/internal';
import { ChaosCore } from './chaos-core.js';
import { resolveLatencyInjectionConfig, type LatencyInjectionConfig, type ResolvedLatencyInjectionConfig } from './config.js';
import type { ChaosEvents, ChaosMetrics } from './events.js';

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
export class LatencyInjection implements Policy, Observable<ChaosEvents> {
  /** `'chaos'`, for all four strategies (what `decorate()` and the exporters read). */
  readonly kind = 'chaos' as const;
  /** Which of the four strategies this is. */
  readonly strategy = 'latency' as const;
  /** Every option as resolved at construction. */
  readonly config: ResolvedLatencyInjectionConfig;
  readonly #core: ChaosCore;
  readonly #clock: Clock;

  constructor(
    /** The name in events, errors and metrics' labels. */
    readonly name: string,
    config?: LatencyInjectionConfig,
  ) {
    this.config = resolveLatencyInjectionConfig(name, config);
    this.#core = new ChaosCore(name, `LatencyInjection '${name}'`, this.config);
    this.#clock = this.config.clock;
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
   * Waits the latency first when the call is injected, then runs `fn`. Never throws synchronously;
   * a caller's abort rejects at once with the signal's reason (during the wait: `fn` is never called).
   *
   * @example
   * ```ts
   * await slow.execute((ctx) => fetch(url, { signal: ctx.signal }), { signal });
   * ```
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext | null): Promise<T> {
    const core = this.#core;
    if (core.off) return core.pass(fn, options);
    const ctx = core.enter(options);
    if (ctx instanceof Promise) return ctx;
    if (!core.decide(ctx)) return core.run(fn, ctx);
    if (ctx.signal.aborted) return Promise.reject(ctx.signal.reason);
    const latency = this.#latency(ctx);
    if (!(latency > 0)) return core.run(fn, ctx);
    if (core.inject()) core.publish({ strategy: 'latency', attempt: ctx.attempt, latencyMs: latency });
    const signal = ctx.signal;
    return raceAbort(
      sleep(this.#clock, latency, signal).then(() => invoke(fn, ctx)),
      signal,
    );
  }

  /** This call's latency in ms; 0 (no injection) when a function throws or returns no finite duration (reported once). */
  #latency(ctx: CallContext): number {
    const latency = this.config.latency;
    if (typeof latency === 'number') return latency;
    let value: Duration;
    try {
      value = latency(ctx);
    } catch (error) {
      this.#core.generatorThrew('latency', latency, error);
      return 0;
    }
    const ms = parseDuration(value);
    if (ms === undefined || !Number.isFinite(ms)) {
      warnOnce(
        latency,
        `${this.#core.source}: latency returned ${describeValue(value)}, not a finite duration; the call is not injected (reported once)`,
        'BreakwaterCallbackWarning',
      );
      return 0;
    }
    return ms;
  }
}
