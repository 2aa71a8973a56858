import { EventPublisher } from '@breakwater/core';
import type { AnyEventOf, CallContext, EventOf, ExecuteOptions, Listener, Observable, Policy, PolicyFn } from '@breakwater/core';
import { enterCall } from '@breakwater/core/internal';
import { resolveTimeLimiterConfig, type ResolvedTimeLimiterConfig, type TimeLimiterConfig } from './config.js';
import { TIME_LIMITER_EVENT_TYPES, type TimeLimiterEvents, type TimeLimiterMetrics } from './events.js';
import { LimitedCall, type LimiterHost } from './limited-call.js';

/**
 * Races a call against the clock. On time-out the call rejects with `TimeoutError` and, with
 * `cancelRunningFuture` (the default), `ctx.signal` aborts with that same error so a `fetch` or a
 * database driver stops the work. A caller's signal is followed: its abort rejects the call
 * with its reason and aborts `ctx.signal` too. A result after the time-out is dropped, a
 * rejection after it swallowed; the timer is cleared as soon as the work settles.
 *
 * @example
 * ```ts
 * const limiter = new TimeLimiter('pg', { timeoutDuration: '600ms' });
 * const receipt = await limiter.execute((ctx) => fetch(url, { signal: ctx.signal }));
 * ```
 */
export class TimeLimiter implements Policy, Observable<TimeLimiterEvents> {
  readonly kind = 'timeLimiter' as const;
  /** The options as resolved at construction (defaults applied, durations in ms). */
  readonly config: ResolvedTimeLimiterConfig;
  readonly #host: LimiterHost;

  /**
   * Same as `new TimeLimiter(name, config)`.
   *
   * @example
   * ```ts
   * const limiter = TimeLimiter.of('pg', { timeoutDuration: '2s' });
   * ```
   */
  static of(name: string, config?: TimeLimiterConfig): TimeLimiter {
    return new TimeLimiter(name, config);
  }

  constructor(
    readonly name: string,
    config?: TimeLimiterConfig,
  ) {
    this.config = resolveTimeLimiterConfig(name, config);
    const { clock, timeoutDuration, cancelRunningFuture } = this.config;
    this.#host = {
      name,
      timeoutMs: timeoutDuration,
      cancelRunningFuture,
      clock,
      events: new EventPublisher<TimeLimiterEvents>(name, clock, `TimeLimiter '${name}'`, TIME_LIMITER_EVENT_TYPES),
      successes: 0,
      failures: 0,
      timeouts: 0,
    };
  }

  /**
   * The time-out in ms.
   *
   * @example
   * ```ts
   * new TimeLimiter('pg', { timeoutDuration: '2s' }).timeoutDuration; // 2000
   * ```
   */
  get timeoutDuration(): number {
    return this.#host.timeoutMs;
  }

  /**
   * A fresh snapshot of the counters.
   *
   * @example
   * ```ts
   * if (limiter.metrics.numberOfTimeouts > 10) alert('pg is slow');
   * ```
   */
  get metrics(): TimeLimiterMetrics {
    const host = this.#host;
    return { numberOfSuccessfulCalls: host.successes, numberOfFailedCalls: host.failures, numberOfTimeouts: host.timeouts };
  }

  /**
   * Subscribes to `success`, `timeout`, `error`, or `'*'` for all; returns the unsubscribe.
   *
   * @example
   * ```ts
   * const off = limiter.on('timeout', (e) => log.warn(`${e.name}: no answer in ${e.timeoutMs} ms`));
   * off();
   * ```
   */
  on<K extends keyof TimeLimiterEvents & string>(type: K, listener: (event: EventOf<TimeLimiterEvents, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<TimeLimiterEvents>) => void): () => void;
  on(type: string, listener: Listener): () => void {
    return this.#host.events.subscribe(type, listener);
  }

  /**
   * Runs `fn` against the clock. `fn` gets a context whose `signal` aborts on time-out (with
   * the `TimeoutError`, when `cancelRunningFuture`) or when the caller's signal aborts, and
   * whose `attempt` is the one passed down by an outer layer. Never throws synchronously.
   *
   * @example
   * ```ts
   * await limiter.execute((ctx) => db.query(sql, { signal: ctx.signal }), { signal: request.signal });
   * ```
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T> {
    const parent = enterCall(options);
    if (parent instanceof Promise) return parent;
    return new LimitedCall(this.#host, fn, parent).promise;
  }

  /**
   * Wraps `fn` so that every call goes through {@link execute}.
   *
   * @example
   * ```ts
   * const getUser = limiter.decorate((id: string) => db.users.find(id));
   * await getUser('42');
   * ```
   */
  decorate<A extends unknown[], R>(fn: (...args: A) => R | PromiseLike<R>): (...args: A) => Promise<R> {
    return (...args) => this.execute(() => fn(...args));
  }
}
