import { describe, expect, it } from 'vitest';
import { html, raw } from './html.js';

describe('html`…`', () => {
  it('escapes every interpolated string and number', () => {
    expect(html`<p title="${'"><script>'}">${'<b>A & B</b>'} ${42}</p>`.toString()).toBe(
      '<p title="&quot;&gt;&lt;script&gt;">&lt;b&gt;A &amp; B&lt;/b&gt; 42</p>',
    );
  });

  it('inserts nested html and raw fragments as they are, joins arrays, renders null, undefined and false as nothing', () => {
    const items = ['<i>', 'b'].map((s) => html`<li>${s}</li>`);
    expect(html`<ul>${items}</ul>${raw('<hr>')}${null}${undefined}${false}`.toString()).toBe('<ul><li>&lt;i&gt;</li><li>b</li></ul><hr>');
    expect(html`${['<a>', raw('<b>')]}`.toString()).toBe('&lt;a&gt;<b>');
  });
});
