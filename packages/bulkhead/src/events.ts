import { BulkheadFullError } from '@breakwater/core';
import { withoutStack } from '@breakwater/core/internal';

/**
 * Events of a {@link Bulkhead} and of a pool bulkhead (each carries `type`, `name` and `at`).
 *
 * - `callPermitted`: a call got a slot (semaphore: when it takes the permit; pool: when it starts running).
 * - `callRejected`: the bulkhead refused a call (full, waited too long, or closed). A call whose own
 *   signal aborted is not a rejection and publishes nothing.
 * - `callFinished`: a permitted call ended and gave its slot back.
 *
 * @example
 * ```ts
 * db.on('callRejected', (e: EventOf<BulkheadEvents, 'callRejected'>) => log.warn(`${e.name} full at ${e.at}`));
 * ```
 */
export type BulkheadEvents = {
  callPermitted: Record<never, never>;
  callRejected: Record<never, never>;
  callFinished: Record<never, never>;
};

/** The event types both bulkheads publish (`on` refuses any other, suggesting the closest). */
export const BULKHEAD_EVENT_TYPES: readonly (keyof BulkheadEvents)[] = ['callPermitted', 'callRejected', 'callFinished'];

/**
 * A semaphore bulkhead's snapshot.
 *
 * @example
 * ```ts
 * const { availableConcurrentCalls, waitingCalls } = bulkhead.metrics;
 * ```
 */
export interface BulkheadMetrics {
  /** Slots free now (0 while a shrink waits for running calls to end). */
  readonly availableConcurrentCalls: number;
  /** `maxConcurrentCalls` in force. */
  readonly maxAllowedConcurrentCalls: number;
  /** Calls waiting for a slot. */
  readonly waitingCalls: number;
}

/**
 * A pool bulkhead's snapshot (the names of Resilience4j's ThreadPoolBulkhead metrics).
 *
 * @example
 * ```ts
 * const { activeCount, queueDepth } = pool.metrics;
 * ```
 */
export interface PoolBulkheadMetrics {
  readonly coreThreadPoolSize: number;
  /** Slots (threads) alive: core ones once started, plus the extra ones busy beyond the core. */
  readonly threadPoolSize: number;
  readonly maximumThreadPoolSize: number;
  /** Calls waiting in the queue. */
  readonly queueDepth: number;
  readonly queueCapacity: number;
  readonly remainingQueueCapacity: number;
  /** Calls running. */
  readonly activeCount: number;
}

/**
 * A bulkhead's refusal, `detail` saying why: a {@link BulkheadFullError} naming it, built without
 * a stack unless `writableStackTraceEnabled` (`stackTraces`), for cheaper rejections.
 */
export function bulkheadFull(name: string, detail: string, stackTraces: boolean): BulkheadFullError {
  return stackTraces ? new BulkheadFullError(name, detail) : withoutStack(() => new BulkheadFullError(name, detail));
}

/** The empty fields of every bulkhead event (shared: nothing is allocated per event but the event). */
export const NO_FIELDS: Record<never, never> = Object.freeze({});
