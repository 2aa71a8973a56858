import type { ConfigReader } from '@breakwater/core';
import { describeValue, isPlainObject } from '@breakwater/core/internal';

// Partitions of an adaptive limiter: each has a guaranteed share of the limit. The rule (contract:
// docs/adaptive.md) keeps the global limit a hard cap — no call is ever admitted while
// `inFlight >= limit`, partitions included (unlike Netflix's AbstractPartitionedLimiter, which
// admits a partition under its share above the global limit: #234) — and keeps each share through
// the queue: a freed slot goes first to a waiter of a partition below its guaranteed share.

/** Slack for the float product `limit · share` (0.7 · 100 is 70.00000000000001, whose ceiling would be 71). */
const EPSILON = 1e-9;

/**
 * The slots a partition is guaranteed when the limiter is full: `max(1, ⌈limit · share⌉)`.
 *
 * @example
 * ```ts
 * guaranteedSlots(100, 0.7); // 70
 * guaranteedSlots(3, 0.3);   // 1
 * ```
 */
export function guaranteedSlots(limit: number, share: number): number {
  return Math.max(1, Math.ceil(limit * share - EPSILON));
}

/** Checks the `partitions` option: a plain object of shares in (0, 1] summing to at most 1. */
export function checkPartitions<C extends { partitions?: unknown }>(read: ConfigReader<C>, value: unknown): Readonly<Record<string, number>> {
  if (value === undefined) return Object.freeze({});
  const key = 'partitions' as keyof C & string;
  if (!isPlainObject(value)) read.fail(key, 'an object of shares by partition name ({ critical: 0.7, batch: 0.3 })', value, 'type');
  const names = Object.keys(value);
  if (names.length === 0) read.fail(key, 'an object with at least one partition', value);
  let sum = 0;
  const shares: Record<string, number> = {};
  for (const name of names) {
    const share = value[name];
    if (typeof share !== 'number') throw new TypeError(`${read.source}: partitions.${name} must be a number in (0, 1], got ${describeValue(share)}`);
    if (!(share > 0 && share <= 1)) throw new RangeError(`${read.source}: partitions.${name} must be in (0, 1], got ${describeValue(share)}`);
    sum += share;
    shares[name] = share;
  }
  if (sum > 1 + EPSILON) {
    throw new RangeError(
      `${read.source}: partitions' shares must sum to at most 1, got ${Number(sum.toFixed(12))} (${names.map((n) => `${n}: ${shares[n]}`).join(', ')})`,
    );
  }
  return Object.freeze(shares);
}

/**
 * The lane of a call: the index of its partition in the configured order, or `partitionCount`
 * for a call with no partition (no guaranteed share). Throws for a name that is not configured.
 */
export function laneOf(source: string, names: readonly string[], partition: unknown): number {
  if (partition === undefined) return names.length;
  const lane = typeof partition === 'string' ? names.indexOf(partition) : -1;
  if (lane >= 0) return lane;
  if (names.length === 0) throw new TypeError(`${source}: partition ${describeValue(partition)} given, but the limiter has no partitions`);
  if (typeof partition !== 'string')
    throw new TypeError(`${source}: partition must be a string (one of ${names.map((n) => `'${n}'`).join(', ')}), got ${describeValue(partition)}`);
  throw new RangeError(`${source}: unknown partition ${describeValue(partition)} (partitions: ${names.map((n) => `'${n}'`).join(', ')})`);
}
