import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Every public export has TSDoc with an @example (house rule); this keeps it so.
const dir = new URL('.', import.meta.url);
const sources = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'index.ts');

describe('TSDoc', () => {
  it('every export of index.ts is declared in src with TSDoc that has an @example', () => {
    const documented = new Map<string, boolean>();
    for (const file of sources) {
      const text = readFileSync(new URL(file, dir), 'utf8');
      const declaration = /(\/\*\*(?:(?!\*\/)[\s\S])*\*\/\s*)?^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const) (\w+)/gm;
      for (const m of text.matchAll(declaration)) documented.set(m[2]!, (m[1] ?? '').includes('@example'));
    }
    const index = readFileSync(new URL('index.ts', dir), 'utf8');
    const names = [...index.matchAll(/export\s*(?:type\s*)?\{([^}]*)\}/g)].flatMap((m) =>
      m[1]!.split(',').map((n) => n.trim().replace(/^type\s+/, '')).filter((n) => n.length > 0),
    );
    expect(names.length).toBeGreaterThanOrEqual(3);
    expect(names.filter((n) => documented.get(n) !== true)).toEqual([]);
  });
});
