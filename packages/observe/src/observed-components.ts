import { describeValue } from '@breakwater/core/internal';
import { AdaptiveLimiterObservation, BreakerObservation, type CallRecorder, type RttRecorder } from './observed-bindings.js';
import {
  isObservedComponent,
  isObservedRegistry,
  type ObservedAdaptiveLimiter,
  type ObservedBreakerState,
  type ObservedBulkhead,
  type ObservedCircuitBreaker,
  type ObservedComponent,
  type ObservedPoolBulkhead,
  type ObservedRateLimiter,
  type ObservedRegistry,
  type ObservedRetry,
  type ObservedThrottle,
  type ObservedTimeLimiter,
} from './observed.js';
import type { ObservedChaos, ObservedHedge } from './observed-hedge-chaos.js';

/**
 * One read of every exported component, by kind, each `metrics` read once.
 *
 * @example
 * ```ts
 * const { breakers, retries } = set.read();
 * for (const { c, m, state } of breakers) log(c.name, state, m.failureRate);
 * ```
 */
export interface ObservedSnapshot<R extends CallRecorder = CallRecorder, T extends RttRecorder = RttRecorder> {
  readonly breakers: readonly {
    readonly c: ObservedCircuitBreaker;
    readonly m: ObservedCircuitBreaker['metrics'];
    readonly state: ObservedBreakerState;
    readonly binding: BreakerObservation<R> | undefined;
  }[];
  readonly retries: readonly { readonly c: ObservedRetry; readonly m: ObservedRetry['metrics'] }[];
  readonly timeLimiters: readonly { readonly c: ObservedTimeLimiter; readonly m: ObservedTimeLimiter['metrics'] }[];
  readonly bulkheads: readonly { readonly c: ObservedBulkhead; readonly m: ObservedBulkhead['metrics'] }[];
  readonly pools: readonly { readonly c: ObservedPoolBulkhead; readonly m: ObservedPoolBulkhead['metrics'] }[];
  readonly rateLimiters: readonly { readonly c: ObservedRateLimiter; readonly m: ObservedRateLimiter['metrics'] }[];
  readonly adaptiveLimiters: readonly {
    readonly c: ObservedAdaptiveLimiter;
    readonly m: ObservedAdaptiveLimiter['metrics'];
    readonly binding: AdaptiveLimiterObservation<T> | undefined;
  }[];
  readonly throttles: readonly { readonly c: ObservedThrottle; readonly m: ObservedThrottle['metrics'] }[];
  readonly hedges: readonly { readonly c: ObservedHedge; readonly m: ObservedHedge['metrics'] }[];
  readonly chaos: readonly { readonly c: ObservedChaos; readonly m: ObservedChaos['metrics'] }[];
}

/** The kinds an exporter binds to (a listener held per instance): breakers and adaptive limiters. */
type Bound = ObservedCircuitBreaker | ObservedAdaptiveLimiter;
const isBound = (c: ObservedComponent | undefined): c is Bound => c?.kind === 'circuitBreaker' || c?.kind === 'adaptiveLimiter';

/**
 * The components an exporter publishes: single components and whole registries (instances a
 * registry creates later are read, removed, evicted or expired ones are not), each breaker and
 * each adaptive limiter bound once however many times it is added (its {@link BreakerObservation}
 * or {@link AdaptiveLimiterObservation}), read by {@link ObservedComponents.read}.
 *
 * @example
 * ```ts
 * const set = new ObservedComponents('MyExporter', (breaker) => ({ record: (kind, ms) => log(breaker.name, kind, ms) }));
 * const remove = set.add(breakerRegistry);
 * const snapshot = set.read(); // at collect time
 * remove();
 * ```
 */
export class ObservedComponents<R extends CallRecorder = CallRecorder, T extends RttRecorder = RttRecorder> {
  readonly #direct = new Map<ObservedComponent, number>();
  readonly #registries = new Map<ObservedRegistry, { refs: number; members: Set<Bound>; off: (() => void)[] }>();
  readonly #bound = new Map<Bound, { binding: BreakerObservation<R> | AdaptiveLimiterObservation<T>; refs: number }>();

  /**
   * `owner` names the exporter in errors; `recorder` makes a breaker's call recorder, once per
   * breaker; `rttRecorder` an adaptive limiter's round-trip recorder, once per limiter.
   */
  constructor(
    private readonly owner: string,
    private readonly recorder?: (breaker: ObservedCircuitBreaker) => R,
    private readonly rttRecorder?: (limiter: ObservedAdaptiveLimiter) => T,
  ) {}

  /** Adds a component or a registry; returns the function that removes it (calling it twice does nothing more). */
  add(componentOrRegistry: ObservedComponent | ObservedRegistry): () => void {
    if (isObservedComponent(componentOrRegistry)) return this.#addComponent(componentOrRegistry);
    if (isObservedRegistry(componentOrRegistry)) return this.#addRegistry(componentOrRegistry);
    throw new TypeError(
      `${this.owner}.add: expected a circuit breaker, retry, time limiter, bulkhead, pool bulkhead, rate limiter, adaptive limiter, adaptive throttle, hedge, chaos layer or a registry of them, got ${describeValue(componentOrRegistry)}`,
    );
  }

  #addComponent(c: ObservedComponent): () => void {
    this.#direct.set(c, (this.#direct.get(c) ?? 0) + 1);
    if (isBound(c)) this.#retain(c);
    return once(() => {
      const refs = this.#direct.get(c)! - 1;
      if (refs === 0) this.#direct.delete(c);
      else this.#direct.set(c, refs);
      if (isBound(c)) this.#release(c);
    });
  }

  #addRegistry(r: ObservedRegistry): () => void {
    const bound = this.#registries.get(r);
    if (bound !== undefined) {
      bound.refs++;
    } else {
      const members = new Set<Bound>();
      const join = (c: ObservedComponent): void => {
        if (isBound(c) && !members.has(c)) {
          members.add(c);
          this.#retain(c);
        }
      };
      const leave = (c: ObservedComponent): void => {
        if (isBound(c) && members.delete(c)) this.#release(c);
      };
      const off = [
        r.on('added', (e: { instance: ObservedComponent }) => join(e.instance)),
        r.on('removed', (e: { instance: ObservedComponent }) => leave(e.instance)),
        r.on('replaced', (e: { old: ObservedComponent; instance: ObservedComponent }) => {
          leave(e.old);
          join(e.instance);
        }),
      ];
      for (const c of r.all()) join(c);
      this.#registries.set(r, { refs: 1, members, off });
    }
    return once(() => {
      const entry = this.#registries.get(r)!;
      if (--entry.refs > 0) return;
      this.#registries.delete(r);
      for (const off of entry.off) off();
      for (const c of entry.members) this.#release(c);
    });
  }

  #retain(c: Bound): void {
    const held = this.#bound.get(c);
    if (held !== undefined) held.refs++;
    else {
      const binding = c.kind === 'circuitBreaker' ? new BreakerObservation(c, this.recorder) : new AdaptiveLimiterObservation(c, this.rttRecorder);
      this.#bound.set(c, { binding, refs: 1 });
    }
  }

  #release(c: Bound): void {
    const held = this.#bound.get(c);
    if (held === undefined) return;
    if (--held.refs === 0) {
      this.#bound.delete(c);
      held.binding.dispose();
    }
  }

  /** Every component now (registries' members read now), each once, its `metrics` read once. */
  read(): ObservedSnapshot<R, T> {
    const seen = new Set<ObservedComponent>(this.#direct.keys());
    for (const r of this.#registries.keys()) for (const c of r.all()) if (isObservedComponent(c)) seen.add(c);
    const s: { -readonly [K in keyof ObservedSnapshot<R, T>]: ObservedSnapshot<R, T>[K][number][] } = {
      breakers: [],
      retries: [],
      timeLimiters: [],
      bulkheads: [],
      pools: [],
      rateLimiters: [],
      adaptiveLimiters: [],
      throttles: [],
      hedges: [],
      chaos: [],
    };
    for (const c of seen) {
      switch (c.kind) {
        case 'circuitBreaker':
          s.breakers.push({ c, m: c.metrics, state: c.state, binding: this.#bound.get(c)?.binding as BreakerObservation<R> | undefined });
          break;
        case 'retry':
          s.retries.push({ c, m: c.metrics });
          break;
        case 'timeLimiter':
          s.timeLimiters.push({ c, m: c.metrics });
          break;
        case 'bulkhead':
          s.bulkheads.push({ c, m: c.metrics });
          break;
        case 'poolBulkhead':
          s.pools.push({ c, m: c.metrics });
          break;
        case 'rateLimiter':
          s.rateLimiters.push({ c, m: c.metrics });
          break;
        case 'adaptiveLimiter':
          s.adaptiveLimiters.push({ c, m: c.metrics, binding: this.#bound.get(c)?.binding as AdaptiveLimiterObservation<T> | undefined });
          break;
        case 'throttle':
          s.throttles.push({ c, m: c.metrics });
          break;
        case 'hedge':
          s.hedges.push({ c, m: c.metrics });
          break;
        case 'chaos':
          s.chaos.push({ c, m: c.metrics });
          break;
      }
    }
    return s;
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
