import type { CircuitBreaker, CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import { EventPublisher, type AnyEventOf, type EventOf, type Listener, type Observable } from '@breakwater/core';
import { describeThrown, describeValue } from '@breakwater/core/internal';
import { boundMs } from './bounds.js';
import { resolveSyncOptions, type RedisBreakerSyncOptions, type ResolvedSyncOptions } from './config.js';
import { SYNC_EVENT_TYPES, type RedisBreakerSyncEvents } from './events.js';
import { breakerKeys, type BreakerKeys } from './keys.js';
import { FleetMember, type MemberContext } from './member.js';
import { OVERRIDE } from './scripts.js';
import { Store } from './store.js';

/** One subscribed name: its keys, the channel's listener, the breaker attached under it. */
interface Attached {
  readonly keys: BreakerKeys;
  readonly listener: (message: string) => void;
  readonly member: FleetMember;
}

function isRegistry(target: unknown): target is CircuitBreakerRegistry {
  const t = target as Partial<CircuitBreakerRegistry> | null;
  return typeof t === 'object' && t !== null && typeof t.all === 'function' && typeof t.on === 'function' && typeof t.get === 'function';
}

function isBreaker(target: unknown): target is CircuitBreaker {
  const t = target as Partial<CircuitBreaker> | null;
  return typeof t === 'object' && t !== null && typeof t.name === 'string' && typeof t.transitionToOpenStateUntil === 'function' && typeof t.on === 'function';
}

/**
 * Shares circuit-breaker state *changes* across a fleet of processes through Redis — never
 * per-call counters. Each instance keeps its own window; an instance that opens records it in a
 * sorted set and publishes it; the fleet opens when `quorum` instances opened within
 * `quorumWindow`; when the fleet's wait is over one instance takes a lease and runs the half-open
 * trial while the others stay OPEN; an operator can force a name open or disabled fleet-wide.
 * When Redis is unreachable each breaker goes on alone (`storeError`), and the fleet state is
 * re-read when it returns (`storeRecovered`). Breakers it moves say `cause: 'fleet'`.
 *
 * @example
 * ```ts
 * const client = await createClient({ url }).on('error', (e) => log.warn(e)).connect(); // your own error listener:
 * const subscriber = await client.duplicate().on('error', (e) => log.warn(e)).connect(); // the sync's own come and go with it
 * const sync = new RedisBreakerSync({ client, subscriber, quorum: 2, quorumWindow: '30s' });
 * await sync.attach(breakers);          // a CircuitBreakerRegistry (later ones too), or one breaker
 * await sync.forceOpen('pg');           // every instance: FORCED_OPEN
 * await sync.release('pg');             // back to each instance's own breaker
 * ```
 */
export class RedisBreakerSync implements Observable<RedisBreakerSyncEvents> {
  /** This instance's id in the fleet. */
  readonly instanceId: string;
  readonly #options: ResolvedSyncOptions;
  readonly #events: EventPublisher<RedisBreakerSyncEvents>;
  readonly #store: Store;
  readonly #ctx: MemberContext;
  readonly #attached = new Map<string, Attached>();
  readonly #registries = new Map<CircuitBreakerRegistry, () => void>();
  #closed = false;

  constructor(options: RedisBreakerSyncOptions) {
    this.#options = resolveSyncOptions(options);
    this.instanceId = this.#options.instanceId;
    this.#events = new EventPublisher(this.instanceId, this.#options.clock, `RedisBreakerSync '${this.instanceId}'`, SYNC_EVENT_TYPES);
    this.#store = new Store(
      this.#options.client,
      this.#options.subscriber,
      this.#events,
      {
        down: () => {
          for (const a of this.#attached.values()) a.member.storeDown();
        },
        recovered: () => {
          for (const a of this.#attached.values()) {
            a.member.forgetVersion();
            void a.member.read();
          }
        },
      },
      this.#options.commandTimeout,
    );
    const { quorum, quorumWindow } = this.#options;
    this.#ctx = { instanceId: this.instanceId, quorum, quorumWindow, store: this.#store, events: this.#events, random: this.#options.random, warn };
  }

  /** Subscribes to one event type (an unknown one is a `TypeError`), or to all with `'*'`; returns the unsubscribe function. */
  on<K extends keyof RedisBreakerSyncEvents & string>(type: K, listener: (event: EventOf<RedisBreakerSyncEvents, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<RedisBreakerSyncEvents>) => void): () => void;
  on(type: string, listener: Listener): () => void {
    return this.#events.subscribe(type, listener);
  }

  /** The names of the breakers attached now. */
  get names(): string[] {
    return [...this.#attached.keys()];
  }

  /**
   * Attaches a breaker, or a registry (its breakers now and every one added later; removed ones
   * are detached, replaced ones swapped). Resolves once each name is subscribed and its fleet state
   * read (a FORCED_OPEN fleet makes the breaker FORCED_OPEN here); never rejects for Redis — a
   * store failure is a `storeError` event and the breaker goes on alone. One breaker per name.
   */
  async attach(target: CircuitBreaker | CircuitBreakerRegistry): Promise<void> {
    if (this.#closed) throw new TypeError(`RedisBreakerSync '${this.instanceId}': attach() after close()`);
    if (isRegistry(target)) {
      if (this.#registries.has(target)) return;
      const offs = [
        target.on('added', (e) => this.#background(this.#attachBreaker(e.instance))),
        target.on('removed', (e) => this.#background(this.#detachBreaker(e.instance))),
        target.on('replaced', (e) => this.#background(this.#detachBreaker(e.old).then(() => this.#attachBreaker(e.instance)))),
      ];
      this.#registries.set(target, () => {
        for (const off of offs) off();
      });
      await Promise.all(target.all().map((b) => this.#attachBreaker(b)));
      return;
    }
    if (!isBreaker(target))
      throw new TypeError(`RedisBreakerSync '${this.instanceId}': attach() needs a CircuitBreaker or a CircuitBreakerRegistry, got ${describeValue(target)}`);
    await this.#attachBreaker(target);
  }

  /** A registry's change, followed in the background: a failure (a second breaker of one name) is a warning, never an unhandled rejection. */
  #background(work: Promise<void>): void {
    work.catch(warn);
  }

  async #attachBreaker(breaker: CircuitBreaker): Promise<void> {
    const existing = this.#attached.get(breaker.name);
    if (existing !== undefined) {
      if (existing.member.breaker === breaker) return;
      throw new TypeError(`RedisBreakerSync '${this.instanceId}': a breaker named '${breaker.name}' is attached already (detach it first)`);
    }
    const keys = breakerKeys(this.#options.keyPrefix, breaker.name);
    const lease = this.#options.trialLease ?? defaultLease(breaker);
    const member = new FleetMember(breaker, keys, lease, this.#ctx);
    const listener = (message: string): void => member.onMessage(message);
    this.#attached.set(breaker.name, { keys, listener, member });
    // Subscribed before reading, so no change falls between the read and the first message (`ver`
    // orders them). A subscriber that is not connected queues the subscription until it is: not
    // awaited then, and the state is read when the store recovers. Each round trip ends within
    // commandTimeout: attach never hangs on Redis (a subscription that got no answer is an outage,
    // and the state is read when it ends).
    const subscriber = this.#options.subscriber;
    const subscribed = this.#store.subscription(subscriber.subscribe(keys.channel, listener), 'subscribe');
    if (subscriber.isReady && !(await subscribed) && this.#store.down) return;
    await member.read();
  }

  /** Detaches a breaker or a registry: timers cleared, listeners removed, channels unsubscribed; the breakers keep their state. */
  async detach(target: CircuitBreaker | CircuitBreakerRegistry): Promise<void> {
    if (isRegistry(target)) {
      this.#registries.get(target)?.();
      this.#registries.delete(target);
      await Promise.all(target.all().map((b) => this.#detachBreaker(b)));
    } else await this.#detachBreaker(target);
  }

  async #detachBreaker(breaker: CircuitBreaker): Promise<void> {
    const attached = this.#attached.get(breaker.name);
    if (attached === undefined || attached.member.breaker !== breaker) return;
    this.#attached.delete(breaker.name);
    attached.member.detach();
    try {
      if (this.#options.subscriber.isReady) await this.#store.bounded(this.#options.subscriber.unsubscribe(attached.keys.channel, attached.listener));
    } catch {
      // The connection is gone (nothing is subscribed any more either), or Redis hangs (close() does not wait for it).
    }
  }

  /** Every instance's breaker `name`: FORCED_OPEN (cause 'fleet'), now and after a restart, until {@link release}. Rejects if Redis cannot take it. */
  forceOpen(name: string): Promise<void> {
    return this.#override(name, 'FORCED_OPEN');
  }

  /** Every instance's breaker `name`: DISABLED (cause 'fleet'), now and after a restart, until {@link release}. Rejects if Redis cannot take it. */
  disable(name: string): Promise<void> {
    return this.#override(name, 'DISABLED');
  }

  /** Ends an override or a fleet opening of `name`: the breakers the fleet moved go CLOSED, each on its own again. */
  release(name: string): Promise<void> {
    return this.#override(name, '');
  }

  async #override(name: string, state: 'FORCED_OPEN' | 'DISABLED' | ''): Promise<void> {
    if (typeof name !== 'string' || name.length === 0) {
      throw new TypeError(`RedisBreakerSync '${this.instanceId}': a breaker name must be a non-empty string, got ${describeValue(name)}`);
    }
    const keys = breakerKeys(this.#options.keyPrefix, name);
    await this.#store.command(OVERRIDE, keys, [state, keys.channel]);
  }

  /** Detaches everything and stops listening to the connections (which stay yours to close). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const off of this.#registries.values()) off();
    this.#registries.clear();
    await Promise.all([...this.#attached.values()].map((a) => this.#detachBreaker(a.member.breaker)));
    this.#store.close();
  }
}

/** An error that is a bug, not Redis's: a process warning (never an unhandled rejection); the sync goes on. */
function warn(error: unknown): void {
  process.emitWarning(`${describeThrown(error)}`, { type: 'BreakwaterRedisWarning' });
}

/** Twice the breaker's longest half-open time, or twice its first wait in OPEN when half-open has no limit (at most 2³¹−1 ms). */
export function defaultLease(breaker: CircuitBreaker): number {
  const maxHalfOpen = breaker.config.maxWaitDurationInHalfOpenState;
  return Math.max(boundMs(2 * (maxHalfOpen > 0 ? maxHalfOpen : breaker.config.waitInOpenState(1))), 1);
}
