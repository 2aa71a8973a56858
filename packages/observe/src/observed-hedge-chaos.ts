// What an exporter reads of a hedge (`@breakwater/retry`) and of a chaos layer (`@breakwater/chaos`):
// counters only, read at collect time; neither is bound per call (contract: docs/observability.md).

/**
 * What an exporter reads of a `Hedge` (`@breakwater/retry`): its calls by outcome, the hedged
 * attempts it started beyond the primary, the hedges its budget refused, and which attempt each
 * call's outcome came from (`winsByAttempt[0]`: the primary; one entry per attempt it may start).
 *
 * @example
 * ```ts
 * const component: ObservedHedge = new Hedge('search', { maxHedgedAttempts: 2 });
 * ```
 */
export interface ObservedHedge {
  readonly kind: 'hedge';
  readonly name: string;
  readonly metrics: {
    readonly numberOfSuccessfulCalls: number;
    readonly numberOfFailedCalls: number;
    readonly numberOfHedgedAttempts: number;
    readonly numberOfHedgesRefusedByBudget: number;
    readonly winsByAttempt: readonly number[];
  };
}

/**
 * The four strategies of `@breakwater/chaos`: the `strategy` label of `_chaos_calls_total`.
 *
 * @example
 * ```ts
 * const strategy: ObservedChaosStrategy = latencyInjection({ latency: '1s' }).strategy; // 'latency'
 * ```
 */
export type ObservedChaosStrategy = 'fault' | 'latency' | 'outcome' | 'behavior';

/**
 * What an exporter reads of a chaos layer (`FaultInjection`, `LatencyInjection`,
 * `OutcomeInjection` or `BehaviorInjection` of `@breakwater/chaos`): its strategy, and its calls
 * injected and not.
 *
 * @example
 * ```ts
 * const component: ObservedChaos = faultInjection({ name: 'pg-faults', fault: new Error('injected'), enabled: true, rate: 0.01 });
 * ```
 */
export interface ObservedChaos {
  readonly kind: 'chaos';
  readonly name: string;
  readonly strategy: ObservedChaosStrategy;
  readonly metrics: { readonly numberOfInjectedCalls: number; readonly numberOfCallsNotInjected: number };
}
