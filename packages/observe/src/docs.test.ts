import { readFileSync } from 'node:fs';
import { exportsWithoutExample } from '@breakwater/test-support';
import { describe, expect, it } from 'vitest';

const src = new URL('.', import.meta.url);
// A declaration with the TSDoc before it (line comments, a `// biome-ignore …`, may sit between them).
const DECLARATION =
  /(\/\*\*(?:(?!\*\/)[\s\S])*\*\/\s*(?:\/\/[^\n]*\n\s*)*)?^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|let|enum) (\w+)/gm;

/** What `export * from './x.js'` in index.ts makes public: every export declared in x.ts, with whether its TSDoc has an @example. */
function starredExports(): { names: string[]; undocumented: string[] } {
  const files = [...readFileSync(new URL('index.ts', src), 'utf8').matchAll(/^export \* from '\.\/([\w-]+)\.js';$/gm)].map((m) => m[1]!);
  const names: string[] = [];
  const undocumented: string[] = [];
  for (const file of files) {
    for (const m of readFileSync(new URL(`${file}.ts`, src), 'utf8').matchAll(DECLARATION)) {
      names.push(m[2]!);
      if (!(m[1] ?? '').includes('@example')) undocumented.push(m[2]!);
    }
  }
  return { names, undocumented };
}

// Every public export has TSDoc with an @example (house rule); this keeps it so. The index lists
// some exports by name and re-exports whole modules (`export *`): both are read.
describe('TSDoc', () => {
  it('every export of index.ts is declared in src with TSDoc that has an @example', () => {
    const listed = exportsWithoutExample(src);
    const starred = starredExports();
    expect(starred.names).toContain('ObservedAdaptiveLimiter');
    expect(listed.names.length + starred.names.length).toBeGreaterThan(30);
    expect([...listed.undocumented, ...starred.undocumented]).toEqual([]);
  });
});
