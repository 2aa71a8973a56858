import { BulkheadFullError } from '@breakwater/core';
import { withoutStack } from '@breakwater/core/internal';

/**
 * Events of a {@link Bulkhead} and of a pool bulkhead (each carries `type`, `name` and `at`).
 *
 * - `callPermitted`: a call got a slot (semaphore: when it takes the permit; pool: when it starts
 *   running), after waiting `waitMs` on the bulkhead's clock (0: at once). A call that waited
 *   publishes it itself, in its own async context, once the call that freed the slot has handed
 *   it over (so a trace puts the wait on the waiting call's span).
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
  callPermitted: { readonly waitMs: number };
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

/** The fields of a call permitted at once (shared: nothing is allocated for it but the event). */
const AT_ONCE: { readonly waitMs: number } = Object.freeze({ waitMs: 0 });

/** The fields of `callPermitted` after a wait of `waitMs` (the shared ones at once). */
export function permittedFields(waitMs: number): { readonly waitMs: number } {
  return waitMs === 0 ? AT_ONCE : { waitMs };
}

/** The empty fields of the other bulkhead events (shared: nothing is allocated per event but the event). */
export const NO_FIELDS: Record<never, never> = Object.freeze({});
