/**
 * The work every row runs: the same functions for Breakwater, for each peer and for the floor,
 * so a row compares what each library adds around identical work.
 */

/** What a successful call resolves to. */
export const VALUE = 42;

/** The unit of work: an `async` function that resolves at once (what a user's call looks like with no I/O). */
export async function work(): Promise<number> {
  return VALUE;
}

/** A failure prebuilt once: throwing it costs no stack capture, so the rows measure the libraries, not `new Error`. */
export const FAILURE = new Error('backend failed');

/** An `async` function that rejects at once with {@link FAILURE}. */
export async function fail(): Promise<number> {
  throw FAILURE;
}

/** Swallows a rejection; the rows that expect one await `p.then(ok, swallow)`-like code through this. */
export function swallow(): void {}

/**
 * A function that fails on one call in four (calls 0, 4, 8, … of this instance) and succeeds
 * otherwise: 25 % failures, deterministic, the same sequence for every library.
 */
export function everyFourthFails(): () => Promise<number> {
  let i = 0;
  return () => ((i++ & 3) === 0 ? fail() : work());
}

/**
 * A function that fails on its first `failures` calls of each group of `failures + 1` and then
 * succeeds: with a retry of `failures + 1` attempts every call ends in a success after exactly
 * `failures` retries.
 */
export function failsThenSucceeds(failures: number): () => Promise<number> {
  let i = 0;
  return () => (i++ % (failures + 1) < failures ? fail() : work());
}
