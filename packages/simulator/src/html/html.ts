// The report's markup is written with `html`: every interpolated value is escaped unless it is
// markup already (an `Html`, from `html` itself or from `raw`), so escaping is the default and
// trusting a string is the call a reader sees.
import { escapeHtml } from './escape.js';

/**
 * A fragment of markup: what `html` returns and `raw` wraps. Interpolated into `html`, it is
 * inserted as is; anything else is escaped.
 *
 * @example
 * ```ts
 * const cell: Html = html`<td>${name}</td>`;
 * String(cell); // the markup
 * ```
 */
export class Html {
  readonly #markup: string;

  constructor(markup: string) {
    this.#markup = markup;
  }

  toString(): string {
    return this.#markup;
  }
}

/** What `html` accepts in a `${…}`: text (escaped), markup, nothing (`''`), or a list of these (joined). */
export type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.toString();
  if (value === null || value === undefined || value === false) return '';
  if (typeof value === 'number') return escapeHtml(String(value));
  if (typeof value === 'string') return escapeHtml(value);
  return value.map(render).join('');
}

/**
 * A tagged template for markup: each interpolation is escaped with `escapeHtml` (text for element
 * content or a quoted attribute), except `Html` fragments (nested `html`, or `raw`); arrays are
 * joined; `null`, `undefined` and `false` render nothing.
 *
 * @example
 * ```ts
 * html`<h1>${'<b>A & B</b>'}</h1>`.toString(); // '<h1>&lt;b&gt;A &amp; B&lt;/b&gt;</h1>'
 * html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`;
 * ```
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/**
 * Trusted markup, inserted by `html` as is: only for text that is markup by construction (a
 * constant, inlined code or CSS already made safe for its element by `inlineScript`/`inlineStyle`,
 * JSON from `jsonForScript`). Never for anything a scenario can name.
 *
 * @example
 * ```ts
 * html`<script>${raw(inlineScript(code))}</script>`;
 * ```
 */
export function raw(markup: string): Html {
  return new Html(markup);
}
