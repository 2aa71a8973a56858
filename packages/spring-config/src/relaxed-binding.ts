// Spring's relaxed binding of names, and the "did you mean" of an unknown one.
import { closest as closestByEditDistance } from '@breakwater/core/internal';

/**
 * Spring's relaxed binding of property names: `sliding-window-size`, `slidingWindowSize` and
 * `sliding_window_size` are one name, compared without dashes, underscores or case. This is the
 * form names are compared (and rules looked up) in.
 */
export function relaxedName(key: string): string {
  return key.replace(/[-_]/g, '').toLowerCase();
}

/** `slidingWindowSize` → `sliding-window-size`: how a Spring property is written in messages. */
export function kebabCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The candidate closest to `word` by relaxed name (core's edit distance), if it is close enough to be a slip. */
export function closestKey(word: string, candidates: readonly string[]): string | undefined {
  const match = closestByEditDistance(relaxedName(word), candidates.map(relaxedName));
  return match === undefined ? undefined : candidates.find((c) => relaxedName(c) === match);
}

/** `unknown <what>, did you mean 'x'?`, or the list of what is known. */
export function unknownKeyMessage(what: string, key: string, known: readonly string[]): string {
  const guess = closestKey(key, known);
  return guess !== undefined ? `unknown ${what}, did you mean '${guess}'?` : `unknown ${what} (known: ${known.join(', ')})`;
}
