import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SYNC_EVENT_TYPES } from './events.js';

// Every public export of the breaker sync (index.ts lines from './breaker-sync/…') has TSDoc with
// an @example (house rule), and the README documents it. The check of test-support's
// exportsWithoutExample, over this folder (it reads only the files directly in src/).
const SRC = new URL('..', import.meta.url);
const DECLARATION = /(\/\*\*(?:(?!\*\/)[\s\S])*\*\/\s*)?^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|let|enum) (\w+)/gm;

describe('RedisBreakerSync docs', () => {
  it('every export from ./breaker-sync has TSDoc with an @example', () => {
    const dir = new URL('breaker-sync/', SRC);
    const documented = new Map<string, boolean>();
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
      for (const m of readFileSync(new URL(f, dir), 'utf8').matchAll(DECLARATION)) documented.set(m[2]!, (m[1] ?? '').includes('@example'));
    }
    const index = readFileSync(new URL('index.ts', SRC), 'utf8');
    const names = [...index.matchAll(/export\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'\.\/breaker-sync\/[^']*'/g)].flatMap((m) =>
      m[1]!
        .split(',')
        .map((n) => n.trim().replace(/^type\s+/, ''))
        .filter((n) => n.length > 0),
    );
    expect(names).toContain('RedisBreakerSync');
    expect(names.filter((n) => documented.get(n) !== true)).toEqual([]);
  });

  it('the README has a RedisBreakerSync section with every option and event', () => {
    const readme = readFileSync(new URL('../README.md', SRC), 'utf8');
    const section = readme.slice(readme.indexOf('## RedisBreakerSync'));
    expect(section.startsWith('## RedisBreakerSync')).toBe(true);
    for (const option of ['client', 'subscriber', 'quorum', 'quorumWindow', 'trialLease', 'keyPrefix', 'instanceId', 'clock', 'commandTimeout'])
      expect(section).toContain(`\`${option}\``);
    for (const event of SYNC_EVENT_TYPES) expect(section).toContain(`\`${event}\``);
    for (const issue of ['#419', '#1284', '#675', '#89', '#287']) expect(section).toContain(issue);
  });

  it("both READMEs show the application's own client error listeners and say which listeners the sync adds, and why", () => {
    const readme = readFileSync(new URL('../README.md', SRC), 'utf8');
    const section = readme.slice(readme.indexOf('## RedisBreakerSync'));
    const example = section.slice(section.indexOf('```ts'), section.indexOf('```', section.indexOf('```ts') + 5));
    expect(example).toMatch(/const client = await createClient\(.*\)\.on\('error', .+\)\.connect\(\);/);
    expect(example).toMatch(/const subscriber = await client\.duplicate\(\)\.on\('error', .+\)\.connect\(\);/);
    const words = (text: string) => text.replace(/\s+/g, ' ');
    expect(words(section)).toContain('adds one `error` and one `ready` listener to each of the two connections');
    const root = readFileSync(new URL('../../../README.md', SRC), 'utf8');
    const scaling = root.slice(root.indexOf('## Scaling out'), root.indexOf('\n## ', root.indexOf('## Scaling out') + 5));
    expect(scaling).toContain("client.on('error', …)");
    expect(words(scaling)).toContain('adds one `error` and one `ready` listener to each of its two connections');
  });
});
