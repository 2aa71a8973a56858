import type { LimitAlgorithm } from './limit/algorithm.js';
import { aimd, gradient2, vegas, windowed, type WindowedOptions } from './limit/index.js';

/**
 * The algorithms an adaptive limiter builds by name (each with Netflix's defaults, see the
 * README's "Algorithms").
 *
 * @example
 * ```ts
 * const algorithm: AlgorithmName = 'gradient2';
 * new AdaptiveLimiter('pg', { algorithm, maxLimit: 100 });
 * ```
 */
export type AlgorithmName = 'vegas' | 'aimd' | 'gradient2';

/**
 * How an adaptive limiter gathers samples into windows: `windowed()`'s options.
 *
 * @example
 * ```ts
 * const window: WindowOptions = { minWindowTime: '500ms', windowSize: 20 };
 * new AdaptiveLimiter('pg', { window });
 * ```
 */
export type WindowOptions = WindowedOptions;

/** The limits a named algorithm takes from the limiter's config (`undefined`: the algorithm's default). */
export interface NamedLimits {
  readonly initialLimit: number | undefined;
  readonly minLimit: number | undefined;
  readonly maxLimit: number | undefined;
}

/** Whether `value` has the shape of a {@link LimitAlgorithm}. */
export function isLimitAlgorithm(value: unknown): value is LimitAlgorithm {
  if (typeof value !== 'object' || value === null) return false;
  const a = value as Partial<LimitAlgorithm>;
  return typeof a.onSample === 'function' && typeof a.limit === 'number' && typeof a.name === 'string';
}

/** Builds the algorithm named `name` with the limits given; a bad combination throws naming the limiter (`source`). */
export function namedAlgorithm(source: string, name: AlgorithmName, limits: NamedLimits): LimitAlgorithm {
  const options: { initialLimit?: number; minLimit?: number; maxLimit?: number } = {};
  if (limits.initialLimit !== undefined) options.initialLimit = limits.initialLimit;
  if (limits.minLimit !== undefined) options.minLimit = limits.minLimit;
  if (limits.maxLimit !== undefined) options.maxLimit = limits.maxLimit;
  return rethrowIn(source, () => (name === 'aimd' ? aimd(options) : name === 'gradient2' ? gradient2(options) : vegas(options)));
}

/** Wraps `algorithm` in `windowed()`; bad window options throw naming the limiter (`source`). */
export function windowAlgorithm(source: string, algorithm: LimitAlgorithm, options: WindowOptions): LimitAlgorithm {
  return rethrowIn(source, () => windowed(algorithm, options));
}

/** Runs `build`; an error it throws is thrown again (same class) with the limiter's name in front. */
function rethrowIn<T>(source: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (error instanceof RangeError) throw new RangeError(`${source}: ${error.message}`, { cause: error });
    if (error instanceof TypeError) throw new TypeError(`${source}: ${error.message}`, { cause: error });
    throw error;
  }
}
