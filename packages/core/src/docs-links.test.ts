import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The contract lives in the repository, in docs/ (one page per concern). Code comments, test names,
// READMEs and ARCHITECTURE.md cite its pages ("(contract: docs/retry.md)"); this keeps every citation
// pointing at a page that exists, every link of the contract pointing at a heading that exists, and
// no reference left to the numbered sections of the document the contract was first written in.

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const docsDir = join(root, 'docs');
const skipped = new Set(['node_modules', 'dist', '.git', 'coverage']);
const scanned = /\.(ts|mts|cts|mjs|cjs|js|md|json|ya?ml)$/;

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (skipped.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return walk(path);
    return scanned.test(entry.name) ? [path] : [];
  });
}

/** The repository's own text: packages, examples, bench, helpers, scripts, CI, root documents. */
function repositoryFiles(): string[] {
  const dirs = ['packages', 'examples', 'bench', 'test-support', 'scripts', '.ci'].map((d) => join(root, d));
  const rootFiles = ['README.md', 'ARCHITECTURE.md'].map((f) => join(root, f)).filter((f) => existsSync(f));
  return [...dirs.flatMap(walk), ...rootFiles];
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a Markdown file offers (headings outside code fences; repeats get -1, -2 …). */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1] ?? '');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

// `docs/<page>.md`, bare or relative (`../../docs/<page>.md`), but not another folder's docs (`simulator/docs/…`).
const cited = /(?<![\w-]\/|[\w-])docs\/([\w-]+\.md)/g;
// The old document's name (as a word), or a bare section number in parentheses; built from pieces
// so that this file does not match itself.
const oldCitation = new RegExp(`\\b${'SP'}EC\\b|\\(${'§'}\\d+[\\s),]`);

describe('the contract in docs/', () => {
  const pages = readdirSync(docsDir).filter((f) => f.endsWith('.md'));
  const files = repositoryFiles();

  it('has the index and a page per concern', () => {
    expect(pages).toEqual(
      expect.arrayContaining([
        'README.md',
        'conventions.md',
        'circuit-breaker.md',
        'time-limiter.md',
        'retry.md',
        'bulkhead.md',
        'rate-limiter.md',
        'decorators.md',
        'observability.md',
        'scale-out.md',
        'simulator.md',
        'roadmap.md',
      ]),
    );
    const index = readFileSync(join(docsDir, 'README.md'), 'utf8');
    const unlisted = pages.filter((p) => p !== 'README.md' && !index.includes(`](${p})`));
    expect(unlisted).toEqual([]);
  });

  it('every docs/<page>.md cited by code, tests, READMEs and ARCHITECTURE.md exists', () => {
    expect(files.length).toBeGreaterThan(100);
    const citations: string[] = [];
    const missing: string[] = [];
    for (const file of files) {
      for (const match of readFileSync(file, 'utf8').matchAll(cited)) {
        const page = match[1] ?? '';
        citations.push(page);
        if (!pages.includes(page)) missing.push(`${relative(root, file)}: docs/${page}`);
      }
    }
    expect(citations.length).toBeGreaterThan(30);
    expect(missing).toEqual([]);
  });

  it('no file outside docs/ still cites the numbered sections of the old contract document', () => {
    const left = files
      .filter((file) => !file.startsWith(docsDir))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, i) => (oldCitation.test(line) ? [`${relative(root, file)}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(left).toEqual([]);
  });

  it("every relative link of the contract's pages reaches a file, and a heading when it names one", () => {
    const broken: string[] = [];
    let anchored = 0;
    for (const page of pages) {
      const file = join(docsDir, page);
      for (const match of readFileSync(file, 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1] ?? '';
        if (/^[a-z]+:/.test(target)) continue;
        const [path = '', anchor] = target.split('#');
        const resolved = path === '' ? file : resolve(docsDir, path);
        if (!existsSync(resolved)) broken.push(`${page}: ${target} (no such file)`);
        else if (anchor !== undefined && resolved.endsWith('.md')) {
          anchored += 1;
          if (!anchors(resolved).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
        }
      }
    }
    expect(anchored).toBeGreaterThan(30);
    expect(broken).toEqual([]);
  });
});
