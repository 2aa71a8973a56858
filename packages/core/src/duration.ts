/**
 * A duration: milliseconds as a number (fractions allowed), or a string with a unit,
 * `'250ms'`, `'10s'`, `'1.5m'`, `'2h'`.
 */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h'}`;

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const DURATION = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h)\s*$/;

/**
 * Converts a {@link Duration} to milliseconds; `undefined` when it is not one.
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
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
