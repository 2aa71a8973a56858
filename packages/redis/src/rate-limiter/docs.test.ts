import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Every public export of the rate limiter's part of @breakwater/redis (index.ts lines from
// './rate-limiter/…' and './keys.js') has TSDoc with an @example (house rule). The same check as
// test-support's exportsWithoutExample, which reads only the files directly in src/ (this
// package's code is in sub-folders).
const SRC = new URL('..', import.meta.url);
const DECLARATION = /(\/\*\*(?:(?!\*\/)[\s\S])*\*\/\s*)?^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|let|enum) (\w+)/gm;

function documentedIn(files: readonly URL[]): Map<string, boolean> {
  const documented = new Map<string, boolean>();
  for (const file of files) for (const m of readFileSync(file, 'utf8').matchAll(DECLARATION)) documented.set(m[2]!, (m[1] ?? '').includes('@example'));
  return documented;
}

describe('TSDoc', () => {
  it('every export of the RedisRateLimiter and of keys.ts has TSDoc with an @example', () => {
    const dir = new URL('rate-limiter/', SRC);
    const files = [
      ...readdirSync(dir)
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
        .map((f) => new URL(f, dir)),
      new URL('keys.ts', SRC),
    ];
    const documented = documentedIn(files);
    const index = readFileSync(new URL('index.ts', SRC), 'utf8');
    const names = [...index.matchAll(/export\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'\.\/(?:rate-limiter\/[^']*|keys\.js)'/g)].flatMap((m) =>
      m[1]!
        .split(',')
        .map((n) => n.trim().replace(/^type\s+/, ''))
        .filter((n) => n.length > 0),
    );
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((n) => documented.get(n) !== true)).toEqual([]);
  });
});
