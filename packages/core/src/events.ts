import { wallTime, type Clock } from './clock.js';
import { describeValue, didYouMean } from './config.js';
import { describeThrown, warnOnce } from './warn.js';

/**
 * An event of type `K` from a component whose events are described by the map `M`:
 * `{ type, name, at, time, ...M[K] }`, read-only. `at` is the component's `clock.now()` (monotonic:
 * subtract two to measure a duration); `time` is wall-clock time in ms since the Unix epoch (the
 * clock's `wallNow()`, else `Date.now()`): log it as `new Date(e.time)`.
 *
 * @example
 * ```ts
 * type Events = { success: { elapsed: number } };
 * const e: EventOf<Events, 'success'> = { type: 'success', name: 'pg', at: 1200, time: 1_764_667_800_000, elapsed: 35 };
 * ```
 */
export type EventOf<M, K extends keyof M> = { readonly type: K; readonly name: string; readonly at: number; readonly time: number } & Readonly<M[K]>;

/**
 * Any one event of the map `M` (what an `on('*')` listener gets); narrow it on `type`.
 *
 * @example
 * ```ts
 * breaker.on('*', (e: AnyEventOf<CircuitBreakerEvents>) => {
 *   if (e.type === 'stateTransition') console.log(e.from, '->', e.to);
 * });
 * ```
 */
export type AnyEventOf<M> = { [K in keyof M]: EventOf<M, K> }[keyof M];

/**
 * Something with typed events: `on(type, listener)` and `on('*', listener)`, each returning the
 * function that unsubscribes. Every Breakwater component and registry is one.
 *
 * @example
 * ```ts
 * function logTransitions(source: Observable<CircuitBreakerEvents>): () => void {
 *   return source.on('stateTransition', (e) => console.log(e.name, e.from, '->', e.to));
 * }
 * ```
 */
export interface Observable<M> {
  on<K extends keyof M & string>(type: K, listener: (event: EventOf<M, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<M>) => void): () => void;
}

/**
 * A listener of any event, as {@link EventPublisher.subscribe} takes it (typed listeners are
 * assignable to it).
 *
 * @example
 * ```ts
 * on(type: string, listener: Listener): () => void { return this.#events.subscribe(type, listener); }
 * ```
 */
export type Listener = (event: never) => void;

/** One `on(...)`: unsubscribing clears `active`, so a second call of the returned function does nothing. */
interface Subscription {
  readonly listener: Listener;
  active: boolean;
}

function report(listener: Listener, error: unknown, source: string): void {
  warnOnce(
    listener,
    `A listener of ${source} threw; the call goes on as if it had not (reported once per listener): ${describeThrown(error)}`,
    'BreakwaterListenerWarning',
  );
}

/**
 * A tiny typed event publisher: `on(type)`, `on('*')`, unsubscribe by the returned function.
 * The component asks {@link wants} before building an event, so with no listener nothing is
 * allocated. A throwing listener never changes the call's outcome nor stops the other listeners;
 * it is reported once through `process.emitWarning`.
 *
 * @example
 * ```ts
 * type Events = { success: { elapsed: number } };
 * const events = new EventPublisher<Events>('my-policy', clock);
 * const off = events.on('success', (e) => console.log(e.name, e.elapsed));
 * if (events.wants('success')) events.emit('success', { elapsed: 12 });
 * off();
 * ```
 */
export class EventPublisher<M extends object> implements Observable<M> {
  // One array per type, replaced (never mutated) on subscribe and unsubscribe, so an emit in
  // progress keeps iterating the listeners it started with. Each subscription is its own entry:
  // the same function subscribed twice is called twice and unsubscribed one at a time.
  readonly #byType = new Map<string, readonly Subscription[]>();
  #any: readonly Subscription[] = [];
  /** Number of listeners in all; 0 makes {@link wants} a single comparison. */
  #count = 0;

  /**
   * `source` names the component in messages (`CircuitBreaker 'pg'`). With `types`, the event
   * types the component publishes, `on` refuses any other with a `TypeError` that suggests the
   * closest (`on('sucess')`: did you mean 'success'?).
   */
  constructor(
    readonly name: string,
    readonly clock: Clock,
    readonly source = `'${name}'`,
    readonly types?: readonly (keyof M & string)[],
  ) {}

  on<K extends keyof M & string>(type: K, listener: (event: EventOf<M, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<M>) => void): () => void;
  on(type: string, listener: Listener): () => void {
    return this.subscribe(type, listener);
  }

  /** The untyped `on`, for components that forward their own typed `on` to this publisher. */
  subscribe(type: string, listener: Listener): () => void {
    if (this.types !== undefined && type !== '*' && !(this.types as readonly string[]).includes(type)) {
      throw new TypeError(
        `${this.source}: unknown event type ${describeValue(type)}${typeof type === 'string' ? didYouMean(type, this.types) : ''} (event types: ${this.types.join(', ')}, or '*')`,
      );
    }
    if (typeof listener !== 'function') throw new TypeError(`${this.source}: on('${type}', listener) needs a function`);
    const subscription: Subscription = { listener, active: true };
    if (type === '*') this.#any = [...this.#any, subscription];
    else this.#byType.set(type, [...(this.#byType.get(type) ?? []), subscription]);
    this.#count++;
    return () => {
      if (!subscription.active) return;
      subscription.active = false;
      this.#count--;
      if (type === '*') this.#any = this.#any.filter((s) => s !== subscription);
      else {
        const rest = (this.#byType.get(type) ?? []).filter((s) => s !== subscription);
        if (rest.length === 0) this.#byType.delete(type);
        else this.#byType.set(type, rest);
      }
    };
  }

  /** Whether anyone listens to `type` (directly or through `'*'`). */
  wants(type: keyof M & string): boolean {
    return this.#count !== 0 && (this.#any.length !== 0 || this.#byType.has(type));
  }

  /**
   * Builds `{ type, name, at, time, ...fields }` and hands it to every listener of `type`, then to every
   * listener of `'*'`, each in the order subscribed. Listeners subscribed or unsubscribed while
   * it runs take effect from the next emit (like Node's `EventEmitter`).
   */
  emit<K extends keyof M & string>(type: K, fields: M[K]): void {
    if (!this.wants(type)) return;
    const event = { type, name: this.name, at: this.clock.now(), time: wallTime(this.clock), ...fields } as unknown as never;
    // Both lists are taken before any listener runs: one subscribed by a listener waits for the next emit.
    const direct = this.#byType.get(type);
    const any = this.#any;
    if (direct !== undefined) for (const s of direct) this.#call(s, event);
    for (const s of any) this.#call(s, event);
  }

  #call(subscription: Subscription, event: never): void {
    const listener = subscription.listener;
    try {
      listener(event);
    } catch (error) {
      report(listener, error, this.source);
    }
  }
}
