// What the builder knows of Breakwater's own kinds of policy: how they print (`describe()`), which
// of them hold a slot while `fn` runs, and the views a with-method asks a policy for once, at
// build time (a rate limiter's `withPermits(n)`, an adaptive limiter's `inPartition(p)`). The
// orders of layers that lose information (`pipeline.warnings`) are warnings.ts's. The rest of the
// builder knows only the Policy and LayerPolicy protocols of @breakwater/core, so a user's own
// policy composes the same way. A kind is spelt through `BuiltinKind`: a misspelt one is a type error.
import type { Policy, PolicyKind } from '@breakwater/core';
import { describeValue } from '@breakwater/core/internal';

/** The kinds of Breakwater's own policies (core's `PolicyKind` without a user's own). */
export type BuiltinKind =
  | 'retry'
  | 'circuitBreaker'
  | 'timeLimiter'
  | 'bulkhead'
  | 'poolBulkhead'
  | 'rateLimiter'
  | 'adaptiveLimiter'
  | 'throttle'
  | 'hedge'
  | 'chaos'
  | 'fallback';

/** How `describe()` prints each built-in kind: its class name. */
const KIND_LABELS: Readonly<Record<BuiltinKind, string>> = {
  retry: 'Retry',
  circuitBreaker: 'CircuitBreaker',
  timeLimiter: 'TimeLimiter',
  bulkhead: 'Bulkhead',
  poolBulkhead: 'PoolBulkhead',
  rateLimiter: 'RateLimiter',
  adaptiveLimiter: 'AdaptiveLimiter',
  throttle: 'AdaptiveThrottle',
  hedge: 'Hedge',
  chaos: 'Chaos',
  fallback: 'Fallback',
};

/**
 * One layer as `describe()` prints it: `CircuitBreaker 'pg'` for a built-in kind (the class
 * name), the kind as given for any other (`audit 'pg'`).
 */
export function layerLabel(kind: PolicyKind, name: string): string {
  return `${Object.hasOwn(KIND_LABELS, kind) ? KIND_LABELS[kind as BuiltinKind] : kind} '${name}'`;
}

/** How `describe()` prints each chaos strategy (a policy of kind `'chaos'`, told apart by its `strategy`): its class name. */
const CHAOS_LABELS: Readonly<Record<string, string>> = {
  fault: 'FaultInjection',
  latency: 'LatencyInjection',
  outcome: 'OutcomeInjection',
  behavior: 'BehaviorInjection',
};

/**
 * How `describe()` prints a layer's policy: {@link layerLabel}; a chaos strategy by its class
 * (`FaultInjection 'pg'`); and for an adaptive limiter's partition view
 * (`limiter.inPartition('batch')`, whose `partition` is a string) the partition too:
 * `AdaptiveLimiter 'pg' (partition batch)`, as `withAdaptiveLimiter(limiter, { partition })` prints it.
 */
export function policyLabel(policy: Policy): string {
  if (policy.kind === 'chaos') {
    const strategy = (policy as { readonly strategy?: unknown }).strategy;
    if (typeof strategy === 'string' && Object.hasOwn(CHAOS_LABELS, strategy)) return `${CHAOS_LABELS[strategy]} '${policy.name}'`;
  }
  const label = layerLabel(policy.kind, policy.name);
  const partition = policy.kind === 'adaptiveLimiter' ? (policy as { readonly partition?: unknown }).partition : undefined;
  return typeof partition === 'string' ? `${label} (partition ${partition})` : label;
}

/**
 * The kinds whose policy holds a slot (a bulkhead's permit, a pool's worker, an adaptive
 * limiter's place under its limit) while the call inside it runs: their layer keeps the slot
 * until `fn` really settles, even when the layers inside it have already given up on an abort
 * (see `holdingStep` in layers.ts). For the adaptive limiter this also makes the round trip it
 * samples end when the backend's work ends, not when an outer layer stopped waiting for it.
 */
export function holdsASlot(kind: PolicyKind): boolean {
  return (SLOT_HOLDING_KINDS as readonly string[]).includes(kind);
}
const SLOT_HOLDING_KINDS: readonly BuiltinKind[] = ['bulkhead', 'poolBulkhead', 'adaptiveLimiter'];

/** Checks, for JavaScript callers, that `value` is a Policy of one of `kinds` (a with-method's). */
export function checkKind(method: string, value: unknown, kinds: readonly BuiltinKind[]): asserts value is Policy {
  checkPolicy(method, value);
  if (!(kinds as readonly string[]).includes(value.kind)) {
    const expected = kinds.map((k) => `'${k}'`).join(' or ');
    throw new TypeError(`${method}: expected a policy of kind ${expected}, got kind '${value.kind}' (${layerLabel(value.kind, value.name)})`);
  }
}

/** Checks that `value` is a Policy: a string name, a string kind and an execute method. */
export function checkPolicy(method: string, value: unknown): asserts value is Policy {
  const p = value as Partial<Policy> | null;
  if (typeof p !== 'object' || p === null || typeof p.execute !== 'function' || typeof p.name !== 'string' || typeof p.kind !== 'string') {
    throw new TypeError(`${method}: expected a Policy (an object with a string name, a string kind and an execute method), got ${describeValue(value)}`);
  }
}

/**
 * A rate limiter as `withRateLimiter` sees it: a `Policy` of kind `'rateLimiter'`, with an
 * optional `withPermits(n)` giving a policy that takes `n` permits per call.
 *
 * @example
 * ```ts
 * const limiter: RateLimiterLike = new RateLimiter('pg', { limitForPeriod: 10 });
 * ```
 */
export type RateLimiterLike = Policy & {
  readonly kind: 'rateLimiter';
  withPermits?(permits: number): Pick<Policy, 'execute'>;
};

/**
 * The policy that takes `permits` permits of `limiter` per call, and its label
 * (`RateLimiter 'pg' (3 permits)`): `limiter.withPermits(permits)`, called once, at build time.
 * Throws for a `permits` that is not an integer ≥ 1, and for a limiter without `withPermits`.
 */
export function withPermits(limiter: RateLimiterLike, permits: unknown): { readonly view: Pick<Policy, 'execute'>; readonly label: string } {
  if (typeof permits !== 'number') throw new TypeError(`withRateLimiter: permits must be a number, got ${describeValue(permits)}`);
  if (!Number.isInteger(permits) || permits < 1) throw new RangeError(`withRateLimiter: permits must be an integer >= 1, got ${describeValue(permits)}`);
  const label = layerLabel(limiter.kind, limiter.name);
  if (typeof limiter.withPermits !== 'function') {
    throw new TypeError(`withRateLimiter: ${label} has no withPermits(n) method, so it cannot take ${permits} permits per call`);
  }
  const view = limiter.withPermits(permits);
  if (typeof view !== 'object' || view === null || typeof view.execute !== 'function') {
    throw new TypeError(`withRateLimiter: ${label}.withPermits(${permits}) must return a policy (with an execute method), got ${describeValue(view)}`);
  }
  return { view, label: `${label} (${permits} permits)` };
}

/**
 * An adaptive limiter as `withAdaptiveLimiter` sees it: a `Policy` of kind `'adaptiveLimiter'`,
 * with an optional `inPartition(p)` giving a policy whose calls run in partition `p`.
 *
 * @example
 * ```ts
 * const limiter: AdaptiveLimiterLike = new AdaptiveLimiter('pg', { partitions: { critical: 0.7, batch: 0.3 } });
 * ```
 */
export type AdaptiveLimiterLike = Policy & {
  readonly kind: 'adaptiveLimiter';
  inPartition?(partition: string): Pick<Policy, 'execute'>;
};

/**
 * Options of `Pipeline.withAdaptiveLimiter`.
 *
 * @example
 * ```ts
 * const options: WithAdaptiveLimiterOptions = { partition: 'critical' };
 * ```
 */
export interface WithAdaptiveLimiterOptions {
  /** The partition every call of the pipeline runs in (one of the limiter's `partitions`); default none. */
  readonly partition?: string | undefined;
}

/**
 * The policy that runs each call of `limiter` in partition `options.partition`, and its label
 * (`AdaptiveLimiter 'pg' (partition critical)`): `limiter.inPartition(partition)`, called once, at
 * build time (an unknown partition is the limiter's error, thrown here). `undefined` without a
 * partition. Throws for options that are not `{ partition?: string }`, and for a limiter without `inPartition`.
 */
export function withPartition(limiter: AdaptiveLimiterLike, options: unknown): { readonly view: Pick<Policy, 'execute'>; readonly label: string } | undefined {
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options))) {
    throw new TypeError(`withAdaptiveLimiter: options must be an object, got ${describeValue(options)}`);
  }
  for (const key of Object.keys(options ?? {})) {
    if (key !== 'partition') throw new TypeError(`withAdaptiveLimiter: unknown option '${key}' (known options: partition)`);
  }
  const partition = (options as WithAdaptiveLimiterOptions | undefined)?.partition;
  if (partition === undefined) return undefined;
  if (typeof partition !== 'string' || partition.length === 0) {
    throw new TypeError(`withAdaptiveLimiter: partition must be a non-empty string, got ${describeValue(partition)}`);
  }
  const label = layerLabel(limiter.kind, limiter.name);
  if (typeof limiter.inPartition !== 'function') {
    throw new TypeError(`withAdaptiveLimiter: ${label} has no inPartition(partition) method, so its calls cannot run in partition '${partition}'`);
  }
  const view = limiter.inPartition(partition);
  if (typeof view !== 'object' || view === null || typeof view.execute !== 'function') {
    throw new TypeError(`withAdaptiveLimiter: ${label}.inPartition('${partition}') must return a policy (with an execute method), got ${describeValue(view)}`);
  }
  return { view, label: `${label} (partition ${partition})` };
}
