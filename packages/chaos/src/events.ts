/**
 * Events of a chaos strategy (each also carries `type`, `name`, `at` and `time`).
 *
 * - `injected`: the strategy injected this call (`attempt` is the call's `ctx.attempt`), published
 *   when the injection starts: with the `error` a fault throws, the `latencyMs` a latency waits, the
 *   `result` an outcome returns (as given: a promise is not awaited for the event), or nothing more
 *   for a behaviour (published before the behaviour runs).
 *
 * A call not injected publishes nothing (it is counted in `numberOfCallsNotInjected`). No event
 * object is built without a listener.
 *
 * @example
 * ```ts
 * chaos.on('injected', (e: EventOf<ChaosEvents, 'injected'>) => log.warn(`chaos ${e.strategy} injected into ${e.name}`));
 * ```
 */
export type ChaosEvents = {
  injected: ChaosInjected;
};

/**
 * The fields of an `injected` event, by strategy.
 *
 * @example
 * ```ts
 * const describe = (e: ChaosInjected) => (e.strategy === 'latency' ? `+${e.latencyMs} ms` : e.strategy);
 * ```
 */
export type ChaosInjected =
  | { readonly strategy: 'fault'; readonly attempt: number; readonly error: unknown }
  | { readonly strategy: 'latency'; readonly attempt: number; readonly latencyMs: number }
  | { readonly strategy: 'outcome'; readonly attempt: number; readonly result: unknown }
  | { readonly strategy: 'behavior'; readonly attempt: number };

/**
 * The event types a chaos strategy publishes (`on` refuses any other, suggesting the closest).
 *
 * @example
 * ```ts
 * CHAOS_EVENT_TYPES.includes('injected'); // true
 * ```
 */
export const CHAOS_EVENT_TYPES: readonly (keyof ChaosEvents)[] = ['injected'];

/**
 * A snapshot of a chaos strategy's counts since it was made. A call whose signal had aborted before
 * it started, or whose options were not valid, is in neither.
 *
 * @example
 * ```ts
 * const { numberOfInjectedCalls, numberOfCallsNotInjected } = chaos.metrics;
 * ```
 */
export interface ChaosMetrics {
  /** Calls the strategy injected. */
  readonly numberOfInjectedCalls: number;
  /** Calls passed to `fn` untouched (disabled, the draw said no, a generator said no or threw). */
  readonly numberOfCallsNotInjected: number;
}
