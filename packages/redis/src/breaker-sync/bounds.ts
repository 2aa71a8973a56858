// Every duration and count the sync sends, arms or reads is bounded here (contract: docs/scale-out.md): no value,
// however large, and nothing that is not a number, reaches a Lua script, a Redis reply (Redis turns
// a Lua number beyond 2^63 into -2^63) or a timer. The scripts bound what they read with the same
// limits (scripts.ts).

/** The longest duration the sync uses anywhere: 2³¹−1 ms (about 24.8 days), the longest timer delay. */
export const MAX_MS = 2 ** 31 - 1;

/** The highest opening attempt the fleet keeps (a wait function is asked no further). */
export const MAX_ATTEMPT = 1_000_000;

/** A duration as the sync uses it: a whole number of ms in [0, MAX_MS]; what is not a finite number is 0. */
export function boundMs(v: unknown): number {
  if (typeof v !== 'number' || !(v > 0)) return 0;
  return v >= MAX_MS ? MAX_MS : Math.ceil(v);
}

/** An opening attempt: an integer in [1, MAX_ATTEMPT]; what is not a number is 1. */
export function boundAttempt(v: unknown): number {
  if (typeof v !== 'number' || !(v >= 1)) return 1;
  return v >= MAX_ATTEMPT ? MAX_ATTEMPT : Math.floor(v);
}
