import { describe, expect, it } from 'vitest';
import { escapeHtml, inlineScript, inlineStyle, jsonForScript } from './escape.js';

describe('escapeHtml', () => {
  it('turns every character that could open markup or leave an attribute into an entity', () => {
    expect(escapeHtml(`<script>alert(1)</script>`)).toBe('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(escapeHtml(`a & "b" 'c'`)).toBe('a &amp; &quot;b&quot; &#39;c&#39;');
    expect(escapeHtml('&lt;')).toBe('&amp;lt;'); // an entity in a name stays text
    expect(escapeHtml('plain name, 50%')).toBe('plain name, 50%');
  });
});

describe('jsonForScript', () => {
  const hostile = {
    a: '</script><img src=x onerror=alert(1)>',
    b: '<!-- <script>',
    c: 'line\u2028separator\u2029paragraph',
    d: '</SCRIPT >&amp;',
  };

  it('gives the value back through JSON.parse', () => {
    expect(JSON.parse(jsonForScript(hostile))).toEqual(hostile);
    expect(JSON.parse(jsonForScript([1, null, 'x']))).toEqual([1, null, 'x']);
  });

  it('holds no <, >, &, U+2028 or U+2029: the script block cannot be closed early nor open a comment', () => {
    const json = jsonForScript(hostile);
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(json.toLowerCase()).not.toContain('</script');
    expect(json).not.toContain('<!--');
  });

  it('refuses a value with no JSON form', () => {
    expect(() => jsonForScript(undefined)).toThrow(TypeError);
  });
});

describe('inlineScript and inlineStyle', () => {
  it('keep code from ending its element early, and leave the code unchanged otherwise', () => {
    expect(inlineScript('var s = "</script>"; var t = "<!--";')).toBe('var s = "\\x3C/script>"; var t = "\\x3C!--";');
    expect(inlineScript('var s = "</SCRIPT>";')).toBe('var s = "\\x3C/SCRIPT>";');
    expect(inlineScript('if (a < b) x = 1;')).toBe('if (a < b) x = 1;');
    // Evaluated: the escaped string is the same string to JavaScript.
    expect(new Function(`return ${inlineScript('"</script><!--"')};`)()).toBe('</script><!--');
    expect(inlineStyle('.a::after { content: "</style>"; }')).toBe('.a::after { content: "\\3C /style>"; }');
    expect(inlineStyle('.a { color: red; }')).toBe('.a { color: red; }');
  });
});
