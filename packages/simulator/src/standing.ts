// What a ranking says of each configuration: its place, its score over the seeds, its tie group.
// Types only, apart from ranking.ts (which computes them), so that report.ts can name them
// without importing the ranking (no import loop).

/**
 * A figure over the seeds a configuration ran with: the mean, the lowest, the highest (the same
 * three numbers with one seed). `null` stands for ∞ (JSON has no infinity): a breaker that opened
 * and never closed again has no time to recover, one that never opened no time to open.
 *
 * @example
 * ```ts
 * const s: Spread = { mean: 120.5, min: 98, max: 141 };
 * ```
 */
export interface Spread {
  readonly mean: number | null;
  readonly min: number | null;
  readonly max: number | null;
}

/**
 * What a configuration's place rests on: each ranking criterion over its seeds.
 *
 * @example
 * ```ts
 * const { notSucceeded }: Score = scoreOf(report.configurations[0]!);
 * console.log(`${notSucceeded.mean} (${notSucceeded.min}–${notSucceeded.max})`);
 * ```
 */
export interface Score {
  /** `failed + rejected`. */
  readonly notSucceeded: Spread;
  readonly failed: Spread;
  readonly breakerCallsPerRequest: Spread;
  /** ms: never opened counts as 0, opened and never closed again as ∞ (null). */
  readonly timeToRecoverMs: Spread;
  /** ms: never opened counts as ∞ (null). */
  readonly timeToOpenMs: Spread;
}

/**
 * A configuration's place in the ranking: its rank (1 is best), its score, and its tie group.
 *
 * @example
 * ```ts
 * for (const s of standingsOf(report)) console.log(s.rank, s.name, s.score.notSucceeded.mean, s.tie ?? '');
 * ```
 */
export interface Standing {
  readonly rank: number;
  readonly name: string;
  readonly score: Score;
  /**
   * The rank of the first configuration of its tie group, or null when it ties with none: on at
   * least one seed it had no more requests go wrong (`failed + rejected`) than that configuration,
   * and that one no more than it, seed by seed (with one seed: the same count).
   */
  readonly tie: number | null;
}
