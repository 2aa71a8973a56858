import type { AnyEventOf, CallContext, EventOf, ExecuteOptions, Listener, Observable, Policy, PolicyFn } from '@breakwater/core';
import { enterCall, ROOT_CONTEXT } from '@breakwater/core/internal';
import { HedgedCall } from './hedge-call.js';
import { resolveHedgeConfig, type HedgeConfig, type ResolvedHedgeConfig } from './hedge-config.js';
import type { HedgeEvents, HedgeMetrics } from './hedge-events.js';
import { HedgeRecorder } from './hedge-recorder.js';
import { countCall } from './retry-budget.js';

/**
 * Hedges a call as Polly v8's hedging strategy does (contract: docs/hedging.md): when the primary
 * attempt gives no answer within `delay`, another attempt starts beside it (up to
 * `maxHedgedAttempts`), and a handled failure starts the next one at once; the first outcome
 * `shouldHandle` does not handle wins, and every other attempt is aborted through its own
 * `ctx.signal`. The call settles once every attempt has settled; when all fail, the caller gets
 * the primary's failure. A {@link RetryBudget} shared with retries bounds the extra load.
 *
 * @example
 * ```ts
 * const hedge = new Hedge('search', { maxHedgedAttempts: 1, delay: { percentile: 0.95 } });
 * hedge.on('hedge', (e) => log(`attempt ${e.attempt} started after ${e.delayMs} ms`));
 * const hits = await hedge.execute((ctx) => search(query, { signal: ctx.signal }));
 * ```
 */
export class Hedge implements Policy, Observable<HedgeEvents> {
  /** `'hedge'`: what `decorate()`, `health()` and the exporters know a hedge by. */
  readonly kind = 'hedge' as const;
  /** The options as resolved at construction (defaults applied, durations in ms). */
  readonly config: ResolvedHedgeConfig;
  readonly #recorder: HedgeRecorder;

  /**
   * Same as `new Hedge(name, config)`.
   *
   * @example
   * ```ts
   * const hedge = Hedge.of('search', { delay: '150ms' });
   * ```
   */
  static of(name: string, config?: HedgeConfig): Hedge {
    return new Hedge(name, config);
  }

  /**
   * Checks `config` (a `TypeError` or `RangeError` naming the hedge, the option, the value and
   * the valid range) and builds the hedge.
   *
   * @param name - the hedge's name, in messages, events and metrics
   */
  constructor(
    readonly name: string,
    config?: HedgeConfig,
  ) {
    this.config = resolveHedgeConfig(name, config);
    this.#recorder = new HedgeRecorder(name, this.config);
  }

  /**
   * A fresh snapshot of the counters; each call is counted once, when the caller gets its outcome.
   *
   * @example
   * ```ts
   * const { numberOfHedgedAttempts, winsByAttempt } = hedge.metrics;
   * ```
   */
  get metrics(): HedgeMetrics {
    return this.#recorder.metrics;
  }

  /**
   * Subscribes to `hedge`, `hedgeRefused`, `success`, `error`, or `'*'` for all; returns the
   * unsubscribe.
   *
   * @example
   * ```ts
   * const off = hedge.on('hedgeRefused', (e) => log(`${e.name}: budget refused attempt ${e.attempt}`));
   * off();
   * ```
   */
  on<K extends keyof HedgeEvents & string>(type: K, listener: (event: EventOf<HedgeEvents, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<HedgeEvents>) => void): () => void;
  on(type: string, listener: Listener): () => void {
    return this.#recorder.events.subscribe(type, listener);
  }

  /**
   * Runs `fn` as the primary attempt, and hedged attempts beside it as the config says. Each
   * attempt gets a context of its own: a signal that aborts when it loses or the caller aborts,
   * and `attempt` (1: the primary, 2, 3, …: the hedges). Never throws synchronously.
   *
   * @example
   * ```ts
   * await hedge.execute((ctx) => fetch(url, { signal: ctx.signal }), { signal: request.signal });
   * ```
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T> {
    // Core's prologue (a context, or the rejection to return), the call counted in the budget
    // (what each hedge withdraws from), then the call itself: hedge-call.ts.
    const ctx = options === undefined ? ROOT_CONTEXT : enterCall(options);
    if (ctx instanceof Promise) return ctx;
    const uncounted = countCall(this.config.budget);
    if (uncounted !== undefined) return uncounted;
    return new HedgedCall(this.#recorder, fn, ctx.signal).promise;
  }

  /**
   * Wraps `fn` so that every call goes through {@link execute}.
   *
   * @example
   * ```ts
   * const find = hedge.decorate((id: string) => db.users.find(id));
   * await find('42');
   * ```
   */
  decorate<A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>): (...args: A) => Promise<R> {
    return (...args) => this.execute(() => fn(...args));
  }
}
