export { Bulkhead } from './bulkhead.js';
export { PoolBulkhead } from './pool-bulkhead.js';
export {
  WorkerPoolBulkhead,
  type ResolvedWorkerPoolBulkheadConfig,
  type WorkerPoolBulkheadConfig,
  type WorkerRunOptions,
} from './worker-pool-bulkhead.js';
export { admit, type Admission } from './admission.js';
export { BulkheadRegistry, PoolBulkheadRegistry } from './registry.js';
export type {
  BulkheadConfig,
  BulkheadConfigChange,
  PoolBulkheadConfig,
  PoolCloseOptions,
  PoolLimits,
  ResolvedBulkheadConfig,
  ResolvedPoolConfig,
} from './config.js';
export { BULKHEAD_OPTIONS, POOL_BULKHEAD_OPTIONS } from './config.js';
export type { BulkheadEvents, BulkheadMetrics, PoolBulkheadMetrics } from './events.js';
export { BulkheadFullError } from '@breakwater/core';
