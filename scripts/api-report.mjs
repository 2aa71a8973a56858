#!/usr/bin/env node
// The public API reports: every entry point each published package declares in its package.json `exports`
// (`.`, `./testing`, `./internal`…) read from its built declarations (dist/*.d.ts: run `pnpm build` first) by
// API Extractor, which writes a normalised report of the surface: packages/<dir>/etc/<dir>[-<entry>].api.md.
//
//   node scripts/api-report.mjs --check    fails, with a diff, when a report differs from the checked-in one
//                                           (or one is missing or left over): an unreviewed change of the surface
//   node scripts/api-report.mjs --update   rewrites the reports (review the diff, commit it with the change)
//   … [dir…]                               only these packages (directory names under packages/)
//   … --root <dir>                          another workspace than this one (the tests use it)
//
// API Extractor brings its own TypeScript (7.60.1 bundles 6.0.3, the workspace's version).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const args = process.argv.slice(2);
const rootAt = args.indexOf('--root');
const root = rootAt >= 0 ? resolve(args[rootAt + 1] ?? '.') : join(dirname(fileURLToPath(import.meta.url)), '..');
const update = args.includes('--update');
if (!update && !args.includes('--check')) {
  console.error('usage: node scripts/api-report.mjs --check|--update [--root dir] [package dir…]');
  process.exit(2);
}
const only = args.filter((a, i) => !a.startsWith('--') && !(rootAt >= 0 && i === rootAt + 1));

/** The published packages: every directory under packages/ whose package.json is not private. */
function packages() {
  const dirs = readdirSync(join(root, 'packages'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, 'packages', d.name, 'package.json')))
    .map((d) => d.name)
    .filter((dir) => JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')).private !== true)
    .sort();
  const unknown = only.filter((dir) => !dirs.includes(dir));
  if (unknown.length > 0) throw new Error(`api-report: no published package ${unknown.join(', ')} under packages/`);
  return only.length > 0 ? dirs.filter((dir) => only.includes(dir)) : dirs;
}

/** Each entry point of a package with its ESM declarations: `.` is <dir>, `./testing` is <dir>-testing. */
function entries(dir) {
  const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
  return Object.entries(pkg.exports ?? {})
    .filter(([, target]) => typeof target === 'object' && typeof target?.import?.types === 'string')
    .map(([subpath, target]) => ({
      subpath,
      name: subpath === '.' ? dir : `${dir}-${subpath.slice(2).replaceAll('/', '-')}`,
      types: target.import.types,
    }));
}

/** Runs API Extractor on one entry point; returns the report it would write, as text. */
function report(dir, entry, tempFolder) {
  const projectFolder = join(root, 'packages', dir);
  const declarations = join(projectFolder, entry.types);
  if (!existsSync(declarations)) throw new Error(`api-report: ${relative(root, declarations)} is missing: run pnpm build first`);
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder,
      mainEntryPointFilePath: declarations,
      bundledPackages: [],
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            lib: ['ES2022'],
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            types: ['node'],
            strict: true,
            skipLibCheck: true,
            noEmit: true,
          },
          files: [declarations],
        },
      },
      apiReport: { enabled: true, reportFileName: entry.name, reportFolder: tempFolder, reportTempFolder: tempFolder },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: 'lf',
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        extractorMessageReporting: {
          // No @public/@beta tags: the entry point says what is public, and every export is.
          'ae-missing-release-tag': { logLevel: 'none', addToApiReportFile: false },
          // Already marked `// (undocumented)` on the member; the footer would repeat it with line numbers of dist/.
          'ae-undocumented': { logLevel: 'none', addToApiReportFile: false },
          // {@link member} inside a class's TSDoc: a matter of the docs, not of the surface.
          'ae-unresolved-link': { logLevel: 'none', addToApiReportFile: false },
          // A type reachable from the surface but not exported: written into the report, where review sees it.
          default: { logLevel: 'none', addToApiReportFile: true },
        },
        // TSDoc syntax is the READMEs' and the TSDoc examples' business, not the surface's.
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(projectFolder, 'package.json'),
  });
  const result = Extractor.invoke(config, { localBuild: true, showVerboseMessages: false, messageCallback: quiet });
  if (!result.succeeded)
    throw new Error(`api-report: API Extractor failed on ${dir} ${entry.subpath} (${result.errorCount} errors, ${result.warningCount} warnings)`);
  return readFileSync(join(tempFolder, `${entry.name}.api.md`), 'utf8');
}

/** Keeps API Extractor's progress lines out of the output; warnings and errors still print. */
function quiet(message) {
  if (message.logLevel === 'info' || message.logLevel === 'verbose') message.handled = true;
}

/** A unified diff of two texts (line based, no context trimming beyond 3 lines), for the failure message. */
function diff(before, after, name) {
  const a = before.split('\n');
  const b = after.split('\n');
  // Longest common subsequence on lines: the reports are a few hundred lines.
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const ops = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) ops.push([' ', a[i++], j++]);
    else if (j < b.length && (i === a.length || lcs[i][j + 1] >= lcs[i + 1][j])) ops.push(['+', b[j++]]);
    else ops.push(['-', a[i++]]);
  }
  const out = [`--- a/${name}`, `+++ b/${name}`];
  const changed = ops.map((op, k) => (op[0] !== ' ' ? k : -1)).filter((k) => k >= 0);
  let k = 0;
  while (k < changed.length) {
    const start = Math.max(0, changed[k] - 3);
    let end = changed[k];
    while (k < changed.length && changed[k] <= end + 6) end = changed[k++];
    out.push('@@');
    for (let m = start; m <= Math.min(ops.length - 1, end + 3); m++) out.push(`${ops[m][0]}${ops[m][1]}`);
  }
  return out.join('\n');
}

const temp = mkdtempSync(join(tmpdir(), 'breakwater-api-'));
let stale = 0;
try {
  for (const dir of packages()) {
    const etc = join(root, 'packages', dir, 'etc');
    const expected = new Set();
    for (const entry of entries(dir)) {
      const file = join(etc, `${entry.name}.api.md`);
      expected.add(`${entry.name}.api.md`);
      const text = report(dir, entry, temp);
      const before = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
      if (before === text) continue;
      if (update) {
        mkdirSync(etc, { recursive: true });
        writeFileSync(file, text);
        console.log(`api-report: ${relative(root, file)} ${before === undefined ? 'written' : 'updated'}`);
      } else {
        stale++;
        console.error(before === undefined ? `api-report: ${relative(root, file)} is missing` : diff(before, text, relative(root, file)));
      }
    }
    // A report whose entry point is gone (a subpath removed from exports).
    for (const leftover of existsSync(etc) ? readdirSync(etc).filter((f) => f.endsWith('.api.md') && !expected.has(f)) : []) {
      if (update) {
        rmSync(join(etc, leftover));
        console.log(`api-report: ${relative(root, join(etc, leftover))} removed (no such entry point)`);
      } else {
        stale++;
        console.error(`api-report: ${relative(root, join(etc, leftover))} has no entry point in package.json exports`);
      }
    }
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
if (stale > 0) {
  console.error(
    `\napi-report: ${stale} public API report(s) differ from the code. If the change of the surface is intended, run pnpm api:update, review the diff of packages/*/etc/ and commit it with the change.`,
  );
  process.exit(1);
}
if (!update) console.log('api-report: every public API report matches the code');
