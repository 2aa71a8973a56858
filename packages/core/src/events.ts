import type { Clock } from './clock.js';

/** An event of type `K` from a component whose events are described by the map `M`. */
export type EventOf<M, K extends keyof M> = { readonly type: K; readonly name: string; readonly at: number } & Readonly<M[K]>;

/** Any one event of the map `M`. */
export type AnyEventOf<M> = { [K in keyof M]: EventOf<M, K> }[keyof M];

/** Subscribes a listener; the returned function unsubscribes it. */
export interface Observable<M> {
  on<K extends keyof M & string>(type: K, listener: (event: EventOf<M, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<M>) => void): () => void;
}

/** A listener of any event. */
export type Listener = (event: never) => void;

const reported = new WeakSet<Listener>();

function report(listener: Listener, error: unknown, source: string): void {
  if (reported.has(listener)) return;
  reported.add(listener);
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.emitWarning(`A listener of ${source} threw; the call goes on as if it had not (reported once per listener): ${detail}`, {
    type: 'BreakwaterListenerWarning',
  });
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
  readonly #byType = new Map<string, Listener[]>();
  #any: Listener[] = [];
  /** Number of listeners in all; 0 makes {@link wants} a single comparison. */
  #count = 0;

  constructor(
    readonly name: string,
    readonly clock: Clock,
    readonly source = `'${name}'`,
  ) {}

  on<K extends keyof M & string>(type: K, listener: (event: EventOf<M, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<M>) => void): () => void;
  on(type: string, listener: Listener): () => void {
    return this.subscribe(type, listener);
  }

  /** The untyped `on`, for components that forward their own typed `on` to this publisher. */
  subscribe(type: string, listener: Listener): () => void {
    if (typeof listener !== 'function') throw new TypeError(`${this.source}: on('${type}', listener) needs a function`);
    // Copy on write: an emit in progress keeps iterating the array it started with.
    if (type === '*') this.#any = [...this.#any, listener];
    else this.#byType.set(type, [...(this.#byType.get(type) ?? []), listener]);
    this.#count++;
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      this.#count--;
      if (type === '*') this.#any = this.#any.filter((l) => l !== listener);
      else {
        const rest = (this.#byType.get(type) ?? []).filter((l) => l !== listener);
        if (rest.length === 0) this.#byType.delete(type);
        else this.#byType.set(type, rest);
      }
    };
  }

  /** Whether anyone listens to `type` (directly or through `'*'`). */
  wants(type: keyof M & string): boolean {
    return this.#count !== 0 && (this.#any.length !== 0 || this.#byType.has(type));
  }

  /** Builds `{ type, name, at, ...fields }` and hands it to every listener of `type` and `'*'`. */
  emit<K extends keyof M & string>(type: K, fields: M[K]): void {
    if (!this.wants(type)) return;
    const event = { type, name: this.name, at: this.clock.now(), ...fields } as unknown as never;
    const direct = this.#byType.get(type);
    if (direct !== undefined) for (const l of direct) this.#call(l, event);
    for (const l of this.#any) this.#call(l, event);
  }

  #call(listener: Listener, event: never): void {
    try {
      listener(event);
    } catch (error) {
      report(listener, error, this.source);
    }
  }
}
