import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The packed packages' type declarations, checked as a strict consumer checks them: `tsc` with
// `strict: true, skipLibCheck: false` on a small service that imports every published package's
// main entry and uses a few of their types (test/fixtures/strict-consumer/), under
// `module: nodenext` (an ES module and a CommonJS file: dist/*.d.ts and dist/*.d.cts) and under
// `moduleResolution: bundler`; with the oldest @types/node the packages support (engines: Node >=
// 20.19) and the newest (what `npm i -D @types/node` installs); with the optional peer
// @breakwater/testing (and fast-check) installed and `breakwater/testing` imported, and without them.
//
// Two compilers: the newest TypeScript (7, native and fast: ~2 s of CPU a run) checks both
// resolutions with the newest @types/node with and without the peer, and with the oldest with it;
// the workspace's TypeScript (6, which writes the .d.ts files; ~11 s of CPU, most of it checking
// all of @types/node) checks what a new user meets first: the newest @types/node, no optional
// peer, nodenext.
//
// No network: the tarballs (`pnpm pack`) are extracted into the consumer's node_modules, and the
// third-party packages they need (dependencies and required peers: p-retry, piscina, prom-client,
// @opentelemetry/api, redis, fast-check…) are linked to the copies the workspace has installed.
// @types/node and TypeScript 7 are devDependencies of this package under aliases
// (types-node-oldest, types-node-newest, typescript-newest). Needs the built dist (`pnpm test`
// builds what is stale first).
const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const umbrella = join(here, '..');
const repo = join(umbrella, '..', '..');
const fixtures = join(umbrella, 'test', 'fixtures', 'strict-consumer');

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
/** What a package needs installed beside it: its dependencies and its non-optional peers. */
const needs = (pkg: Manifest): string[] => [
  ...Object.keys(pkg.dependencies ?? {}),
  ...Object.keys(pkg.peerDependencies ?? {}).filter((dep) => pkg.peerDependenciesMeta?.[dep]?.optional !== true),
];
/** A package installed in the workspace: its directory (real path) and version. */
const installed = (dir: string) => ({ dir: realpathSync(dir), version: manifest(dir).version });

const typesNode = {
  oldest: installed(join(umbrella, 'node_modules', 'types-node-oldest')),
  newest: installed(join(umbrella, 'node_modules', 'types-node-newest')),
};
const compilers = { newest: installed(join(umbrella, 'node_modules', 'typescript-newest')), workspace: installed(join(repo, 'node_modules', 'typescript')) };

/** The workspace directory of each published package (where its own dependencies are linked). */
const workspaceDirs = new Map(
  readdirSync(join(repo, 'packages'))
    .map((dir) => join(repo, 'packages', dir))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => [manifest(dir).name, dir] as const),
);

/** Where `name` is found from `dir`, as Node's resolution walks up through node_modules (its real path). */
function findFrom(dir: string, name: string): string {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(at) === at) throw new Error(`${name} is not installed in the workspace (looked up from ${dir})`);
  }
}

let tmp: string;
/** Each package's tarball, extracted: name → directory. */
const extracted = new Map<string, string>();

/**
 * A consumer project's node_modules in `dir`: the extracted tarballs of `roots` and of the
 * @breakwater packages they need, copied; the third-party packages they need, linked to the
 * workspace's; `@types/node` linked to the given version.
 */
function layOut(dir: string, roots: readonly string[], types: string): void {
  const linked = new Map<string, string>([['@types/node', types]]);
  const copied = new Set<string>();
  const queue = [...roots];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (copied.has(name)) continue;
    copied.add(name);
    const source = extracted.get(name)!;
    cpSync(source, join(dir, 'node_modules', name), { recursive: true });
    for (const dep of needs(manifest(source))) {
      if (extracted.has(dep)) {
        queue.push(dep);
        continue;
      }
      const target = findFrom(workspaceDirs.get(name)!, dep);
      const already = linked.get(dep);
      if (already !== undefined && already !== target) throw new Error(`${name} needs ${dep} at ${target}, another package at ${already}`);
      linked.set(dep, target);
    }
  }
  for (const [name, target] of linked) {
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(target, join(dir, 'node_modules', name), 'dir');
  }
}

type Types = keyof typeof typesNode;
type Resolution = 'nodenext' | 'bundler';
const resolutions: Record<Resolution, { module: string; moduleResolution: string }> = {
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'preserve', moduleResolution: 'bundler' },
};
/** The consumer's files: an ES module and a CommonJS one under nodenext, the ES module under bundler; and their tests when @breakwater/testing is installed. */
const files = (resolution: Resolution, testing: boolean): string[] => {
  const ext = resolution === 'nodenext' ? ['mts', 'cts'] : ['mts'];
  return (testing ? ['consumer', 'testing'] : ['consumer']).flatMap((file) => ext.map((e) => `${file}.${e}`));
};
const layoutDir = (types: Types, testing: boolean) => join(tmp, `${types}-${testing ? 'with' : 'without'}-testing`);

interface Check {
  compiler: keyof typeof compilers;
  types: Types;
  testing: boolean;
  resolutions: readonly Resolution[];
}
const both = ['nodenext', 'bundler'] as const;
// Whether the main entry needs the optional peer does not depend on the @types/node version: the
// oldest is checked with the peer installed (the most declarations), the newest with and without.
const checks: Check[] = [
  { compiler: 'workspace', types: 'newest', testing: false, resolutions: ['nodenext'] },
  { compiler: 'newest', types: 'newest', testing: false, resolutions: both },
  { compiler: 'newest', types: 'newest', testing: true, resolutions: both },
  { compiler: 'newest', types: 'oldest', testing: true, resolutions: both },
];
/** The consumer projects the checks need: one per @types/node version and peer (installed or not). */
const layouts = [...new Map(checks.map(({ types, testing }) => [`${types} ${testing}`, { types, testing }])).values()];

type Outcome = { code: number; diagnostics: string };
/** A run's bound: ~10 s of CPU for TypeScript 6's, ~1.5 s for TypeScript 7's; far more on a machine busy with other work. */
const TIMEOUT = 150_000;
/** `tsc -p tsconfig.<config>.json` in `dir`: its exit code and every diagnostic it printed. */
async function tsc(compiler: keyof typeof compilers, dir: string, config: string): Promise<Outcome> {
  // TypeScript 7 checks on several threads by default; two runs at a time already use both cores.
  const threads = compiler === 'newest' ? ['--singleThreaded'] : [];
  const args = [join(compilers[compiler].dir, 'bin', 'tsc'), '-p', `tsconfig.${config}.json`, '--pretty', 'false', ...threads];
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: dir, encoding: 'utf8', timeout: TIMEOUT });
    return { code: 0, diagnostics: stdout + stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: unknown; stdout?: string; stderr?: string };
    return { code: typeof code === 'number' ? code : -1, diagnostics: `${stdout ?? ''}${stderr ?? ''}${typeof code === 'number' ? '' : String(error)}` };
  }
}

/** Every tsc run's outcome, started before the tests read them. */
const outcomes = new Map<string, Promise<Outcome>>();
const outcomeKey = (check: Check, resolution: Resolution) => `${check.compiler} ${check.types} ${check.testing} ${resolution}`;
let canary: Promise<Outcome>;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'breakwater-strict-'));
  const tarballs = join(tmp, 'tarballs');
  await run('pnpm', ['-r', '--filter', './packages/**', 'pack', '--pack-destination', tarballs], { cwd: repo, encoding: 'utf8' });
  for (const file of readdirSync(tarballs)) {
    const into = join(tmp, 'extracted', file.replace(/\.tgz$/, ''));
    mkdirSync(into, { recursive: true });
    await run('tar', ['-xzf', join(tarballs, file), '-C', into, '--strip-components=1']);
    extracted.set(manifest(into).name, into);
  }
  for (const { types, testing } of layouts) {
    const dir = layoutDir(types, testing);
    layOut(
      dir,
      [...extracted.keys()].filter((name) => testing || name !== '@breakwater/testing'),
      typesNode[types].dir,
    );
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'strict-consumer', private: true, type: 'module' }));
    for (const file of readdirSync(fixtures)) cpSync(join(fixtures, file), join(dir, file));
    for (const resolution of both) {
      const compilerOptions = { strict: true, skipLibCheck: false, target: 'es2022', types: ['node'], noEmit: true, ...resolutions[resolution] };
      writeFileSync(join(dir, `tsconfig.${resolution}.json`), JSON.stringify({ compilerOptions, files: files(resolution, testing) }, null, 2));
    }
  }
  // The check can fail: without the optional peer, importing breakwater/testing is an error.
  const canaryDir = layoutDir('newest', false);
  writeFileSync(join(canaryDir, 'canary.mts'), "export { scriptedBackend } from 'breakwater/testing';\n");
  writeFileSync(join(canaryDir, 'tsconfig.canary.json'), JSON.stringify({ extends: './tsconfig.nodenext.json', files: ['canary.mts'] }));
  // Two workers take the runs in order (the long TypeScript 6 run first), one per core.
  const queue: Array<{ start: () => Promise<Outcome>; settle: (outcome: Outcome) => void }> = [];
  const enqueue = (start: () => Promise<Outcome>): Promise<Outcome> => new Promise((settle) => queue.push({ start, settle }));
  for (const check of checks) {
    for (const resolution of check.resolutions) {
      outcomes.set(
        outcomeKey(check, resolution),
        enqueue(() => tsc(check.compiler, layoutDir(check.types, check.testing), resolution)),
      );
    }
  }
  canary = enqueue(() => tsc('newest', canaryDir, 'canary'));
  const worker = async () => {
    for (let job = queue.shift(); job !== undefined; job = queue.shift()) job.settle(await job.start());
  };
  void Promise.all([worker(), worker()]);
}, 60_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('the packed packages, type-checked by a strict consumer (strict, skipLibCheck: false)', () => {
  for (const check of checks) {
    const { compiler, types, testing } = check;
    const peer = testing ? 'with @breakwater/testing and fast-check installed, breakwater/testing imported' : 'without the optional peer @breakwater/testing';
    const under = check.resolutions.map((r) => (r === 'nodenext' ? 'nodenext (ESM and CommonJS)' : 'bundler')).join(' and ');
    it(
      `TypeScript ${compilers[compiler].version}, @types/node ${typesNode[types].version} (${types} supported), ${peer}: no diagnostic under ${under}`,
      async () => {
        for (const resolution of check.resolutions) {
          expect(await outcomes.get(outcomeKey(check, resolution)), `tsc under ${resolution} in ${layoutDir(types, testing)}`).toEqual({
            code: 0,
            diagnostics: '',
          });
        }
      },
      TIMEOUT,
    );
  }

  it(
    'can fail: without the optional peer, importing breakwater/testing is an error (its .d.ts re-exports @breakwater/testing)',
    async () => {
      const { code, diagnostics } = await canary;
      expect(code).not.toBe(0);
      expect(diagnostics.trim().split('\n')).toEqual([
        `canary.mts(1,10): error TS2305: Module '"breakwater/testing"' has no exported member 'scriptedBackend'.`,
        "node_modules/breakwater/dist/testing.d.ts(1,15): error TS2307: Cannot find module '@breakwater/testing' or its corresponding type declarations.",
      ]);
    },
    TIMEOUT,
  );

  it('lays the consumer out as npm would install it: the optional peer only where it is installed, the chosen @types/node', () => {
    const without = join(layoutDir('newest', false), 'node_modules');
    expect(readdirSync(join(without, '@breakwater')).sort()).toEqual(
      [...extracted.keys()]
        .filter((n) => n.startsWith('@breakwater/') && n !== '@breakwater/testing')
        .map((n) => n.slice('@breakwater/'.length))
        .sort(),
    );
    expect(existsSync(join(without, 'breakwater', 'dist', 'index.d.ts'))).toBe(true);
    expect(existsSync(join(without, 'fast-check'))).toBe(false);
    for (const dep of ['p-retry', 'piscina', 'prom-client', '@opentelemetry/api', 'redis'])
      expect(existsSync(join(without, dep, 'package.json')), dep).toBe(true);
    const withTesting = join(layoutDir('newest', true), 'node_modules');
    expect(existsSync(join(withTesting, '@breakwater', 'testing', 'dist', 'index.d.ts'))).toBe(true);
    expect(existsSync(join(withTesting, 'fast-check', 'package.json'))).toBe(true);
    expect(manifest(join(withTesting, '@types', 'node')).version).toBe(typesNode.newest.version);
    expect(manifest(join(layoutDir('oldest', true), 'node_modules', '@types', 'node')).version).toBe(typesNode.oldest.version);
    expect(typesNode.oldest.version).toMatch(/^20\./);
  });
});
