import { closestName } from './closest-name.js';
import { systemClock, type Clock } from './clock.js';
import { ConfigReader, describeValue, isPlainObject } from './config.js';
import type { Duration } from './duration.js';
import { EventPublisher, type AnyEventOf, type EventOf, type Observable } from './events.js';

/**
 * Options of every registry (`CircuitBreakerRegistry`, `RetryRegistry`, …). Checked at
 * construction like a component's config; unknown keys are refused.
 *
 * @example
 * ```ts
 * const options: RegistryOptions<CircuitBreakerConfig> = {
 *   defaultConfig: { slidingWindowSize: 20 },
 *   configs: { night: { slidingWindowType: 'TIME_BASED', slidingWindowSize: 600 } },
 *   tags: { service: 'checkout' },
 *   maxSize: 10_000,          // per-tenant breakers stay bounded
 *   expireAfterAccess: '1h',
 * };
 * const breakers = new CircuitBreakerRegistry(options);
 * ```
 */
export interface RegistryOptions<C> {
  /** The config of instances created without one; every named config is laid over it. */
  readonly defaultConfig?: C | undefined;
  /** Named configs, for `get(name, 'configName')`. `'default'` is {@link defaultConfig}. */
  readonly configs?: Readonly<Record<string, C>> | undefined;
  /** Tags of the registry (for metrics exporters). */
  readonly tags?: Readonly<Record<string, string>> | undefined;
  /** At most this many instances; the least recently used is evicted beyond it. */
  readonly maxSize?: number | undefined;
  /** An instance not used (`get`/`find`) for this long is evicted. */
  readonly expireAfterAccess?: Duration | undefined;
  /** The clock of `expireAfterAccess` (default: `defaultConfig.clock`, else the system clock). */
  readonly clock?: Clock | undefined;
  /**
   * Settings of specific instances, by instance name (Spring's `instances.<name>`): `get(name)`
   * without a config creates `name` from its entry, laid over the default config. The names not
   * listed get the default config, and {@link onUnknownName} says whether that is worth telling.
   */
  readonly instances?: Readonly<Record<string, C>> | undefined;
  /**
   * What `get(name)` does, without a config, for a name {@link instances} does not list while it
   * lists others (the OpenFeign trap: a breaker named `PgPaymentClient#requestPayment(…)` never gets
   * the settings of `instances.pg-simulator`). `'warn'` (default): an `unconfiguredName` event and a
   * `BreakwaterConfigWarning` naming the closest configured instance, once per name; `'ignore'`:
   * the event only; `'throw'`: the event, then a `RangeError` (nothing is created). Without
   * `instances` there is nothing to tell.
   */
  readonly onUnknownName?: 'ignore' | 'warn' | 'throw' | undefined;
}

/**
 * Events of a registry: an instance was added, removed (`reason`: `'removed'` by hand,
 * `'evicted'` beyond `maxSize`, `'expired'` after `expireAfterAccess`) or replaced; and
 * `unconfiguredName`: `get(instanceName)` asked for a name that the registry's `instances` do
 * not configure (once per name; `closest`: the configured name it most likely meant, if any).
 *
 * @example
 * ```ts
 * breakers.on('removed', (e: EventOf<RegistryEvents<CircuitBreaker>, 'removed'>) => log(e.instance.name, e.reason));
 * ```
 */
export type RegistryEvents<I> = {
  added: { readonly instance: I };
  removed: { readonly instance: I; readonly reason: 'removed' | 'evicted' | 'expired' };
  replaced: { readonly old: I; readonly instance: I };
  unconfiguredName: { readonly instanceName: string; readonly closest: string | undefined };
};

interface Entry<I> {
  instance: I;
  lastAccess: number;
}

const DEFAULT = 'default';
/** At most this many unconfigured names are remembered (and told) per registry: hostile names cannot grow it without bound. */
const MAX_UNCONFIGURED_NAMES = 1000;

/**
 * Get-or-create storage of named instances with shared configs, the generic behind every
 * kind's registry. A name is created once and then returned as it is; `replace` swaps in a new
 * instance (the way to change a breaker's config at run time). `maxSize` and
 * `expireAfterAccess` evict least-recently-used instances, so per-tenant instances stay bounded:
 * `get`, `find` and `replace` count as a use; expiry is checked lazily on the next operation
 * (no timer). Each change is an event: `added`, `removed` (with a `reason`), `replaced`.
 *
 * @example
 * ```ts
 * const registry = new Registry('CircuitBreakerRegistry', (name, config) => new CircuitBreaker(name, config), {
 *   defaultConfig: { failureRateThreshold: 60 },
 *   configs: { slow: { slowCallDurationThreshold: 2000 } },
 * });
 * const pg = registry.get('pg', 'slow');
 * registry.get('pg') === pg; // true
 * ```
 */
export class Registry<I extends { readonly name: string }, C extends object> implements Observable<RegistryEvents<I>> {
  readonly #entries = new Map<string, Entry<I>>();
  readonly #configs = new Map<string, C>();
  readonly #events: EventPublisher<RegistryEvents<I>>;
  readonly #clock: Clock;
  readonly #maxSize: number;
  readonly #expireAfterAccess: number;
  /** `instances`, each laid over the default config. */
  readonly #instanceConfigs = new Map<string, C>();
  readonly #onUnknownName: 'ignore' | 'warn' | 'throw';
  /** The unconfigured names already told (see `onUnknownName`). */
  readonly #unconfiguredNames = new Set<string>();
  /** The registry's tags. */
  readonly tags: Readonly<Record<string, string>>;

  /**
   * `check(config, name)` validates a config as an instance named `name` would read it (throwing
   * the component's own error); the registry runs it on `defaultConfig` and each of `configs` at
   * construction and on each added config, so a bad config fails where it is written, not at the
   * first `get`.
   */
  constructor(
    readonly kind: string,
    private readonly create: (name: string, config: C) => I,
    options: RegistryOptions<C> = {},
    private readonly check?: (config: C, name: string) => void,
  ) {
    const read = ConfigReader.unnamed<RegistryOptions<C>>(kind, options, [
      'defaultConfig',
      'configs',
      'tags',
      'maxSize',
      'expireAfterAccess',
      'clock',
      'instances',
      'onUnknownName',
    ]);
    this.#maxSize = read.number('maxSize', Infinity, { gte: 1 });
    if (this.#maxSize !== Infinity && !Number.isInteger(this.#maxSize)) read.fail('maxSize', 'an integer >= 1', this.#maxSize);
    this.#expireAfterAccess = read.duration('expireAfterAccess', Infinity, { gt: 0 });
    const given = read.instance<C>('defaultConfig', 'a config object', isPlainObject);
    const named =
      read.instance<Record<string, C>>('configs', 'an object of config objects', (v) => isPlainObject(v) && Object.values(v).every(isPlainObject)) ?? {};
    const instances =
      read.instance<Record<string, C>>('instances', 'an object of config objects', (v) => isPlainObject(v) && Object.values(v).every(isPlainObject)) ?? {};
    this.#onUnknownName = read.oneOf('onUnknownName', 'warn', ['ignore', 'warn', 'throw'] as const);
    const tags = read.instance<Record<string, string>>(
      'tags',
      'an object of strings',
      (v) => isPlainObject(v) && Object.values(v).every((t) => typeof t === 'string'),
    );
    // `configs.default` (Spring's `configs.default`) is laid over `defaultConfig`, and every
    // other named config over the result, whatever the order of the keys.
    const defaultConfig = { ...given, ...named[DEFAULT] } as C;
    this.#setConfig(DEFAULT, defaultConfig);
    for (const [name, config] of Object.entries(named)) {
      if (name !== DEFAULT) this.#setConfig(name, { ...defaultConfig, ...config });
    }
    for (const [name, config] of Object.entries(instances)) {
      const laid = { ...defaultConfig, ...config };
      this.#check(laid, name, `instance '${name}'`);
      this.#instanceConfigs.set(name, laid);
    }
    this.#clock = read.has('clock') ? read.clock() : ((defaultConfig as { clock?: Clock }).clock ?? systemClock);
    this.tags = Object.freeze({ ...tags });
    this.#events = new EventPublisher<RegistryEvents<I>>(kind, this.#clock, kind, ['added', 'removed', 'replaced', 'unconfiguredName']);
  }

  on<K extends keyof RegistryEvents<I> & string>(type: K, listener: (event: EventOf<RegistryEvents<I>, K>) => void): () => void;
  on(type: '*', listener: (event: AnyEventOf<RegistryEvents<I>>) => void): () => void;
  on(type: string, listener: (event: never) => void): () => void {
    return this.#events.subscribe(type, listener);
  }

  /**
   * The instance named `name`, created on first use from `config` (an object laid over the
   * default config, or the name of a registered config), else from its entry in `instances`,
   * else from the default config (see `onUnknownName`). An existing instance is returned as it
   * is, whatever `config` says.
   */
  get(name: string, config?: C | string): I {
    const found = this.find(name);
    if (found !== undefined) return found;
    if (config === undefined && this.#instanceConfigs.size > 0 && !this.#instanceConfigs.has(name)) this.#unconfigured(name);
    const instance = this.create(name, config === undefined ? (this.#instanceConfigs.get(name) ?? this.defaultConfig) : this.#resolve(name, config));
    this.#entries.set(name, { instance, lastAccess: this.#clock.now() });
    this.#events.emit('added', { instance });
    this.#evictOverflow();
    return instance;
  }

  /** The instance named `name`, if any (counts as a use for LRU and expiry). */
  find(name: string): I | undefined {
    this.#expire();
    const entry = this.#entries.get(name);
    if (entry === undefined) return undefined;
    this.#touch(name, entry);
    return entry.instance;
  }

  /** Removes and returns the instance named `name` (`undefined` when there is none, or it has expired). */
  remove(name: string): I | undefined {
    this.#expire();
    return this.#drop(name, 'removed');
  }

  /**
   * Puts `instance` in the place of the one named `name`, only if that name exists (and has
   * not expired); returns the old one, else `undefined` and nothing changes. Counts as a use.
   * `instance.name` must be `name`.
   */
  replace(name: string, instance: I): I | undefined {
    if (instance?.name !== name) {
      throw new TypeError(`${this.kind}: replace('${name}', …) needs an instance named '${name}', got ${describeValue(instance?.name)}`);
    }
    this.#expire();
    const entry = this.#entries.get(name);
    if (entry === undefined) return undefined;
    const old = entry.instance;
    entry.instance = instance;
    this.#touch(name, entry);
    this.#events.emit('replaced', { old, instance });
    return old;
  }

  /** Every instance, least recently used first. */
  all(): I[] {
    this.#expire();
    return [...this.#entries.values()].map((e) => e.instance);
  }

  /** How many instances the registry holds. */
  get size(): number {
    this.#expire();
    return this.#entries.size;
  }

  /** Registers a named config (laid over the default config). `'default'` cannot be added. */
  addConfiguration(name: string, config: C): void {
    if (name === DEFAULT) throw new TypeError(`${this.kind}: the 'default' config is set by defaultConfig and cannot be added`);
    if (!isPlainObject(config))
      throw new TypeError(`${this.kind}: addConfiguration('${name}', config) needs a plain config object, got ${describeValue(config)}`);
    this.#setConfig(name, { ...this.#configs.get(DEFAULT)!, ...config });
  }

  /** Stores a config once `check` accepts it; its error says which config it is. */
  #setConfig(name: string, config: C): void {
    this.#check(config, name, `config '${name}'`);
    this.#configs.set(name, config);
  }

  /** Runs `check` on a config of `name`; its error says what it is (`what`: `config 'x'`, `instance 'x'`). */
  #check(config: C, name: string, what: string): void {
    if (this.check === undefined) return;
    try {
      this.check(config, name);
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      const Kind = error instanceof RangeError ? RangeError : TypeError;
      throw new Kind(`${this.kind}: ${what}: ${error.message}`, { cause: error });
    }
  }

  /** Tells, once per name, that `get(name)` asked for a name that `instances` do not configure (see `onUnknownName`). */
  #unconfigured(name: string): void {
    const told = this.#unconfiguredNames.has(name) || this.#unconfiguredNames.size >= MAX_UNCONFIGURED_NAMES;
    const configured = told && this.#onUnknownName !== 'throw' ? [] : [...this.#instanceConfigs.keys()];
    const closest = configured.length === 0 ? undefined : closestName(name, configured);
    const hint =
      closest !== undefined ? `did you mean '${closest}'?` : `configured: ${configured.slice(0, 10).join(', ')}${configured.length > 10 ? ', …' : ''}`;
    const message = `${this.kind}: no instance is configured for '${name.length > 120 ? `${name.slice(0, 120)}…` : name}'`;
    if (!told) {
      this.#unconfiguredNames.add(name);
      if (this.#events.wants('unconfiguredName')) this.#events.emit('unconfiguredName', { instanceName: name, closest });
      if (this.#onUnknownName === 'warn') {
        const last = this.#unconfiguredNames.size === MAX_UNCONFIGURED_NAMES ? ` (the last such warning: ${MAX_UNCONFIGURED_NAMES} names were reported)` : '';
        process.emitWarning(`${message}; it gets the default config (${hint})${last}`, { type: 'BreakwaterConfigWarning' });
      }
    }
    if (this.#onUnknownName === 'throw')
      throw new RangeError(`${message} (${hint}); configure it in instances, pass its config to get(name, config), or set onUnknownName`);
  }

  /** Removes a named config. `'default'` cannot be removed. */
  removeConfiguration(name: string): boolean {
    if (name === DEFAULT) throw new TypeError(`${this.kind}: the 'default' config cannot be removed`);
    return this.#configs.delete(name);
  }

  /** The named config, as instances get it. */
  configuration(name: string): C | undefined {
    return this.#configs.get(name);
  }

  /** The default config. */
  get defaultConfig(): C {
    return this.#configs.get(DEFAULT)!;
  }

  #resolve(name: string, config: C | string | undefined): C {
    if (config === undefined) return this.defaultConfig;
    if (typeof config === 'string') {
      const named = this.#configs.get(config);
      if (named === undefined) {
        throw new RangeError(`${this.kind}: get('${name}', '${config}'): no config named '${config}' (known: ${[...this.#configs.keys()].join(', ')})`);
      }
      return named;
    }
    if (!isPlainObject(config)) {
      throw new TypeError(`${this.kind}: get('${name}', config) needs a plain config object or a config's name, got ${describeValue(config)}`);
    }
    return { ...this.defaultConfig, ...config };
  }

  /** Marks a use: the entry moves to the back of the map, whose order is access order. */
  #touch(name: string, entry: Entry<I>): void {
    entry.lastAccess = this.#clock.now();
    this.#entries.delete(name);
    this.#entries.set(name, entry);
  }

  #drop(name: string, reason: 'removed' | 'evicted' | 'expired'): I | undefined {
    const entry = this.#entries.get(name);
    if (entry === undefined) return undefined;
    this.#entries.delete(name);
    this.#events.emit('removed', { instance: entry.instance, reason });
    return entry.instance;
  }

  #evictOverflow(): void {
    for (const name of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxSize) return;
      this.#drop(name, 'evicted');
    }
  }

  #expire(): void {
    if (this.#expireAfterAccess === Infinity) return;
    const now = this.#clock.now();
    // Map order is access order, so the stale ones are at the front.
    for (const [name, entry] of this.#entries) {
      if (now - entry.lastAccess < this.#expireAfterAccess) return;
      this.#drop(name, 'expired');
    }
  }
}
