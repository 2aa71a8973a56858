import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UMBRELLA_PACKAGES } from '../test/umbrella-packages.js';

// The README's "install from packed tarballs" recipe, as an outside project would follow it:
// `pnpm pack` every package, `npm i` the tarballs into a directory outside the repository (npm
// fetches p-retry and piscina from the registry, or from its cache), then small ESM and CommonJS
// programs make a retried call and read a Spring config with fromConfig. Needs the built dist
// (`pnpm test` builds what is stale first).
const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');

// A consumer's environment: none of the NODE_PATH (it leads into the workspace's node_modules),
// npm_config_* or VITEST* variables that pnpm and vitest set for this process.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(NODE_PATH|NODE_ENV|npm_|pnpm_|PNPM_|VITEST)/i.test(key)));

let dir: string;
let tarballs: string[];
const node = (args: string[]) => run(process.execPath, args, { cwd: join(dir, 'app'), encoding: 'utf8', env });
const npm = (args: string[]) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: join(dir, 'app'), encoding: 'utf8', env });
const tarball = (name: string) => {
  const file = tarballs.find((t) => t === `${name.replace(/^@/, '').replace('/', '-')}-0.1.0.tgz`);
  if (file === undefined) throw new Error(`no tarball for ${name} in ${tarballs.join(', ')}`);
  return join(dir, 'tarballs', file);
};

const retried = (retry: string, core = retry) => `{
  const { Retry } = ${retry};
  const { VirtualClock } = ${core};
  const clock = new VirtualClock();
  let calls = 0;
  const call = new Retry('pg', { maxAttempts: 3, waitDuration: 100, clock }).execute(async () => {
    if (++calls < 3) throw new Error('down');
    return 'paid after ' + calls + ' attempts';
  });
  await clock.advance(200);
  console.log(await call);
}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'breakwater-pack-'));
  await run('pnpm', ['-r', '--filter', './packages/**', 'pack', '--pack-destination', join(dir, 'tarballs')], { cwd: repo, encoding: 'utf8' });
  tarballs = readdirSync(join(dir, 'tarballs'));
  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'outside-app', version: '1.0.0', private: true }));
  writeFileSync(
    join(app, 'esm.mjs'),
    `${retried("await import('breakwater')")}\n${retried("await import('@breakwater/retry')", "await import('@breakwater/core')")}\n`,
  );
  writeFileSync(join(app, 'square.mjs'), 'export default ({ value }) => value * value;\n');
  writeFileSync(
    join(app, 'worker.cjs'),
    `const { PoolBulkhead } = require('@breakwater/bulkhead');
    const pool = PoolBulkhead.workers('cpu', { filename: require('path').join(__dirname, 'square.mjs'), maxThreadPoolSize: 1 });
    pool.run({ value: 7 }).then((r) => console.log(r), (e) => console.error(e)).finally(() => pool.close());\n`,
  );
  writeFileSync(
    join(app, 'cjs.cjs'),
    `(async () => {${retried("require('breakwater')")}\n${retried("require('@breakwater/retry')", "require('@breakwater/core')")}\n})();\n`,
  );
  const packages = [...UMBRELLA_PACKAGES, 'breakwater'];
  await npm(['install', ...packages.map(tarball)]);
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the packed packages, installed with npm outside the repository', () => {
  it('a retried call works from an ES module and from CommonJS, through breakwater and @breakwater/retry', async () => {
    const esm = await node(['esm.mjs']);
    expect(esm.stdout).toBe('paid after 3 attempts\n'.repeat(2));
    expect(esm.stderr).toBe('');
    const cjs = await node(['cjs.cjs']);
    expect(cjs.stdout).toBe('paid after 3 attempts\n'.repeat(2));
    expect(cjs.stderr).toBe('');
  });

  it('fromConfig works from @breakwater/spring-config and through breakwater, from ESM and CommonJS (and brings no YAML parser)', async () => {
    const script = (load: string) =>
      `Promise.resolve(${load}).then(({ fromConfig }) => console.log(fromConfig({ resilience4j: { retry: { instances: { pg: { 'max-attempts': 4 } } } } }).retry.find('pg').config.maxAttempts))`;
    for (const load of ["import('@breakwater/spring-config')", "require('@breakwater/spring-config')", "import('breakwater')", "require('breakwater')"]) {
      const { stdout, stderr } = await node(['-e', script(load)]);
      expect(stdout, load).toBe('4\n');
      expect(stderr, load).toBe('');
    }
    expect(existsSync(join(dir, 'app', 'node_modules', 'yaml'))).toBe(false);
  });

  it('a worker task runs in a worker thread of the installed bulkhead (piscina from the registry)', async () => {
    const { stdout, stderr } = await node(['worker.cjs']);
    expect(stderr).toBe('');
    expect(stdout).toBe('49\n');
  });

  it('publishes no condition a consumer could set by accident: node --conditions=source still loads dist/', async () => {
    expect((await node(['--conditions=source', 'esm.mjs'])).stdout).toBe('paid after 3 attempts\n'.repeat(2));
    for (const name of readdirSync(join(dir, 'app', 'node_modules', '@breakwater'))
      .map((d) => `@breakwater/${d}`)
      .concat('breakwater')) {
      const manifest = JSON.parse(readFileSync(join(dir, 'app', 'node_modules', name, 'package.json'), 'utf8')) as {
        exports: Record<string, Record<string, unknown>>;
      };
      for (const entry of Object.values(manifest.exports).filter((e) => typeof e === 'object')) {
        expect(Object.keys(entry), name).toEqual(['@breakwater/source', 'import', 'require']);
      }
      expect(existsSync(join(dir, 'app', 'node_modules', name, 'src')), `${name} ships no src/`).toBe(false);
    }
  });

  it('installs no test helpers into production: no fast-check, no @breakwater/testing; breakwater/testing says what is missing', async () => {
    const installed = join(dir, 'app', 'node_modules');
    expect(existsSync(join(installed, 'fast-check'))).toBe(false);
    expect(existsSync(join(installed, '@breakwater', 'testing'))).toBe(false);
    expect(existsSync(join(installed, 'p-retry'))).toBe(true);
    expect(existsSync(join(installed, 'piscina'))).toBe(true);
    await expect(node(['-e', "require('breakwater/testing')"])).rejects.toThrow(/Cannot find module '@breakwater\/testing'/);
  });

  it('breakwater/testing works once @breakwater/testing and fast-check are installed (as dev dependencies)', async () => {
    await npm(['install', '--save-dev', tarball('@breakwater/testing'), 'fast-check@^4']);
    const script = (load: string) => `Promise.resolve(${load}).then((t) => console.log(typeof t.scriptedBackend, typeof t.trafficArb, typeof t.VirtualClock))`;
    expect((await node(['-e', script("import('breakwater/testing')")])).stdout).toBe('function function function\n');
    expect((await node(['-e', script("require('breakwater/testing')")])).stdout).toBe('function function function\n');
  }, 60_000);
});
