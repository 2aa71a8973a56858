/**
 * Events of an {@link AdaptiveLimiter} (each also carries `type`, `name`, `at` and `time`).
 * `partition` is the call's partition (`undefined`: none).
 *
 * - `callPermitted`: a call got a slot, after waiting `waitMs` (0: at once).
 * - `callRejected`: the limiter refused a call: the limit was reached and the call could not wait
 *   (`maxWaitDuration` 0, the queue full) or waited `maxWaitDuration` in vain; `limit` and
 *   `inFlight` as they were then. A call whose own signal aborted is not a rejection and publishes
 *   nothing.
 * - `callFinished`: a permitted call ended and gave its slot back. `rtt` is the ms from its
 *   admission to its end (the sample the algorithm got); `didDrop` tells a drop; `ignored` a call
 *   that fed no sample (an error that is not a drop, a caller's abort, a token's `onIgnore`).
 *   This is the event the exporters' round-trip-time histogram reads.
 * - `limitChanged`: the algorithm moved the limit from `previous` to `limit`.
 *
 * @example
 * ```ts
 * limiter.on('limitChanged', (e: EventOf<AdaptiveLimiterEvents, 'limitChanged'>) => log.info(`${e.name}: limit ${e.previous} -> ${e.limit}`));
 * ```
 */
export type AdaptiveLimiterEvents = {
  callPermitted: { readonly partition: string | undefined; readonly waitMs: number };
  callRejected: { readonly partition: string | undefined; readonly limit: number; readonly inFlight: number };
  callFinished: { readonly partition: string | undefined; readonly rtt: number; readonly didDrop: boolean; readonly ignored: boolean };
  limitChanged: { readonly previous: number; readonly limit: number };
};

/** The event types an adaptive limiter publishes (`on` refuses any other, suggesting the closest). */
export const ADAPTIVE_LIMITER_EVENT_TYPES: readonly (keyof AdaptiveLimiterEvents)[] = ['callPermitted', 'callRejected', 'callFinished', 'limitChanged'];

/**
 * One partition of an adaptive limiter, in its snapshot.
 *
 * @example
 * ```ts
 * const { guaranteed, inFlight } = limiter.metrics.partitions['critical']!;
 * ```
 */
export interface AdaptivePartitionMetrics {
  /** The slots it keeps when the limiter is full: `max(1, ⌈limit · share⌉)`. */
  readonly guaranteed: number;
  /** Its calls holding a slot. */
  readonly inFlight: number;
  /** Its calls waiting for one. */
  readonly waiting: number;
}

/**
 * A snapshot of an adaptive limiter.
 *
 * @example
 * ```ts
 * const { limit, inFlight, waiting } = limiter.metrics;
 * ```
 */
export interface AdaptiveLimiterMetrics {
  /** The limit in force. */
  readonly limit: number;
  /** Calls holding a slot. */
  readonly inFlight: number;
  /** Calls waiting for a slot. */
  readonly waiting: number;
  /** Calls refused since the limiter was made. */
  readonly rejected: number;
  /** Each partition (empty without partitions). */
  readonly partitions: Readonly<Record<string, AdaptivePartitionMetrics>>;
}

/**
 * Events of an {@link AdaptiveThrottle} (each also carries `type`, `name`, `at` and `time`).
 *
 * - `callPermitted`: a call was let through to the backend (it counts as a request).
 * - `callRejected`: the throttle rejected a call locally, the backend never asked; `rejectRatio`
 *   was the probability of that.
 * - `callFinished`: a permitted call ended; `accepted` false for a drop (the backend refused or
 *   failed it: what `isDrop` accepts). A call that fed nothing (a caller's abort, `onIgnore`)
 *   publishes nothing.
 *
 * @example
 * ```ts
 * throttle.on('callRejected', (e: EventOf<AdaptiveThrottleEvents, 'callRejected'>) => log.warn(`${e.name} throttled at ${e.rejectRatio}`));
 * ```
 */
export type AdaptiveThrottleEvents = {
  callPermitted: Record<never, never>;
  callRejected: { readonly rejectRatio: number };
  callFinished: { readonly accepted: boolean };
};

/** The event types a throttle publishes. */
export const ADAPTIVE_THROTTLE_EVENT_TYPES: readonly (keyof AdaptiveThrottleEvents)[] = ['callPermitted', 'callRejected', 'callFinished'];

/**
 * A snapshot of an adaptive throttle, over its window as of `clock.now()`.
 *
 * @example
 * ```ts
 * const { requests, accepts, rejectRatio } = throttle.metrics;
 * ```
 */
export interface AdaptiveThrottleMetrics {
  /** Requests counted in the window: each answered one (in the bucket of its start), and each rejected locally. */
  readonly requests: number;
  /** Requests the backend accepted in the window. */
  readonly accepts: number;
  /** Requests rejected locally in the window. */
  readonly rejected: number;
  /** The probability of a local rejection now: `min(maxRejectRatio, max(0, (requests − k·accepts) / (requests + 1)))`. */
  readonly rejectRatio: number;
}

/** The empty fields of an event without any (shared: nothing is allocated per event but the event). */
export const NO_FIELDS: Record<never, never> = Object.freeze({});
