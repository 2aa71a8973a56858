export { Retry } from './retry.js';
export { RetryRegistry } from './registry.js';
export { RetryBudget, type RetryBudgetConfig, type RetryBudgetMetrics } from './retry-budget.js';
export {
  IntervalFunction,
  type IntervalBiFunction,
  type IntervalState,
  type RetryOutcome,
} from './interval-function.js';
export { retryAfterInterval } from './retry-after-interval.js';
export type { ResolvedRetryConfig, RetryConfig } from './config.js';
export { RETRY_OPTIONS } from './config.js';
export type { RetryEvents, RetryMetrics } from './events.js';
export { MaxRetriesExceededError } from '@breakwater/core';
export { Hedge } from './hedge.js';
export { HedgeRegistry } from './hedge-registry.js';
export { HedgeDelay } from './hedge-delay.js';
export {
  HEDGE_OPTIONS,
  resolveHedgeConfig,
  type HedgeConfig,
  type HedgeDelaySetting,
  type HedgeOutcome,
  type HedgePercentileDelay,
  type ResolvedHedgeConfig,
} from './hedge-config.js';
export { HEDGE_EVENT_TYPES, type HedgeEvents, type HedgeMetrics } from './hedge-events.js';
