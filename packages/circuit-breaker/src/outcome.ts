/**
 * The outcome of one recorded call, as two bit flags: `ERROR` (1) and `SLOW` (2).
 * SUCCESS = 0, ERROR = 1, SLOW_SUCCESS = 2, SLOW_ERROR = 3.
 *
 * @example
 * ```ts
 * const window = new CountWindow(10);
 * window.record(Outcome.SLOW_ERROR, clock.now());
 * ```
 */
export type Outcome = 0 | 1 | 2 | 3;

/** The outcomes by name (see the type of the same name). */
export const Outcome = {
  SUCCESS: 0,
  ERROR: 1,
  SLOW_SUCCESS: 2,
  SLOW_ERROR: 3,
} as const satisfies Record<string, Outcome>;

/** The error bit of an {@link Outcome}. */
export const ERROR_BIT = 1;
/** The slow bit of an {@link Outcome}. */
export const SLOW_BIT = 2;
