import { describeValue } from '@breakwater/core/internal';
import {
  isObservedComponent,
  isObservedRegistry,
  stateLabel,
  type ObservedBreakerState,
  type ObservedBulkhead,
  type ObservedCallKind,
  type ObservedCircuitBreaker,
  type ObservedComponent,
  type ObservedPoolBulkhead,
  type ObservedRateLimiter,
  type ObservedRegistry,
  type ObservedRetry,
  type ObservedTimeLimiter,
  type ObservedTransition,
} from './observed.js';

/**
 * What an exporter keeps per breaker for its call histogram: `record` is called by the breaker's
 * `observeCalls` hook for every recorded call (no event object).
 *
 * @example
 * ```ts
 * const recorder: CallRecorder = { record: (kind, elapsedMs) => histogram.record(elapsedMs / 1000, attributes[kind]) };
 * ```
 */
export interface CallRecorder {
  record(kind: ObservedCallKind, elapsedMs: number): void;
}

/**
 * One transition count of a breaker, by its `from`, `to` and `cause` label values.
 *
 * @example
 * ```ts
 * const t: TransitionCount = { from: 'closed', to: 'open', cause: 'failure_rate', count: 1 };
 * ```
 */
export interface TransitionCount {
  readonly from: string;
  readonly to: string;
  readonly cause: string;
  count: number;
}

/**
 * What an exporter holds for one breaker: its transitions counted from `stateTransition` events,
 * and its call recorder (bound once to `observeCalls`; `undefined` when the breaker has no such hook).
 *
 * @example
 * ```ts
 * for (const { binding } of set.read().breakers) for (const t of binding?.transitions.values() ?? []) log(t);
 * ```
 */
export class BreakerObservation<R extends CallRecorder = CallRecorder> {
  /** Transition counts by `from`, `to` and `cause`. */
  readonly transitions = new Map<string, TransitionCount>();
  /** The exporter's recorder, fed by `observeCalls`; `undefined` when the breaker has no hook. */
  readonly calls: R | undefined;
  readonly #off: (() => void)[] = [];

  constructor(
    readonly breaker: ObservedCircuitBreaker,
    recorder?: (breaker: ObservedCircuitBreaker) => R,
  ) {
    if (recorder !== undefined && typeof breaker.observeCalls === 'function') {
      const calls = recorder(breaker);
      this.calls = calls;
      this.#off.push(breaker.observeCalls((kind, elapsedMs) => calls.record(kind, elapsedMs)));
    } else {
      this.calls = undefined;
    }
    this.#off.push(breaker.on('stateTransition', (e: ObservedTransition) => this.#count(e)));
  }

  #count(e: ObservedTransition): void {
    const cause = e.cause ?? 'unknown';
    const key = `${e.from} ${e.to} ${cause}`;
    const found = this.transitions.get(key);
    if (found !== undefined) found.count++;
    else this.transitions.set(key, { from: stateLabel(e.from), to: stateLabel(e.to), cause, count: 1 });
  }

  /** Stops listening to the breaker. */
  dispose(): void {
    for (const off of this.#off.splice(0)) off();
  }
}

/**
 * One read of every exported component, by kind, each `metrics` read once.
 *
 * @example
 * ```ts
 * const { breakers, retries } = set.read();
 * for (const { c, m, state } of breakers) log(c.name, state, m.failureRate);
 * ```
 */
export interface ObservedSnapshot<R extends CallRecorder = CallRecorder> {
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
}

/**
 * The components an exporter publishes: single components and whole registries (instances a
 * registry creates later are read, removed, evicted or expired ones are not), each breaker bound
 * once however many times it is added (its {@link BreakerObservation}), read by {@link ObservedComponents.read}.
 *
 * @example
 * ```ts
 * const set = new ObservedComponents('MyExporter', (breaker) => ({ record: (kind, ms) => log(breaker.name, kind, ms) }));
 * const remove = set.add(breakerRegistry);
 * const snapshot = set.read(); // at collect time
 * remove();
 * ```
 */
export class ObservedComponents<R extends CallRecorder = CallRecorder> {
  readonly #direct = new Map<ObservedComponent, number>();
  readonly #registries = new Map<ObservedRegistry, { refs: number; members: Set<ObservedCircuitBreaker>; off: (() => void)[] }>();
  readonly #breakers = new Map<ObservedCircuitBreaker, { binding: BreakerObservation<R>; refs: number }>();

  /** `owner` names the exporter in errors; `recorder` makes a breaker's call recorder, once per breaker. */
  constructor(
    private readonly owner: string,
    private readonly recorder?: (breaker: ObservedCircuitBreaker) => R,
  ) {}

  /** Adds a component or a registry; returns the function that removes it (calling it twice does nothing more). */
  add(componentOrRegistry: ObservedComponent | ObservedRegistry): () => void {
    if (isObservedComponent(componentOrRegistry)) return this.#addComponent(componentOrRegistry);
    if (isObservedRegistry(componentOrRegistry)) return this.#addRegistry(componentOrRegistry);
    throw new TypeError(
      `${this.owner}.add: expected a circuit breaker, retry, time limiter, bulkhead, pool bulkhead, rate limiter or a registry of them, got ${describeValue(componentOrRegistry)}`,
    );
  }

  #addComponent(c: ObservedComponent): () => void {
    this.#direct.set(c, (this.#direct.get(c) ?? 0) + 1);
    if (c.kind === 'circuitBreaker') this.#retain(c);
    return once(() => {
      const refs = this.#direct.get(c)! - 1;
      if (refs === 0) this.#direct.delete(c);
      else this.#direct.set(c, refs);
      if (c.kind === 'circuitBreaker') this.#release(c);
    });
  }

  #addRegistry(r: ObservedRegistry): () => void {
    const bound = this.#registries.get(r);
    if (bound !== undefined) {
      bound.refs++;
    } else {
      const members = new Set<ObservedCircuitBreaker>();
      const join = (c: ObservedComponent): void => {
        if (c?.kind === 'circuitBreaker' && !members.has(c)) {
          members.add(c);
          this.#retain(c);
        }
      };
      const leave = (c: ObservedComponent): void => {
        if (c?.kind === 'circuitBreaker' && members.delete(c)) this.#release(c);
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

  #retain(c: ObservedCircuitBreaker): void {
    const held = this.#breakers.get(c);
    if (held !== undefined) held.refs++;
    else this.#breakers.set(c, { binding: new BreakerObservation(c, this.recorder), refs: 1 });
  }

  #release(c: ObservedCircuitBreaker): void {
    const held = this.#breakers.get(c);
    if (held === undefined) return;
    if (--held.refs === 0) {
      this.#breakers.delete(c);
      held.binding.dispose();
    }
  }

  /** Every component now (registries' members read now), each once, its `metrics` read once. */
  read(): ObservedSnapshot<R> {
    const seen = new Set<ObservedComponent>(this.#direct.keys());
    for (const r of this.#registries.keys()) for (const c of r.all()) if (isObservedComponent(c)) seen.add(c);
    const s: { -readonly [K in keyof ObservedSnapshot<R>]: ObservedSnapshot<R>[K][number][] } = {
      breakers: [],
      retries: [],
      timeLimiters: [],
      bulkheads: [],
      pools: [],
      rateLimiters: [],
    };
    for (const c of seen) {
      switch (c.kind) {
        case 'circuitBreaker':
          s.breakers.push({ c, m: c.metrics, state: c.state, binding: this.#breakers.get(c)?.binding });
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
