// What puts text into the HTML report: `escapeHtml` (which the `html` tag of html.ts applies to every
// value), and the three for the raw-text elements (JSON, script, style). A scenario is user
// input: a configuration named `<script>…` must render as text, and no value may close the
// element it sits in.

const HTML_ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Escapes text for HTML element content or a quoted attribute value: `& < > " '` become
 * entities, so the text can never open a tag, an entity or leave its attribute.
 *
 * @example
 * ```ts
 * escapeHtml('<script>alert(1)</script>'); // '&lt;script&gt;alert(1)&lt;/script&gt;'
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]!);
}

const JSON_UNSAFE: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * JSON for a `<script type="application/json">` block: `JSON.stringify` with `<`, `>`, `&`,
 * U+2028 and U+2029 written as `\uXXXX` escapes, so neither `</script>` nor `<!--` can appear in
 * it and the block cannot be closed early. `JSON.parse` of the block's text gives the value back.
 *
 * @example
 * ```ts
 * jsonForScript({ name: '</script><b>' }); // '{"name":"\\u003c/script\\u003e\\u003cb\\u003e"}'
 * ```
 */
export function jsonForScript(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('jsonForScript: the value has no JSON form');
  return json.replace(/[<>&\u2028\u2029]/g, (c) => JSON_UNSAFE[c]!);
}

/**
 * Code (a script we ship, e.g. uPlot) for an inline `<script>` element. Such code has no reason
 * to contain `</script` or `<!--`; should a future version carry one inside a string, the `<` is
 * written `\x3C` there (the same string to the JavaScript parser), so the element cannot end early.
 *
 * @example
 * ```ts
 * inlineScript('var s = "</script>";'); // 'var s = "\\x3C/script>";'
 * ```
 */
export function inlineScript(code: string): string {
  return code.replace(/<(?=\/script|!--)/gi, '\\x3C');
}

/**
 * CSS for an inline `<style>` element: a `</style` inside it (only possible in a string or a
 * comment) is written with the `<` escaped as CSS's `\3C `, so the element cannot end early.
 *
 * @example
 * ```ts
 * inlineStyle('.a::after { content: "</style>"; }'); // '.a::after { content: "\\3C /style>"; }'
 * ```
 */
export function inlineStyle(css: string): string {
  return css.replace(/<(?=\/style|!--)/gi, '\\3C ');
}
