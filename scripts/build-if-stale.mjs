#!/usr/bin/env node
// Builds the packages whose built dist/ may not match their sources, and only those, so that
// `pnpm test` (whose dist tests load the built files) is fast on a warm checkout and never runs
// against a stale build.
//
//   node scripts/build-if-stale.mjs          build what is stale (`pnpm test` runs this first)
//   node scripts/build-if-stale.mjs --all    build every package (`pnpm build`, CI)
//   node scripts/build-if-stale.mjs --check  list what is stale and why, build nothing (exit 1 if any)
//
// A package is fresh when its stamp (node_modules/.cache/build-if-stale/<dir>.json, never
// published) holds both
//   - the hash of what its build may read: every file of the package (package.json, tsconfig.json,
//     src/, any other directory an entry may come from) except dist/, node_modules/, test/,
//     dot-files, *.md and tests (*.test.ts), plus the root tsconfig.base.json and the installed
//     tsup, typescript and esbuild versions, and
//   - the path, size and mtime of every file in its dist/, as the build left them,
// and both still match. Anything else — no stamp, a source changed, dist/ deleted or rebuilt by
// another command, a failed or interrupted build — rebuilds the package with its own `build`
// script (tsup: ESM + CJS + .d.ts). Dependencies are external in every build (dist/ of retry does
// not contain core), so a package's dist/ depends on its own sources only.
//
// Two runs at once (two terminals, or an editor's test runner) take turns through a lock.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = join(root, 'node_modules', '.cache', 'build-if-stale');
const args = process.argv.slice(2);
const unknown = args.filter((a) => a !== '--all' && a !== '--check');
if (unknown.length > 0) {
  console.error(`build-if-stale: unknown option ${unknown.join(' ')} (known: --all, --check)`);
  process.exit(2);
}
const all = args.includes('--all');
const checkOnly = args.includes('--check');

/** Every file under `dir`, as paths relative to `base`, sorted; `keep` sees each entry's path relative to `base`. */
function files(dir, base = dir, keep = () => true) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = relative(base, path);
    if (!keep(rel, entry)) continue;
    if (entry.isDirectory()) out.push(...files(path, base, keep));
    else if (entry.isFile()) out.push(rel);
  }
  return out.sort();
}

/** What a package's build may read: not its output, installs, tests, docs or dot-files. */
const buildInput = (rel, entry) =>
  !entry.name.startsWith('.') &&
  !(entry.isDirectory() && ['dist', 'node_modules', 'test'].includes(rel)) &&
  !(entry.isFile() && (entry.name.endsWith('.test.ts') || entry.name.endsWith('.md')));

const versionOf = (pkg) => {
  try {
    return JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return 'missing';
  }
};
const toolchain = ['tsup', 'typescript', 'esbuild'].map((tool) => `${tool}@${versionOf(tool)}`).join(' ');
const baseConfig = readFileSync(join(root, 'tsconfig.base.json'));

/** The hash of everything the package's build reads. */
function sourceHash(dir) {
  const hash = createHash('sha256');
  hash.update(toolchain).update('\0').update(baseConfig).update('\0');
  for (const file of files(dir, dir, buildInput))
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(dir, file)))
      .update('\0');
  return hash.digest('hex');
}

/** What dist/ holds now: path, size and mtime of each file. */
function distSignature(dir) {
  return files(join(dir, 'dist'), dir).map((file) => {
    const s = statSync(join(dir, file));
    return `${file} ${s.size} ${s.mtimeMs}`;
  });
}

const packages = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(root, 'packages', d.name, 'package.json')))
  .map((d) => {
    const dir = join(root, 'packages', d.name);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    return { id: d.name, dir, name: manifest.name, hasBuild: typeof manifest.scripts?.build === 'string' };
  })
  .filter((p) => p.hasBuild);

const stampFile = (pkg) => join(cacheDir, `${pkg.id}.json`);

/** Why the package must be built, or undefined when it is fresh. */
function staleness(pkg) {
  if (all) return 'asked for (--all)';
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile(pkg), 'utf8'));
  } catch {
    return 'no record of a build by this script';
  }
  const dist = distSignature(pkg.dir);
  if (dist.length === 0) return 'no dist/';
  if (stamp.source !== sourceHash(pkg.dir)) return 'sources changed since its build';
  if (JSON.stringify(stamp.dist) !== JSON.stringify(dist)) return 'dist/ changed since its build (built or removed by another command)';
  return undefined;
}

// One run at a time: a second run waits for the first one's builds (and then finds them fresh).
function withLock(fn) {
  mkdirSync(cacheDir, { recursive: true });
  const lock = join(cacheDir, 'lock');
  const started = Date.now();
  let said = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      let holder;
      try {
        holder = Number(readFileSync(join(lock, 'pid'), 'utf8'));
      } catch {
        holder = undefined; // being created or removed right now
      }
      let alive = true;
      if (holder) {
        try {
          process.kill(holder, 0);
        } catch (e) {
          alive = e.code === 'EPERM';
        }
      }
      if (!alive || Date.now() - started > 10 * 60_000) {
        rmSync(lock, { recursive: true, force: true }); // left by a run that died
        continue;
      }
      if (!said) {
        console.log(`build-if-stale: waiting for another build (pid ${holder ?? '?'}) to finish`);
        said = true;
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

const t0 = Date.now();
const status = withLock(() => {
  const stale = packages.map((pkg) => ({ pkg, why: staleness(pkg) })).filter((s) => s.why !== undefined);
  if (stale.length === 0) {
    console.log(`build-if-stale: all ${packages.length} packages are fresh (${Date.now() - t0} ms)`);
    return 0;
  }
  for (const { pkg, why } of stale) console.log(`build-if-stale: ${pkg.name}: ${why}`);
  if (checkOnly) return 1;

  const before = new Map(stale.map(({ pkg }) => [pkg.id, sourceHash(pkg.dir)]));
  for (const { pkg } of stale) rmSync(stampFile(pkg), { force: true });
  const filters = stale.flatMap(({ pkg }) => ['--filter', `./packages/${pkg.id}`]);
  // tsup's progress lines are shown only when a build fails.
  const build = spawnSync('pnpm', ['-r', ...filters, 'run', 'build'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (build.error) {
    console.error(`build-if-stale: could not run pnpm: ${build.error.message}`);
    return 1;
  }
  if (build.status !== 0) {
    process.stdout.write(build.stdout);
    process.stderr.write(build.stderr);
    console.error(`build-if-stale: the build failed (pnpm exited with ${build.status})`);
    return build.status ?? 1;
  }

  for (const { pkg } of stale) {
    const source = sourceHash(pkg.dir);
    // A source edited while its build ran: the build may hold either version, so no stamp (it is
    // built again next time).
    if (source !== before.get(pkg.id)) {
      console.log(`build-if-stale: ${pkg.name}: sources changed during its build; it will be built again next time`);
      continue;
    }
    writeFileSync(stampFile(pkg), JSON.stringify({ source, dist: distSignature(pkg.dir) }, null, 1));
  }
  console.log(`build-if-stale: built ${stale.length} of ${packages.length} packages in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return 0;
});
process.exit(status);
