// Netflix's Log10RootIntFunction: the whole-number log10 of a limit, never below 1. Vegas's
// thresholds and steps scale with it (α = 3·lg, β = 6·lg, a step of ±lg), so they grow slowly with
// the limit: lg is 1 up to a limit of 99, 2 up to 999, 3 up to 9999.

/** `max(1, ⌊log10 limit⌋)` for the whole part of `limit` (1 for a limit below 10, 0, or not a number). */
export function log10Int(limit: number): number {
  const whole = Math.floor(limit);
  if (!(whole >= 10)) return 1;
  // Math.log10 of an exact power of ten is exact in IEEE doubles (log10(1000) === 3).
  return Math.max(1, Math.floor(Math.log10(whole)));
}
