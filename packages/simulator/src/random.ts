/**
 * A small seeded generator (mulberry32): the same seed gives the same numbers, so a scenario run
 * twice with one seed gives the same report.
 *
 * @example
 * ```ts
 * const random = seededRandom(42);
 * random(); // a number in [0, 1), the same for every run seeded with 42
 * ```
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw (Box–Muller, one of the pair). */
export function normal(random: () => number): number {
  const u = 1 - random(); // (0, 1]: log(0) is never taken
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** The standard normal's 99th percentile: a log-normal's sigma is ln(p99 / p50) / Z99. */
export const Z99 = 2.3263478740408408;
