import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Every public export of @breakwater/core has TSDoc with an @example (house rule); this keeps it so.
const dir = new URL('.', import.meta.url);
const sources = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'index.ts');

/** name → whether the TSDoc right above its declaration has an @example. */
function declarations(): Map<string, boolean> {
  const found = new Map<string, boolean>();
  for (const file of sources) {
    const text = readFileSync(new URL(file, dir), 'utf8');
    const declaration = /(\/\*\*(?:(?!\*\/)[\s\S])*\*\/\s*)?^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|let|enum) (\w+)/gm;
    for (const m of text.matchAll(declaration)) found.set(m[2]!, (m[1] ?? '').includes('@example'));
  }
  return found;
}

/** The names `index.ts` exports. */
function publicNames(): string[] {
  const index = readFileSync(new URL('index.ts', dir), 'utf8');
  return [...index.matchAll(/export\s*\{([^}]*)\}/g)].flatMap((m) =>
    m[1]!
      .split(',')
      .map((n) => n.trim().replace(/^type\s+/, ''))
      .filter((n) => n.length > 0),
  );
}

describe('TSDoc', () => {
  it('every export of index.ts is declared in src with TSDoc that has an @example', () => {
    const documented = declarations();
    const names = publicNames();
    expect(names.length).toBeGreaterThan(30);
    const missing = names.filter((n) => documented.get(n) !== true);
    expect(missing).toEqual([]);
  });
});
