// @breakwater/chaos: Polly Simmy's four chaos strategies as policies, off unless enabled (contract: docs/chaos.md).
export { FaultInjection } from './fault-injection.js';
export { LatencyInjection } from './latency-injection.js';
export { OutcomeInjection } from './outcome-injection.js';
export { BehaviorInjection } from './behavior-injection.js';
export { faultInjection, latencyInjection, outcomeInjection, behaviorInjection, type ChaosName } from './factories.js';
export { CHAOS_OPTIONS, type ChaosOptions, type ChaosStrategyName, type ResolvedChaosOptions } from './options.js';
export {
  resolveBehaviorInjectionConfig,
  resolveFaultInjectionConfig,
  resolveLatencyInjectionConfig,
  resolveOutcomeInjectionConfig,
  type BehaviorInjectionConfig,
  type FaultInjectionConfig,
  type LatencyInjectionConfig,
  type OutcomeInjectionConfig,
  type ResolvedBehaviorInjectionConfig,
  type ResolvedFaultInjectionConfig,
  type ResolvedLatencyInjectionConfig,
  type ResolvedOutcomeInjectionConfig,
} from './config.js';
export { CHAOS_EVENT_TYPES, type ChaosEvents, type ChaosInjected, type ChaosMetrics } from './events.js';
export type { Chaos } from './chaos.js';
export { ChaosStrategy } from './chaos-strategy.js';
