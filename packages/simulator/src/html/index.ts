// The self-contained HTML report (`--html`): renderHtml is the public entry; the rest is internal.
export { renderHtml } from './render-html.js';
