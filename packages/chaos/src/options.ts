import type { CallContext, Clock } from '@breakwater/core';

/**
 * The four strategies of chaos injection (Polly Simmy's): throw a fault, add latency, return a
 * fake outcome, run a behaviour before the call.
 *
 * @example
 * ```ts
 * const strategy: ChaosStrategyName = 'latency';
 * ```
 */
export type ChaosStrategyName = 'fault' | 'latency' | 'outcome' | 'behavior';

/**
 * The options every chaos strategy shares (contract: docs/chaos.md). A call is injected when the
 * caller has not aborted, `enabled` says so, and `random() < rate`.
 *
 * @example
 * ```ts
 * const common: ChaosOptions = { enabled: process.env['CHAOS'] === 'on', rate: 0.05 };
 * ```
 */
export interface ChaosOptions {
  /**
   * The probability a call is injected, in [0, 1], or a function of the call returning it (its
   * value is clamped to [0, 1]; anything but a number, `NaN` included, is 0). Default 0.001 (Polly's).
   */
  readonly rate?: number | ((ctx: CallContext) => number) | undefined;
  /**
   * Whether the strategy may inject: a boolean, or a function of the call (only `true` enables).
   * Default `false`: chaos is off unless enabled (Polly's default is `true`).
   */
  readonly enabled?: boolean | ((ctx: CallContext) => boolean) | undefined;
  /** Random numbers in [0, 1), drawn once per call while enabled. Default `Math.random` (seed one in tests). */
  readonly random?: (() => number) | undefined;
  /** Source of time (the latency strategy's waits, events' times). Default `systemClock`. */
  readonly clock?: Clock | undefined;
}

/**
 * The common options once checked: `rate` and `enabled` as given (a constant or a function) or their
 * defaults.
 *
 * @example
 * ```ts
 * const { rate, enabled }: ResolvedChaosOptions = chaos.config;
 * ```
 */
export interface ResolvedChaosOptions {
  /** The rate given (a number in [0, 1] or the function), or 0.001. */
  readonly rate: number | ((ctx: CallContext) => number);
  /** As given, or `false`. */
  readonly enabled: boolean | ((ctx: CallContext) => boolean);
  /** As given, or `Math.random`. */
  readonly random: () => number;
  /** As given, or `systemClock`. */
  readonly clock: Clock;
}

const COMMON = ['rate', 'enabled', 'random', 'clock'] as const;

/**
 * Every option of each chaos strategy, by strategy: what its config accepts (tools such as the
 * simulator check their keys against it).
 *
 * @example
 * ```ts
 * CHAOS_OPTIONS.latency.includes('latency'); // true
 * CHAOS_OPTIONS.fault.includes('latency');   // false
 * ```
 */
export const CHAOS_OPTIONS = {
  fault: ['fault', ...COMMON],
  latency: ['latency', ...COMMON],
  outcome: ['outcome', ...COMMON],
  behavior: ['behavior', ...COMMON],
} as const;

/** The default probability of an injection: Polly's 0.001 (one call in a thousand). */
export const DEFAULT_RATE = 0.001;

/** The default latency: Polly's 30 s. */
export const DEFAULT_LATENCY_MS = 30_000;
