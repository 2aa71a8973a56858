import { toContext, type CallContext, type ExecuteOptions, type Policy, type PolicyFn } from '@breakwater/core';
import { describeValue, enterCall, follow, raceAbort } from '@breakwater/core/internal';
import { compose, NO_ARGS, runChain, terminal, type Chain } from './chain.js';
import { checkWithFallbackOptions, type WithFallbackOptions } from './fallback-options.js';
import { Fallback, type FallbackHandler } from './fallback.js';
import {
  checkKind,
  checkPolicy,
  withPartition,
  withPermits,
  type AdaptiveLimiterLike,
  type RateLimiterLike,
  type WithAdaptiveLimiterOptions,
} from './kinds.js';
import { layerOf, type PipelineLayer } from './layers.js';
import { findWarnings, type PipelineWarning } from './warnings.js';

export type { WithFallbackOptions } from './fallback-options.js';
export type { AdaptiveLimiterLike, RateLimiterLike, WithAdaptiveLimiterOptions } from './kinds.js';

/**
 * An immutable, reusable stack of resilience layers, built by {@link decorate}. Layers nest in
 * the order written: the first `with…` is the outermost, the last runs the function. Every
 * `with…` returns a new pipeline; the chain of layers is composed once, when it is built.
 *
 * A pipeline is itself a `Policy` (kind `'pipeline'`), so it can be passed wherever one is
 * expected; `with(pipeline)` appends its layers.
 *
 * @typeParam F - the values the pipeline's fallbacks may return instead of the function's.
 *
 * @example
 * ```ts
 * const pay = decorate().withRetry(retry).withCircuitBreaker(breaker).withTimeLimiter(timeLimiter);
 * pay.describe(); // "Retry 'pg' → CircuitBreaker 'pg' → TimeLimiter 'pg' → fn"
 * await pay.execute((ctx) => pg.requestPayment(req, { signal: ctx.signal }), { signal });
 * ```
 */
export class Pipeline<F = never> {
  /** `'pipeline'`. */
  readonly kind = 'pipeline' as const;
  /** The pipeline's name (given to {@link decorate}; default `'pipeline'`). */
  readonly name: string;
  /** The policies of the layers, outermost first. */
  readonly policies: readonly Policy[];
  /** Orders that lose information, found once when the pipeline was built; empty when there are none. */
  readonly warnings: readonly PipelineWarning[];
  readonly #layers: readonly PipelineLayer[];
  readonly #chain: Chain;

  private constructor(name: string, layers: readonly PipelineLayer[]) {
    this.name = name;
    this.#layers = layers;
    this.policies = Object.freeze(layers.map((l) => l.policy));
    this.warnings = findWarnings(layers);
    this.#chain = compose(layers.map((l) => l.step));
    Object.freeze(this);
  }

  /**
   * Same as {@link decorate}: an empty pipeline named `name`.
   *
   * @example
   * ```ts
   * const pay = Pipeline.of('pay').withRetry(retry);
   * ```
   */
  static of(name = 'pipeline'): Pipeline {
    checkName('Pipeline.of', name);
    return new Pipeline(name, []);
  }

  #add<G = F>(layers: readonly PipelineLayer[]): Pipeline<G> {
    return new Pipeline<G>(this.name, [...this.#layers, ...layers]);
  }

  /**
   * Adds a retry layer. Outside a circuit breaker, each attempt is its own breaker call.
   *
   * @throws TypeError when `retry` is not a Policy of kind `'retry'`
   * @example
   * ```ts
   * decorate().withRetry(new Retry('pg', { maxAttempts: 3 })).withCircuitBreaker(breaker);
   * ```
   */
  withRetry(retry: Policy & { readonly kind: 'retry' }): Pipeline<F> {
    checkKind('withRetry', retry, ['retry']);
    return this.#add([layerOf(retry)]);
  }

  /**
   * Adds a circuit breaker layer.
   *
   * @throws TypeError when `breaker` is not a Policy of kind `'circuitBreaker'`
   * @example
   * ```ts
   * decorate().withCircuitBreaker(CircuitBreaker.of('pg')).withTimeLimiter(timeLimiter);
   * ```
   */
  withCircuitBreaker(breaker: Policy & { readonly kind: 'circuitBreaker' }): Pipeline<F> {
    checkKind('withCircuitBreaker', breaker, ['circuitBreaker']);
    return this.#add([layerOf(breaker)]);
  }

  /**
   * Adds a time limiter layer; inside a breaker, each time-out is a failure the breaker records.
   *
   * @throws TypeError when `timeLimiter` is not a Policy of kind `'timeLimiter'`
   * @example
   * ```ts
   * decorate().withCircuitBreaker(breaker).withTimeLimiter(new TimeLimiter('pg', { timeoutDuration: '600ms' }));
   * ```
   */
  withTimeLimiter(timeLimiter: Policy & { readonly kind: 'timeLimiter' }): Pipeline<F> {
    checkKind('withTimeLimiter', timeLimiter, ['timeLimiter']);
    return this.#add([layerOf(timeLimiter)]);
  }

  /**
   * Adds a bulkhead layer: a semaphore `Bulkhead` or a `PoolBulkhead`.
   *
   * @throws TypeError when `bulkhead` is not a Policy of kind `'bulkhead'` or `'poolBulkhead'`
   * @example
   * ```ts
   * decorate().withRetry(retry).withBulkhead(new Bulkhead('db', { maxConcurrentCalls: 10 }));
   * ```
   */
  withBulkhead(bulkhead: Policy & { readonly kind: 'bulkhead' | 'poolBulkhead' }): Pipeline<F> {
    checkKind('withBulkhead', bulkhead, ['bulkhead', 'poolBulkhead']);
    return this.#add([layerOf(bulkhead)]);
  }

  /**
   * Adds a rate limiter layer that takes `permits` permits per call (default 1). More than one
   * permit needs the limiter's `withPermits(n)`, called once, here.
   *
   * @throws TypeError when `limiter` is not a Policy of kind `'rateLimiter'`, or `permits` ≠ 1 and it has no `withPermits`
   * @throws RangeError when `permits` is not an integer ≥ 1
   * @example
   * ```ts
   * decorate().withRetry(retry).withRateLimiter(limiter, 5); // a bulk call weighs 5 permits
   * ```
   */
  withRateLimiter(limiter: RateLimiterLike, permits?: number): Pipeline<F> {
    checkKind('withRateLimiter', limiter, ['rateLimiter']);
    if (permits === undefined || permits === 1) return this.#add([layerOf(limiter)]);
    const { view, label } = withPermits(limiter, permits);
    return this.#add([layerOf(limiter, label, view)]);
  }

  /**
   * Adds an adaptive concurrency limiter layer (`AdaptiveLimiter` of `@breakwater/adaptive`). Like
   * a bulkhead, the layer keeps the call's place under the limit until `fn` really settles, even
   * after an outer layer gave up on it; so each sample's round trip is the backend's. With
   * `options.partition`, every call runs in that partition: the limiter's `inPartition(partition)`,
   * called once, here. Put a time limiter inside it (a time-out is then a drop) and a retry outside
   * it (each attempt its own sample): `pipeline.warnings` says so otherwise.
   *
   * @throws TypeError when `limiter` is not a Policy of kind `'adaptiveLimiter'`, an option is unknown or not a string, or a partition is asked of a limiter without `inPartition`
   * @example
   * ```ts
   * const limiter = new AdaptiveLimiter('pg', { partitions: { critical: 0.7, batch: 0.3 } });
   * decorate().withRetry(retry).withAdaptiveLimiter(limiter, { partition: 'critical' }).withTimeLimiter(timeLimiter);
   * // "Retry 'pg' → AdaptiveLimiter 'pg' (partition critical) → TimeLimiter 'pg' → fn"
   * ```
   */
  withAdaptiveLimiter(limiter: AdaptiveLimiterLike, options?: WithAdaptiveLimiterOptions): Pipeline<F> {
    checkKind('withAdaptiveLimiter', limiter, ['adaptiveLimiter']);
    const partition = withPartition(limiter, options);
    if (partition === undefined) return this.#add([layerOf(limiter)]);
    return this.#add([layerOf(limiter, partition.label, partition.view)]);
  }

  /**
   * Adds a client-side throttle layer (`AdaptiveThrottle` of `@breakwater/adaptive`, Google SRE's
   * adaptive throttling): a call it refuses fails at once with a `RequestNotPermittedError`,
   * before any layer inside it runs. Put it outside a retry and a circuit breaker:
   * `pipeline.warnings` says so otherwise.
   *
   * @throws TypeError when `throttle` is not a Policy of kind `'throttle'`
   * @example
   * ```ts
   * decorate().withThrottle(new AdaptiveThrottle('pg')).withRetry(retry).withCircuitBreaker(breaker);
   * ```
   */
  withThrottle(throttle: Policy & { readonly kind: 'throttle' }): Pipeline<F> {
    checkKind('withThrottle', throttle, ['throttle']);
    return this.#add([layerOf(throttle)]);
  }

  /**
   * Adds a hedging layer (`Hedge` of `@breakwater/retry`): after its delay without an answer, or
   * at once after a handled failure, it starts another attempt of everything inside it, and the
   * first unhandled outcome wins (the others are aborted through their own `ctx.signal`). Put a
   * circuit breaker, a bulkhead, a rate limiter and an adaptive limiter inside it, so each
   * attempt is its own call to them; a time limiter outside it bounds the whole hedged call,
   * one inside it bounds each attempt. `pipeline.warnings` says when an order loses information.
   *
   * @throws TypeError when `hedge` is not a Policy of kind `'hedge'`
   * @example
   * ```ts
   * const hedge = new Hedge('search', { delay: { percentile: 0.95 } });
   * decorate().withTimeLimiter(overall).withHedge(hedge).withCircuitBreaker(breaker);
   * ```
   */
  withHedge(hedge: Policy & { readonly kind: 'hedge' }): Pipeline<F> {
    checkKind('withHedge', hedge, ['hedge']);
    return this.#add([layerOf(hedge)]);
  }

  /**
   * Adds a chaos layer (a strategy of `@breakwater/chaos`: `FaultInjection`, `LatencyInjection`,
   * `OutcomeInjection` or `BehaviorInjection`), off unless enabled. Put chaos innermost, just
   * around `fn`, so that every other layer meets the injected fault or latency as it would meet
   * the backend's: `pipeline.warnings` says so otherwise. Several chaos layers may follow one another.
   *
   * @throws TypeError when `chaos` is not a Policy of kind `'chaos'`
   * @example
   * ```ts
   * const faults = new FaultInjection('pg', { enabled: process.env.CHAOS === 'on', rate: 0.05, fault: new Error('injected') });
   * decorate().withRetry(retry).withCircuitBreaker(breaker).withTimeLimiter(timeLimiter).withChaos(faults);
   * ```
   */
  withChaos(chaos: Policy & { readonly kind: 'chaos' }): Pipeline<F> {
    checkKind('withChaos', chaos, ['chaos']);
    return this.#add([layerOf(chaos)]);
  }

  /**
   * Adds a fallback layer: an error matched by `on` (every error by default) becomes the value
   * of `handler(error, ...args)`, where `args` are the wrapped function's arguments (none for
   * `execute`). Other errors, and the caller's own abort, pass through as they are.
   *
   * @throws TypeError when `handler` is not a function, `on` is neither error classes nor a predicate, or an option is unknown
   * @example
   * ```ts
   * const quote = decorate()
   *   .withFallback((error, symbol: string) => cache.get(symbol), { on: [CallNotPermittedError, TimeoutError] })
   *   .withCircuitBreaker(breaker)
   *   .wrap((ctx, symbol: string) => api.quote(symbol, ctx.signal));
   * ```
   */
  withFallback<G>(handler: FallbackHandler<G>, options?: WithFallbackOptions): Pipeline<F | G> {
    checkWithFallbackOptions(options);
    const fallback = new Fallback<G>(options?.name ?? 'fallback', handler, options?.on === undefined ? undefined : { on: options.on });
    return this.#add<F | G>([layerOf(fallback as Policy & Fallback<G>)]);
  }

  /**
   * Adds any `Policy` as a layer: one of Breakwater's, a {@link Fallback}, a user's own, or
   * another pipeline (whose layers are appended in their order).
   *
   * @throws TypeError when `policy` is not a Policy
   * @example
   * ```ts
   * const audit: Policy = { name: 'audit', kind: 'audit', async execute(fn, o) { const ctx = toContext(o); log(ctx.attempt); return fn(ctx); } };
   * decorate().withRetry(retry).with(audit).describe(); // "Retry 'pg' → audit 'audit' → fn"
   * ```
   */
  with<G>(policy: Fallback<G> | Pipeline<G>): Pipeline<F | G>;
  with(policy: Policy): Pipeline<F>;
  with(policy: Policy | Fallback<unknown> | Pipeline<unknown>): Pipeline<unknown> {
    if (policy instanceof Pipeline) return this.#add(policy.#layers);
    checkPolicy('with', policy);
    return this.#add([layerOf(policy)]);
  }

  /**
   * Runs `fn` through every layer, outermost first. `fn` gets the context of the innermost
   * layer: the `attempt` a retry set, the `signal` a time limiter set (chained to the caller's).
   * Never throws synchronously; an already aborted signal rejects with its reason without
   * calling anything, and a signal that aborts during the call rejects it at once with its
   * reason, whatever the layers are (a user's own policy included); the layers and `fn` see the
   * abort through `ctx.signal` and finish in the background, their late outcome dropped. The
   * returned promise settles exactly once, whatever `fn` or a layer returns.
   *
   * @example
   * ```ts
   * const controller = new AbortController();
   * const result = await pay.execute((ctx) => pg.requestPayment(req, { signal: ctx.signal }), { signal: controller.signal });
   * ```
   */
  execute<T>(fn: PolicyFn<T>, options?: ExecuteOptions | CallContext): Promise<T | F> {
    if (typeof fn !== 'function') return Promise.reject(new TypeError(`Pipeline '${this.name}': execute(fn) needs a function, got ${describeValue(fn)}`));
    const ctx = enterCall(options);
    if (ctx instanceof Promise) return ctx;
    const outcome = runChain(this.#chain, fn as PolicyFn<unknown>, ctx, NO_ARGS);
    // The caller's abort ends the call here, at once, even when no layer races the signal.
    return raceAbort(outcome, ctx.signal) as Promise<T | F>;
  }

  /**
   * `fn` with the pipeline around it, keeping its parameters after the context:
   * `wrap((ctx, req: Req) => …)` gives `(req: Req) => Promise<Res>`. The arguments reach `fn`
   * (on every attempt) and any fallback handler. `options.signal`, if given, is the signal of
   * every call (a shutdown signal, say): aborting it rejects every call in flight at once, and
   * any number of calls in flight add a single `abort` listener to it between them.
   *
   * @throws TypeError when `fn` is not a function or `options.signal` is not an AbortSignal
   * @example
   * ```ts
   * const requestPayment = pay.wrap((ctx, req: PaymentRequest) => pg.requestPayment(req, { signal: ctx.signal }));
   * await requestPayment(req); // (req: PaymentRequest) => Promise<Result>
   * ```
   */
  wrap<A extends unknown[], R>(fn: (ctx: CallContext, ...args: A) => R | PromiseLike<R>, options?: ExecuteOptions): (...args: A) => Promise<R | F> {
    if (typeof fn !== 'function') throw new TypeError(`Pipeline '${this.name}': wrap(fn) needs a function, got ${describeValue(fn)}`);
    const ctx = toContext(options);
    const signal = ctx.signal;
    const chain = this.#chain;
    if (chain === terminal) {
      return (...args: A) => {
        if (signal.aborted) return Promise.reject(signal.reason);
        let outcome: Promise<R>;
        try {
          outcome = follow(fn(ctx, ...args));
        } catch (error) {
          return Promise.reject(error);
        }
        return raceAbort(outcome, signal);
      };
    }
    return (...args: A) => {
      if (signal.aborted) return Promise.reject(signal.reason);
      return raceAbort(
        runChain(chain, (c) => fn(c, ...args), ctx, args),
        signal,
      ) as Promise<R | F>;
    };
  }

  /**
   * The layers in order, outermost first, ending with `fn`:
   * `"Retry 'pg' → CircuitBreaker 'pg' → TimeLimiter 'pg' → fn"`. Breakwater's kinds print as
   * their class names, any other kind as given; a rate limiter with more than one permit adds
   * `(n permits)`, an adaptive limiter given a partition `(partition p)`.
   *
   * @example
   * ```ts
   * decorate().describe(); // "fn"
   * decorate().withBulkhead(bulkhead).withRateLimiter(limiter, 3).describe(); // "Bulkhead 'db' → RateLimiter 'pg' (3 permits) → fn"
   * ```
   */
  describe(): string {
    let text = '';
    for (const layer of this.#layers) text += `${layer.label} → `;
    return `${text}fn`;
  }

  /**
   * Same as {@link describe}.
   *
   * @example
   * ```ts
   * console.log(`${pay}`); // "Retry 'pg' → CircuitBreaker 'pg' → fn"
   * ```
   */
  toString(): string {
    return this.describe();
  }
}

/**
 * Starts a pipeline with no layer (its `execute` just runs the function). Add layers with the
 * `with…` methods: the first one added is the outermost.
 *
 * @param name the pipeline's name, as a `Policy` (default `'pipeline'`)
 * @example
 * ```ts
 * const pay = decorate()
 *   .withRetry(retry)              // outermost: every attempt goes through what follows
 *   .withCircuitBreaker(breaker)   // so each attempt is its own breaker call
 *   .withTimeLimiter(timeLimiter); // innermost: a time-out is a failure the breaker records
 * const requestPayment = pay.wrap((ctx, req: PaymentRequest) => pg.requestPayment(req, { signal: ctx.signal }));
 * ```
 */
export function decorate(name = 'pipeline'): Pipeline {
  checkName('decorate', name);
  return Pipeline.of(name);
}

function checkName(method: string, name: unknown): void {
  if (typeof name !== 'string' || name.length === 0) throw new TypeError(`${method}: name must be a non-empty string, got ${describeValue(name)}`);
}
