import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Helpers shared by the tests of every package (a private workspace package: never published,
// never a dependency of published code). One spelling of each, so a test reads the same anywhere.

/** A promise settled by hand. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/**
 * A promise to resolve or reject by hand.
 *
 * @example
 * ```ts
 * const gate = deferred<string>();
 * const call = breaker.execute(() => gate.promise);
 * gate.resolve('ok');
 * ```
 */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** What {@link track} knows of a promise: its state, and its value or error once settled. */
export interface Tracked<T> {
  state: 'pending' | 'fulfilled' | 'rejected';
  /** `state !== 'pending'`. */
  settled: boolean;
  value?: T;
  error?: unknown;
}

/**
 * Follows a promise's state without awaiting it, and marks its rejection handled (no unhandled
 * rejection from a promise a test only looks at).
 *
 * @example
 * ```ts
 * const call = track(limiter.acquirePermission());
 * await clock.advance(99);
 * expect(call.settled).toBe(false);
 * ```
 */
export function track<T>(promise: Promise<T>): Tracked<T> {
  const tracked: Tracked<T> = { state: 'pending', settled: false };
  promise.then(
    (value) => Object.assign(tracked, { state: 'fulfilled', settled: true, value }),
    (error: unknown) => Object.assign(tracked, { state: 'rejected', settled: true, error }),
  );
  return tracked;
}

/**
 * One macrotask turn: every pending promise callback has run.
 *
 * @example
 * ```ts
 * controller.abort();
 * await flush();
 * ```
 */
export const flush = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A hostile promise: a native promise whose own `then` calls both handlers, `value` then `error`
 * (and returns nothing). A policy must settle and count the call exactly once.
 *
 * @example
 * ```ts
 * await expect(bulkhead.execute(() => twoFaced('ok'))).resolves.toBe('ok');
 * expect(bulkhead.metrics.availableConcurrentCalls).toBe(10);
 * ```
 */
export function twoFaced<T>(value: T, error: unknown = new Error('rejected too')): Promise<T> {
  const p = Promise.resolve(value);
  Object.defineProperty(p, 'then', {
    value(onFulfilled?: (v: T) => unknown, onRejected?: (e: unknown) => unknown): void {
      onFulfilled?.(value);
      onRejected?.(error);
    },
  });
  return p;
}

/**
 * The names a package's `src/index.ts` (or another `entry` file of `src/`, e.g. `internal.ts`)
 * exports whose declaration in `src/` has no TSDoc with an `@example` (house rule: every public
 * export has one). `srcDir` is the package's `src/` folder.
 *
 * @example
 * ```ts
 * const { names, undocumented } = exportsWithoutExample(new URL('.', import.meta.url));
 * expect(undocumented).toEqual([]);
 * ```
 */
export function exportsWithoutExample(srcDir: URL, entry = 'index.ts'): { names: string[]; undocumented: string[] } {
  const documented = new Map<string, boolean>();
  const sources = readdirSync(srcDir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== entry);
  // The TSDoc may be followed by line comments (a `// biome-ignore …` with its reason) before the declaration.
  const declaration =
    /(\/\*\*(?:(?!\*\/)[\s\S])*\*\/\s*(?:\/\/[^\n]*\n\s*)*)?^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|let|enum) (\w+)/gm;
  for (const file of sources) {
    for (const m of readFileSync(new URL(file, srcDir), 'utf8').matchAll(declaration)) documented.set(m[2]!, (m[1] ?? '').includes('@example'));
  }
  const index = readFileSync(new URL(entry, srcDir), 'utf8');
  const names = [...index.matchAll(/export\s*(?:type\s*)?\{([^}]*)\}/g)].flatMap((m) =>
    m[1]!
      .split(',')
      .map((n) => n.trim().replace(/^type\s+/, ''))
      .filter((n) => n.length > 0),
  );
  return { names, undocumented: names.filter((n) => documented.get(n) !== true) };
}

/** What a script run by {@link runPackageScript} did. */
export interface ScriptRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the `script` of `packageDir`'s package.json as `pnpm <script>` would, with `args` after
 * it: the script must be a plain `node …` command line (no quoting), and its `node` is the one
 * running the tests.
 *
 * @example
 * ```ts
 * const { code, stderr } = await runPackageScript(exampleDir, 'demo', ['--bogus']);
 * expect(code).toBe(2);
 * ```
 */
export function runPackageScript(packageDir: string, script: string, args: readonly string[]): Promise<ScriptRun> {
  const line: unknown = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')).scripts?.[script];
  if (typeof line !== 'string') throw new Error(`${packageDir}/package.json has no script '${script}'`);
  const [command, ...scriptArgs] = line.split(/\s+/);
  if (command !== 'node') throw new Error(`script '${script}' must start with node, got: ${line}`);
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...scriptArgs, ...args], { cwd: packageDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
