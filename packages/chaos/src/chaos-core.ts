import { EventPublisher } from '@breakwater/core';
import type { CallContext, ExecuteOptions, PolicyFn } from '@breakwater/core';
import { callbackThrew, enterCall, invoke, raceAbort, ROOT_CONTEXT } from '@breakwater/core/internal';
import { CHAOS_EVENT_TYPES, type ChaosEvents, type ChaosInjected, type ChaosMetrics } from './events.js';
import type { ResolvedChaosOptions } from './options.js';

/**
 * What the four strategies share (contract: docs/chaos.md): the decision (Polly's order: the
 * caller's signal, `enabled`, `rate`, then one draw of `random`), the counts, the events, and the
 * plain pass-through of a call not injected. Not exported from the package.
 */
export class ChaosCore {
  readonly events: EventPublisher<ChaosEvents>;
  /** `enabled: false` given as a constant: every call passes through, nothing else is looked at. */
  readonly off: boolean;
  injected = 0;
  notInjected = 0;
  readonly #rate: number | ((ctx: CallContext) => number);
  readonly #enabled: boolean | ((ctx: CallContext) => boolean);
  readonly #random: () => number;

  constructor(
    name: string,
    readonly source: string,
    options: ResolvedChaosOptions,
  ) {
    this.events = new EventPublisher(name, options.clock, source, CHAOS_EVENT_TYPES);
    this.off = options.enabled === false;
    this.#rate = options.rate;
    this.#enabled = options.enabled;
    this.#random = options.random;
  }

  get metrics(): ChaosMetrics {
    return { numberOfInjectedCalls: this.injected, numberOfCallsNotInjected: this.notInjected };
  }

  /** The disabled path: `fn` as if no chaos layer were there (never a sync throw; the caller's abort rejects at once). */
  pass<T>(fn: PolicyFn<T>, options: ExecuteOptions | CallContext | null | undefined): Promise<T> {
    if (options === undefined || options === ROOT_CONTEXT) {
      this.notInjected++;
      return invoke(fn, ROOT_CONTEXT);
    }
    const ctx = enterCall(options);
    if (ctx instanceof Promise) return ctx;
    this.notInjected++;
    return raceAbort(invoke(fn, ctx), ctx.signal);
  }

  /** A call not injected after all: counted, then `fn` runs. */
  run<T>(fn: PolicyFn<T>, ctx: CallContext): Promise<T> {
    this.notInjected++;
    return raceAbort(invoke(fn, ctx), ctx.signal);
  }

  /** Whether to inject this call: `enabled`, then `rate` (clamped), then one draw. A callback that throws: no injection (reported once). */
  decide(ctx: CallContext): boolean {
    let enabled = this.#enabled;
    if (typeof enabled === 'function') {
      const isEnabled = enabled;
      try {
        enabled = isEnabled(ctx) === true;
      } catch (error) {
        callbackThrew(this.source, 'enabled', isEnabled, error, 'the call is not injected');
        return false;
      }
    }
    if (!enabled) return false;
    let rate = this.#rate;
    if (typeof rate === 'function') {
      const rateOf = rate;
      try {
        rate = clamp(rateOf(ctx));
      } catch (error) {
        callbackThrew(this.source, 'rate', rateOf, error, 'the call is not injected');
        return false;
      }
    }
    const random = this.#random;
    try {
      return random() < rate;
    } catch (error) {
      callbackThrew(this.source, 'random', random, error, 'the call is not injected');
      return false;
    }
  }

  /** The context of a call the strategy may inject, or the rejection to return (bad options, an aborted signal). */
  enter(options: ExecuteOptions | CallContext | null | undefined): CallContext | Promise<never> {
    return options === undefined || options === ROOT_CONTEXT ? ROOT_CONTEXT : enterCall(options);
  }

  /** Counts an injection; whether anyone listens to `injected` (build the event only then, and {@link publish} it). */
  inject(): boolean {
    this.injected++;
    return this.events.wants('injected');
  }

  publish(fields: ChaosInjected): void {
    this.events.emit('injected', fields);
  }

  /** A generator (fault, latency, outcome) that threw: reported once; the call is not injected. */
  generatorThrew(option: string, generator: object, error: unknown): void {
    callbackThrew(this.source, option, generator, error, 'the call is not injected');
  }
}

/** A rate from a function, clamped to [0, 1]; anything but a number (`NaN` included) is 0. */
export function clamp(rate: unknown): number {
  if (typeof rate !== 'number' || !(rate > 0)) return 0;
  return rate > 1 ? 1 : rate;
}
