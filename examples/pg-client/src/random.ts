// The simulator's seeded generator (mulberry32): the same seed gives the same gateway, so an
// experiment can be rerun exactly with `--seed N` — and the demo's gateway draws as the engine's do.
export { seededRandom } from '@breakwater/simulator';

/** A whole number of ms uniformly in [min, max]. */
export function between(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}
