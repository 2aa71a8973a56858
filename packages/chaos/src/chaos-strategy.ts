import type { AnyEventOf, CallContext, EventOf, ExecuteOptions, Observable, Policy, PolicyFn } from '@breakwater/core';
import { ChaosCore } from './chaos-core.js';
import type { ChaosEvents, ChaosInjected, ChaosMetrics } from './events.js';
import type { ChaosStrategyName, ResolvedChaosOptions } from './options.js';

/**
 * What the four chaos strategies share (contract: docs/chaos.md): the name, the resolved options,
 * the counts and events, and `execute`'s decision in Polly's order — the caller's signal,
 * `enabled`, `rate`, one draw of `random` — before the strategy's own part ({@link inject}). A
 * strategy not enabled (`enabled: false` given as a constant) passes every call straight to `fn`.
 *
 * @example
 * ```ts
 * const layers: ChaosStrategy<ResolvedChaosOptions>[] = [new FaultInjection('pg', { fault: new Error('x') }), new LatencyInjection('pg')];
 * for (const c of layers) console.log(c.strategy, c.metrics.numberOfInjectedCalls);
 * ```
 */
export abstract class ChaosStrategy<C extends ResolvedChaosOptions> implements Policy, Observable<ChaosEvents> {
  /** `'chaos'`, for all four strategies (what `decorate()` and the exporters read). */
  readonly kind = 'chaos' as const;
  /** Which of the four strategies this is. */
  abstract readonly strategy: ChaosStrategyName;
  /** Every option as resolved at construction. */
  readonly config: C;
  readonly #core: ChaosCore;

  /**
   * @param config - the options, resolved by the strategy's own `resolve…Config`
   * @param className - how messages name the strategy (`FaultInjection`)
   */
  protected constructor(
    /** The name in events, errors and metrics' labels. */
    readonly name: string,
    config: C,
    className: string,
  ) {
    this.config = config;
    this.#core = new ChaosCore(name, `${className} '${name}'`, config);
  }

  /**
   * A fresh snapshot of the counts.
   *
   * @example
   * ```ts
   * const { numberOfInjectedCalls, numberOfCallsNotInjected } = faults.metrics;
   * ```
   */
  get metrics(): ChaosMetrics {
    return this.#core.metrics;
  }

  /**
   * Subscribes to one event type, or to all with `'*'`; returns the unsubscribe function.
   *
   * @example
   * ```ts
   * const off = faults.on('injected', (e) => log(`${e.name}: injected ${e.strategy} into attempt ${e.attempt}`));
   * ```
   */
  on<K extends keyof ChaosEvents & string>(type: K, listener: (event: EventOf<ChaosEvents, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<ChaosEvents>) => void): () => void;
  on(type: string, listener: (event: never) => void): () => void {
    return this.#core.events.subscribe(type, listener);
  }

  /**
   * Runs `fn`, or injects into the call when the decision says so (the strategy's part: a fault,
   * a latency, a fake outcome, a behaviour). Never throws synchronously; a caller's abort rejects
   * at once with the signal's reason.
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
    return this.inject(fn, ctx);
  }

  /** The strategy's own part, for a call the decision chose to inject into. */
  protected abstract inject<T>(fn: PolicyFn<T>, ctx: CallContext): Promise<T>;

  /** Runs `fn` as a call not injected after all (its option's function threw or declined): counted as such. */
  protected notInjected<T>(fn: PolicyFn<T>, ctx: CallContext): Promise<T> {
    return this.#core.run(fn, ctx);
  }

  /** Counts the injection; whether anyone listens to `injected` (then build its fields and {@link publish} them). */
  protected counted(): boolean {
    return this.#core.inject();
  }

  /** Publishes the `injected` event (after {@link counted} said someone listens). */
  protected publish(fields: ChaosInjected): void {
    this.#core.publish(fields);
  }

  /**
   * This call's value of option `option`: `value` itself, or what it returns when it is a
   * function of the call; `threw` when that function threw (reported once: the call is then not injected).
   */
  protected generate<S>(option: string, value: unknown, ctx: CallContext, threw: S): unknown {
    if (typeof value !== 'function') return value;
    const generator = value as (ctx: CallContext) => unknown;
    try {
      return generator(ctx);
    } catch (error) {
      this.#core.generatorThrew(option, generator, error);
      return threw;
    }
  }

  /** How messages name this strategy: `FaultInjection 'pg'`. */
  protected get source(): string {
    return this.#core.source;
  }
}
