/**
 * A scripted `random`: returns the given numbers in order, then throws (a test that draws more than
 * it scripted is wrong). `drawn` counts the draws.
 */
export function scripted(values: readonly number[]): (() => number) & { readonly drawn: number } {
  let i = 0;
  const random = (): number => {
    if (i >= values.length) throw new Error(`scripted random: only ${values.length} values`);
    return values[i++]!;
  };
  Object.defineProperty(random, 'drawn', { get: () => i });
  return random as (() => number) & { readonly drawn: number };
}

/** A value for `fn` to return, to tell it from an injected one. */
export const REAL = 'real';
