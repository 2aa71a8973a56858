import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { labelValue } from './index.js';

/** Whether `text` survives UTF-8 unchanged (a lone surrogate would become U+FFFD). */
const isValidUtf8 = (text: string): boolean => new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'utf8')) === text;

/** The README's way back from a label value to the name: undo `\\` and `\uXXXX` in a value that contains `\u`. */
const nameOf = (value: string): string =>
  value.includes('\\u')
    ? value.replace(/\\(\\|u([0-9A-F]{4}))/g, (_, c: string, hex: string | undefined) => (hex === undefined ? c : String.fromCharCode(parseInt(hex, 16))))
    : value;

describe('labelValue (docs/observability.md: label values exact, distinct, valid UTF-8)', () => {
  it('gives every ordinary name as it is, a valid pair included', () => {
    for (const name of ['pg', 'payments-eu#2', 'x\\y', 'a\ud83d\ude00', 'say "hi"\n', '']) expect(labelValue(name)).toBe(name);
  });

  it('writes lone surrogates as \\uXXXX text, with backslashes doubled, when the name has one or contains \\u', () => {
    expect(labelValue('a\ud800')).toBe('a\\uD800');
    expect(labelValue('a\udbff')).toBe('a\\uDBFF');
    expect(labelValue('\udc00a')).toBe('\\uDC00a');
    expect(labelValue('a\udc00\ud800')).toBe('a\\uDC00\\uD800'); // low then high: two lone ones, not a pair
    expect(labelValue('a\\uD800')).toBe('a\\\\uD800');
    expect(labelValue('C:\\users\\x')).toBe('C:\\\\users\\\\x');
    expect(labelValue('\\\ud800')).toBe('\\\\\\uD800');
  });

  it('is one-to-one and valid UTF-8, whatever the name (property: the name reads back from the value)', () => {
    const unit = fc.constantFrom('a', 'u', 'D', '8', '0', 'F', '\\', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude00', 'é');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 12 }), (name) => {
        const value = labelValue(name);
        expect(isValidUtf8(value)).toBe(true);
        expect(nameOf(value)).toBe(name);
      }),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 20 }), (name) => {
        expect(nameOf(labelValue(name))).toBe(name);
      }),
    );
  });
});
