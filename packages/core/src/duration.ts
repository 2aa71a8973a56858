/**
 * A duration: milliseconds as a number (fractions allowed), or a string with a unit,
 * `'250ms'`, `'10s'`, `'1.5m'`, `'2h'`.
 *
 * @example
 * ```ts
 * const wait: Duration = '1.5m'; // 90000 ms
 * new CircuitBreaker('pg', { waitDurationInOpenState: wait });
 * ```
 */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h'}`;

// A unit as a power of ten applied to the decimal text (exact: '1.001s' is 1001, not
// 1000.9999999999999) and a whole factor applied after.
const UNIT = { ms: ['', 1], s: ['e3', 1], m: ['e3', 60], h: ['e3', 3600] } as const;
const DURATION = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h)\s*$/;

/**
 * Converts a {@link Duration} to milliseconds; `undefined` when it is not one. A number is
 * returned as it is (range checks are the caller's; only `NaN` is refused). A string is a
 * non-negative decimal and a unit (`ms`, `s`, `m`, `h`, lower case), with optional whitespace
 * around and between them; anything else (`'250'`, `'-1s'`, `'1e3ms'`, `'10 sec'`) is not a
 * duration.
 *
 * @example
 * ```ts
 * parseDuration('1.5m'); // 90000
 * parseDuration(250);    // 250
 * parseDuration('soon'); // undefined
 * ```
 */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isNaN(value) ? undefined : value;
  if (typeof value !== 'string') return undefined;
  const match = DURATION.exec(value);
  if (match === null) return undefined;
  const [exponent, factor] = UNIT[match[2] as keyof typeof UNIT];
  const ms = Number(`${match[1]}${exponent}`) * factor;
  return Number.isFinite(ms) ? ms : undefined; // 400 digits are not a duration anyone meant
}
