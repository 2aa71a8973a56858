import { ConfigReader, parseDuration, type Clock, type Duration } from '@breakwater/core';
import { isPlainObject } from '@breakwater/core/internal';
import { RetryBudget } from './retry-budget.js';

/**
 * How an attempt of a hedged call ended, as `shouldHandle` sees it: `{ error }` when it threw or
 * rejected, `{ result }` when it resolved.
 *
 * @example
 * ```ts
 * const shouldHandle = (o: HedgeOutcome) => 'error' in o || (o.result as Response).status >= 500;
 * ```
 */
export type HedgeOutcome = { readonly error: unknown } | { readonly result: unknown };

/**
 * A hedging delay that follows a percentile of recent calls' durations (contract: docs/hedging.md).
 *
 * @example
 * ```ts
 * const delay: HedgePercentileDelay = { percentile: 0.95, window: '1m', minSamples: 20, initial: '2s' };
 * ```
 */
export interface HedgePercentileDelay {
  /** The percentile of successful calls' durations to wait, in (0, 1): 0.95 hedges ~5 % of calls. */
  readonly percentile: number;
  /** How long a call's duration counts. Default 1 minute; >= 10 ms. */
  readonly window?: Duration | undefined;
  /** Successes needed in the window before the percentile is used. Default 20; an integer >= 1. */
  readonly minSamples?: number | undefined;
  /** The delay until `minSamples` successes are in the window. Default 2000 ms; >= 0. */
  readonly initial?: Duration | undefined;
}

/**
 * Options of a {@link Hedge}.
 *
 * @example
 * ```ts
 * const config: HedgeConfig = { maxHedgedAttempts: 2, delay: { percentile: 0.95 }, budget: new RetryBudget() };
 * ```
 */
export interface HedgeConfig {
  /** Attempts on top of the primary. Default 1; an integer in [1, 10]. */
  readonly maxHedgedAttempts?: number | undefined;
  /**
   * How long to wait for an answer before starting the next attempt. Default 2000 ms. `0`: every
   * attempt at once; a negative number: the next attempt only when the previous one failed
   * (Polly's fallback mode); or `{ percentile }`: a percentile of recent calls' durations.
   */
  readonly delay?: Duration | HedgePercentileDelay | undefined;
  /** Whether an attempt's outcome is a failure to hedge past. Default: every error; a result never. */
  readonly shouldHandle?: ((outcome: HedgeOutcome) => boolean) | undefined;
  /** Called as each hedged attempt starts (after the budget allowed it). */
  readonly onHedging?: ((event: { readonly attempt: number; readonly delayMs: number }) => void) | undefined;
  /** A budget shared with retries: each hedge takes one retry from it; a call deposits one call. */
  readonly budget?: RetryBudget | undefined;
  /** The clock of the delays. Default `systemClock`. */
  readonly clock?: Clock | undefined;
}

/**
 * The resolved hedging delay: a fixed number of ms (negative: only after a failure), or the
 * percentile setting with its durations in ms.
 *
 * @example
 * ```ts
 * const setting: HedgeDelaySetting = { kind: 'percentile', percentile: 0.95, windowMs: 60_000, minSamples: 20, initialMs: 2000 };
 * ```
 */
export type HedgeDelaySetting =
  | { readonly kind: 'fixed'; readonly ms: number }
  | { readonly kind: 'percentile'; readonly percentile: number; readonly windowMs: number; readonly minSamples: number; readonly initialMs: number };

/**
 * A {@link HedgeConfig} with every default applied and durations in ms.
 *
 * @example
 * ```ts
 * new Hedge('search', { delay: '150ms' }).config.delay; // { kind: 'fixed', ms: 150 }
 * ```
 */
export interface ResolvedHedgeConfig {
  /** Attempts on top of the primary, in [1, 10]. */
  readonly maxHedgedAttempts: number;
  /** The delay: fixed ms (0: all at once; negative: only after a failure), or the percentile setting. */
  readonly delay: HedgeDelaySetting;
  /** As given; `undefined` means every error is handled and no result is. */
  readonly shouldHandle: ((outcome: HedgeOutcome) => boolean) | undefined;
  /** As given. */
  readonly onHedging: ((event: { readonly attempt: number; readonly delayMs: number }) => void) | undefined;
  /** The budget shared with retries, if any. */
  readonly budget: RetryBudget | undefined;
  /** The clock of the delays. */
  readonly clock: Clock;
}

const KEYS = ['maxHedgedAttempts', 'delay', 'shouldHandle', 'onHedging', 'budget', 'clock'] as const;
const PERCENTILE_KEYS = ['percentile', 'window', 'minSamples', 'initial'] as const;

/**
 * Every option of a Hedge, by name (tools such as `fromConfig` derive their key tables from it).
 *
 * @example
 * ```ts
 * HEDGE_OPTIONS.includes('maxHedgedAttempts'); // true
 * ```
 */
export const HEDGE_OPTIONS = KEYS;

/**
 * Checks a Hedge's options once, with messages naming the hedge, the option, the value and the
 * valid range (`Hedge 'search': maxHedgedAttempts must be an integer in [1, 10], got 0`).
 *
 * @example
 * ```ts
 * resolveHedgeConfig('search', { delay: '150ms' }).delay; // { kind: 'fixed', ms: 150 }
 * ```
 */
export function resolveHedgeConfig(name: string, config: HedgeConfig | undefined): ResolvedHedgeConfig {
  const read = new ConfigReader<HedgeConfig>('Hedge', name, config, [...KEYS]);
  const maxHedgedAttempts = read.number('maxHedgedAttempts', 1, { integer: true, gte: 1, lte: 10 });
  const delay = readDelay(read, (config ?? {}).delay, name);
  return Object.freeze({
    maxHedgedAttempts,
    delay,
    shouldHandle: read.fn<(outcome: HedgeOutcome) => boolean>('shouldHandle'),
    onHedging: read.fn<(event: { readonly attempt: number; readonly delayMs: number }) => void>('onHedging'),
    budget: read.instance<RetryBudget>('budget', 'a RetryBudget', (v) => v instanceof RetryBudget),
    clock: read.clock(),
  });
}

const DELAY_MUST = `a finite duration (ms; negative: only after a failure; or a string like '150ms') or { percentile, window?, minSamples?, initial? }`;

function readDelay(read: ConfigReader<HedgeConfig>, value: unknown, name: string): HedgeDelaySetting {
  if (value === undefined) return Object.freeze({ kind: 'fixed', ms: 2000 });
  if (typeof value === 'number' || typeof value === 'string') {
    const ms = parseDuration(value);
    if (ms === undefined || !Number.isFinite(ms)) read.fail('delay', DELAY_MUST, value, ms === undefined ? 'type' : 'range');
    return Object.freeze({ kind: 'fixed', ms: ms === 0 ? 0 : ms }); // -0 is 0
  }
  if (!isPlainObject(value)) read.fail('delay', DELAY_MUST, value, 'type');
  const inner = ConfigReader.unnamed<HedgePercentileDelay>(`Hedge '${name}': delay`, value as unknown as HedgePercentileDelay, [...PERCENTILE_KEYS]);
  if (!inner.has('percentile')) inner.fail('percentile', 'a number in (0, 1)', undefined, 'type');
  const percentile = inner.number('percentile', 0.95, {});
  if (!(percentile > 0 && percentile < 1)) inner.fail('percentile', 'in (0, 1)', percentile);
  const windowMs = inner.duration('window', 60_000, { gte: 10 });
  if (windowMs === Infinity) inner.fail('window', 'a finite duration >= 10 ms', windowMs);
  const minSamples = inner.number('minSamples', 20, { integer: true, gte: 1 });
  const initialMs = inner.duration('initial', 2000, { gte: 0 });
  if (initialMs === Infinity) inner.fail('initial', 'a finite duration >= 0', initialMs);
  return Object.freeze({ kind: 'percentile', percentile, windowMs, minSamples, initialMs });
}
