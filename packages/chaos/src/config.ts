import { ConfigReader, type CallContext, type Duration } from '@breakwater/core';
import { CHAOS_OPTIONS, DEFAULT_LATENCY_MS, DEFAULT_RATE, type ChaosOptions, type ResolvedChaosOptions } from './options.js';

/**
 * Options of a {@link FaultInjection}: `fault` is the error thrown instead of calling `fn` — a
 * value, or a function of the call that returns one (`undefined` from it: no injection this time,
 * as Polly's `null`). A function given as `fault` is always taken as such a generator.
 *
 * @example
 * ```ts
 * const config: FaultInjectionConfig = { enabled: true, rate: 0.1, fault: () => new Error('chaos: connection reset') };
 * ```
 */
export interface FaultInjectionConfig extends ChaosOptions {
  /** The error thrown instead of the call, or `(ctx) => error` (`undefined`: not this call). Required. */
  readonly fault: unknown;
}

/**
 * Options of a {@link LatencyInjection}: `latency` is the wait before the call, a `Duration` >= 0,
 * or a function of the call returning one (a value <= 0 or not a duration: no wait, no injection).
 * Default 30 s (Polly's).
 *
 * @example
 * ```ts
 * const config: LatencyInjectionConfig = { enabled: true, rate: 0.2, latency: '1.5s' };
 * ```
 */
export interface LatencyInjectionConfig extends ChaosOptions {
  /** The wait before the call, a finite duration >= 0, or `(ctx) => Duration` (<= 0: no injection). Default 30 s. */
  readonly latency?: Duration | ((ctx: CallContext) => Duration) | undefined;
}

/**
 * Options of an {@link OutcomeInjection}: `outcome` is the result returned instead of calling `fn`
 * — a value, or a function of the call that returns one (a promise is adopted; `undefined` is a
 * result like any other). A function given as `outcome` is always taken as a generator.
 *
 * @example
 * ```ts
 * const config: OutcomeInjectionConfig = { enabled: true, rate: 0.05, outcome: { status: 503, body: '' } };
 * ```
 */
export interface OutcomeInjectionConfig extends ChaosOptions {
  /** The result returned instead of the call, or `(ctx) => result` (a promise is adopted). Required. */
  readonly outcome: unknown;
}

/**
 * Options of a {@link BehaviorInjection}: `behavior` runs before `fn` (awaited); if it throws or
 * rejects, the call fails with that error and `fn` is not called.
 *
 * @example
 * ```ts
 * const config: BehaviorInjectionConfig = { enabled: true, rate: 0.01, behavior: async () => { await pool.killOneConnection(); } };
 * ```
 */
export interface BehaviorInjectionConfig extends ChaosOptions {
  /** Run (and awaited) before the call; its throw or rejection fails the call. Required. */
  readonly behavior: (ctx: CallContext) => void | PromiseLike<void>;
}

/**
 * A fault injection's options once checked (what `chaos.config` reads back).
 *
 * @example
 * ```ts
 * const { fault, rate }: ResolvedFaultInjectionConfig = faults.config;
 * ```
 */
export interface ResolvedFaultInjectionConfig extends ResolvedChaosOptions {
  /** As given. */
  readonly fault: unknown;
}

/**
 * A latency injection's options once checked: a constant latency in ms, or the function as given.
 *
 * @example
 * ```ts
 * const { latency }: ResolvedLatencyInjectionConfig = slow.config; // 1500 for '1.5s'
 * ```
 */
export interface ResolvedLatencyInjectionConfig extends ResolvedChaosOptions {
  /** In ms, or the function as given. */
  readonly latency: number | ((ctx: CallContext) => Duration);
}

/**
 * An outcome injection's options once checked.
 *
 * @example
 * ```ts
 * const { outcome }: ResolvedOutcomeInjectionConfig = fakes.config;
 * ```
 */
export interface ResolvedOutcomeInjectionConfig extends ResolvedChaosOptions {
  /** As given. */
  readonly outcome: unknown;
}

/**
 * A behaviour injection's options once checked.
 *
 * @example
 * ```ts
 * const { behavior }: ResolvedBehaviorInjectionConfig = monkey.config;
 * ```
 */
export interface ResolvedBehaviorInjectionConfig extends ResolvedChaosOptions {
  /** As given. */
  readonly behavior: (ctx: CallContext) => void | PromiseLike<void>;
}

function common<C extends ChaosOptions>(read: ConfigReader<C>, config: C | undefined): ResolvedChaosOptions {
  const rate = config?.rate;
  const enabled = config?.enabled;
  return {
    rate: typeof rate === 'function' ? rate : read.number('rate', DEFAULT_RATE, { gte: 0, lte: 1 }),
    enabled: typeof enabled === 'function' ? enabled : read.boolean('enabled', false),
    random: read.fn<() => number>('random') ?? Math.random,
    clock: read.clock(),
  };
}

function typeOfFunctionOr<C extends ChaosOptions>(read: ConfigReader<C>, key: 'rate' | 'enabled', what: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function' && typeof value !== what) {
    read.fail(
      key,
      key === 'rate' ? 'a number in [0, 1] or a function of the call returning one' : 'true, false or a function of the call returning one',
      value,
      'type',
    );
  }
}

function reader<C extends ChaosOptions>(component: string, name: string, config: C | undefined, keys: readonly string[]): ConfigReader<C> {
  const read = new ConfigReader<C>(component, name, config, keys as readonly (keyof C & string)[]);
  typeOfFunctionOr(read, 'rate', 'number', config?.rate);
  typeOfFunctionOr(read, 'enabled', 'boolean', config?.enabled);
  return read;
}

/**
 * Checks a fault injection's options; throws naming the component, the option, the value and what
 * is valid (`FaultInjection 'pg': rate must be in [0, 1], got 2`).
 *
 * @example
 * ```ts
 * const resolved = resolveFaultInjectionConfig('pg', { enabled: true, fault: new Error('boom') });
 * ```
 */
export function resolveFaultInjectionConfig(name: string, config: FaultInjectionConfig): ResolvedFaultInjectionConfig {
  const read = reader('FaultInjection', name, config, CHAOS_OPTIONS.fault);
  if (!read.has('fault')) read.fail('fault', 'given (an error, or a function of the call returning one)', config?.fault, 'type');
  return { ...common(read, config), fault: config.fault };
}

/**
 * Checks a latency injection's options (`latency` a finite duration >= 0, or a function).
 *
 * @example
 * ```ts
 * const resolved = resolveLatencyInjectionConfig('pg', { enabled: true, latency: '2s' }); // latency: 2000
 * ```
 */
export function resolveLatencyInjectionConfig(name: string, config: LatencyInjectionConfig | undefined): ResolvedLatencyInjectionConfig {
  const read = reader('LatencyInjection', name, config, CHAOS_OPTIONS.latency);
  const given = config?.latency;
  let latency: number | ((ctx: CallContext) => Duration);
  if (typeof given === 'function') latency = given;
  else {
    latency = read.duration('latency', DEFAULT_LATENCY_MS, { gte: 0 });
    if (!Number.isFinite(latency)) read.fail('latency', 'a finite duration >= 0 (or a function of the call returning one)', given);
  }
  return { ...common(read, config), latency };
}

/**
 * Checks an outcome injection's options (`outcome` must be given).
 *
 * @example
 * ```ts
 * const resolved = resolveOutcomeInjectionConfig('pg', { enabled: true, outcome: { rows: [] } });
 * ```
 */
export function resolveOutcomeInjectionConfig(name: string, config: OutcomeInjectionConfig): ResolvedOutcomeInjectionConfig {
  const read = reader('OutcomeInjection', name, config, CHAOS_OPTIONS.outcome);
  if (!read.has('outcome')) {
    read.fail('outcome', 'given (a result, or a function of the call returning one; () => undefined for an undefined result)', config?.outcome, 'type');
  }
  return { ...common(read, config), outcome: config.outcome };
}

/**
 * Checks a behaviour injection's options (`behavior` a function).
 *
 * @example
 * ```ts
 * const resolved = resolveBehaviorInjectionConfig('pg', { enabled: true, behavior: () => cache.clear() });
 * ```
 */
export function resolveBehaviorInjectionConfig(name: string, config: BehaviorInjectionConfig): ResolvedBehaviorInjectionConfig {
  const read = reader('BehaviorInjection', name, config, CHAOS_OPTIONS.behavior);
  const behavior = read.fn<(ctx: CallContext) => void | PromiseLike<void>>('behavior');
  if (behavior === undefined) return read.fail('behavior', 'a function of the call (run before it)', config?.behavior, 'type');
  return { ...common(read, config), behavior };
}
