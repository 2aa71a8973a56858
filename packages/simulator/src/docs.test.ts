import { exportsWithoutExample } from '@breakwater/test-support';
import { describe, expect, it } from 'vitest';

// Every public export has TSDoc with an @example (house rule); this keeps it so. The HTML report's
// files are in src/html/ (renderHtml is exported from there), so both folders are read.
describe('TSDoc', () => {
  it('every export of index.ts is declared in src (or src/html) with TSDoc that has an @example', () => {
    const { names, undocumented } = exportsWithoutExample(new URL('.', import.meta.url));
    const html = exportsWithoutExample(new URL('./html/', import.meta.url));
    const documentedInHtml = new Set(html.names.filter((n) => !html.undocumented.includes(n)));
    expect(names.length).toBeGreaterThan(10);
    expect(undocumented.filter((n) => !documentedInHtml.has(n))).toEqual([]);
  });
});
