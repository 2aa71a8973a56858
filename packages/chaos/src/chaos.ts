import type { BehaviorInjection } from './behavior-injection.js';
import type { FaultInjection } from './fault-injection.js';
import type { LatencyInjection } from './latency-injection.js';
import type { OutcomeInjection } from './outcome-injection.js';

/**
 * Any of the four chaos strategies (`kind: 'chaos'`; tell them apart by `strategy`): what
 * `decorate().withChaos(c)` and the exporters take.
 *
 * @example
 * ```ts
 * const layers: Chaos[] = [faultInjection({ fault: new Error('x') }), latencyInjection({ latency: '1s' })];
 * for (const c of layers) console.log(c.strategy, c.metrics.numberOfInjectedCalls);
 * ```
 */
export type Chaos = FaultInjection | LatencyInjection | OutcomeInjection | BehaviorInjection;
