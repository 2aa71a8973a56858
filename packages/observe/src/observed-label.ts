// A component's name as a label (attribute) value: one-to-one, in valid Unicode (contract: docs/observability.md).

/** A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * A component's name as a label (attribute) value: valid Unicode, and distinct for distinct names
 * (contract: docs/observability.md). A name that is well-formed and does not contain the text `\u` is given as it is (every
 * name in practice). Any other — one with a lone surrogate, which UTF-8 cannot carry (it would
 * become U+FFFD, so `'a\ud800'` and `'a\udbff'` would be one series), or one that contains `\u` —
 * has each backslash doubled and each lone surrogate written as the text `\uD800` (upper-case hex).
 * The result is one-to-one: an escaped value always contains `\u`, a name given as it is never
 * does, and an escaped value reads back by undoing `\\` and `\uXXXX`.
 *
 * @example
 * ```ts
 * labelValue('pg');        // 'pg'
 * labelValue('a\ud800');   // 'a\\uD800' (the six characters \uD800)
 * labelValue('a\\uD800');  // 'a\\\\uD800' (a name that was already that text: its backslash doubled)
 * ```
 */
export function labelValue(name: string): string {
  if (!name.includes('\\u') && !LONE_SURROGATE.test(name)) return name;
  return name.replace(/\\/g, '\\\\').replace(LONE_SURROGATES, (s) => `\\u${s.charCodeAt(0).toString(16).toUpperCase()}`);
}
