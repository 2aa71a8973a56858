import { fileURLToPath } from 'node:url';
import type { ResourceLimits, Transferable } from 'node:worker_threads';
import { BulkheadFullError, ConfigReader, onAbort } from '@breakwater/core';
import { enterCall, NEVER_ABORTED } from '@breakwater/core/internal';
import type { Piscina } from 'piscina';
import { POOL_KEYS, readPoolOptions, type PoolBulkheadConfig, type ResolvedPoolConfig } from './config.js';
import { PoolCore } from './pool-core.js';

/**
 * Options of a worker pool bulkhead: the pool's limits plus the worker module.
 *
 * @example
 * ```ts
 * const config: WorkerPoolBulkheadConfig = { filename: new URL('./resize.mjs', import.meta.url), maxThreadPoolSize: 4 };
 * ```
 */
export interface WorkerPoolBulkheadConfig extends PoolBulkheadConfig {
  /** The worker module (absolute path or `file:` URL); its default export (or `run`'s `name`) handles a payload. */
  readonly filename: string | URL;
  /** Given to every worker as `workerData` (structured clone). */
  readonly workerData?: unknown;
  /** V8 heap limits of each worker. */
  readonly resourceLimits?: ResourceLimits | undefined;
  /** Node flags of each worker (e.g. `['--enable-source-maps']`). */
  readonly execArgv?: readonly string[] | undefined;
}

/**
 * Options of one {@link WorkerPoolBulkhead.run}.
 *
 * @example
 * ```ts
 * const options: WorkerRunOptions = { name: 'thumbnail', signal: AbortSignal.timeout(2000), transferList: [buffer] };
 * ```
 */
export interface WorkerRunOptions {
  /** The worker module's export to call (default: its default export). */
  readonly name?: string | undefined;
  /** Aborts the task: a queued one leaves the queue; a running one has its worker thread terminated. */
  readonly signal?: AbortSignal | undefined;
  /** Objects moved to the worker rather than copied (`ArrayBuffer`, `MessagePort`, …: `worker_threads`' `Transferable`, which every @types/node from 20.19 to 26 has; its old alias `TransferListItem` is gone from 26). */
  readonly transferList?: readonly Transferable[] | undefined;
}

/**
 * Every option of a worker pool once checked (what `pool.config` reads back): the pool's limits,
 * and the worker options as given (`filename` as a path or `file:` URL string).
 *
 * @example
 * ```ts
 * const { filename, maxThreadPoolSize }: ResolvedWorkerPoolBulkheadConfig = thumbs.config;
 * ```
 */
export interface ResolvedWorkerPoolBulkheadConfig extends ResolvedPoolConfig {
  readonly filename: string;
  readonly workerData: unknown;
  readonly resourceLimits: ResourceLimits | undefined;
  readonly execArgv: readonly string[] | undefined;
}

const WORKER_KEYS = [...POOL_KEYS, 'filename', 'workerData', 'resourceLimits', 'execArgv'] as const;

/**
 * The module each worker thread starts with (piscina's default `filename`; every task names the
 * user's module): it makes a result that cannot be cloned back an `Error` that says so. Beside
 * `src/` and `dist/` alike.
 */
const WORKER_START = new URL('../worker/clone-errors.cjs', import.meta.url);

/** What the worker module's message starts with when a task's outcome could not be cloned. */
const CLONE_FAILURE = /^the value the task (returned|threw) could not be cloned to the main thread: /;

const noop = (): void => {};

/**
 * A pool bulkhead whose calls run in real worker threads (built on piscina), created by
 * {@link PoolBulkhead.workers}. Admission is the same as the async pool's: at most
 * `maxThreadPoolSize` tasks run at once (one per thread), `coreThreadPoolSize` threads are kept,
 * extra ones are started only when the queue is full and stop as soon as they are idle, and at most
 * `queueCapacity` tasks wait. The payload and the result cross the thread boundary by structured
 * clone (an error thrown in the worker arrives as a plain `Error` with its message).
 *
 * It is not a `Policy` (the work is a module, not a closure); compose it from inside one:
 * `decorate().withRetry(retry).execute((ctx) => pool.run(job, { signal: ctx.signal }))`.
 *
 * @example
 * ```ts
 * // hash.mjs: export default ({ text }) => createHash('sha256').update(text).digest('hex');
 * const hashes = PoolBulkhead.workers<{ text: string }, string>('hash', { filename: new URL('./hash.mjs', import.meta.url), maxThreadPoolSize: 2 });
 * const digest = await hashes.run({ text: 'breakwater' });
 * await hashes.close();
 * ```
 */
export class WorkerPoolBulkhead<T = unknown, R = unknown> extends PoolCore<T, WorkerRunOptions | undefined> {
  readonly kind = 'poolBulkhead' as const;
  /** The worker module. */
  readonly filename: string;
  readonly #workerOptions: Omit<ResolvedWorkerPoolBulkheadConfig, keyof ResolvedPoolConfig>;
  #piscina: Piscina | undefined;
  /** The pool's destruction, once started (see #destroy). */
  #destroying: Promise<void> | undefined;
  readonly #ready: Promise<Piscina>;

  constructor(name: string, config: WorkerPoolBulkheadConfig) {
    const read: ConfigReader<WorkerPoolBulkheadConfig> = new ConfigReader('PoolBulkhead', name, config, WORKER_KEYS);
    const limits = readPoolOptions(read);
    const filename = read.instance<string | URL>(
      'filename',
      'the path or file URL of a worker module',
      (v) => (typeof v === 'string' && v.length > 0) || v instanceof URL,
    );
    if (filename === undefined) read.fail('filename', 'the path or file URL of a worker module', undefined, 'type');
    const execArgv = read.instance<readonly string[]>('execArgv', 'an array of strings', (v) => Array.isArray(v) && v.every((a) => typeof a === 'string'));
    const resourceLimits = read.instance<ResourceLimits>('resourceLimits', 'an object', (v) => typeof v === 'object' && v !== null);
    super(name, limits);
    this.filename = typeof filename === 'string' ? filename : filename.href;
    this.#workerOptions = { filename: this.filename, workerData: config.workerData, resourceLimits, execArgv };
    // piscina is loaded on first use of a worker pool only: a semaphore user never pays for it.
    this.#ready = import('piscina').then(({ Piscina }) => {
      const pool = new Piscina({
        // Each thread starts with Breakwater's worker module; each task names the user's module.
        filename: fileURLToPath(WORKER_START),
        minThreads: limits.coreThreadPoolSize,
        maxThreads: limits.maxThreadPoolSize,
        idleTimeout: 0,
        concurrentTasksPerWorker: 1,
        ...(config.workerData !== undefined ? { workerData: config.workerData } : {}),
        ...(resourceLimits !== undefined ? { resourceLimits } : {}),
        ...(execArgv !== undefined ? { execArgv: [...execArgv] } : {}),
      });
      // A worker that fails with no task to fail is reported, never an uncaught 'error'.
      pool.on('error', (error: unknown) => {
        process.emitWarning(`PoolBulkhead '${name}': a worker thread failed: ${error instanceof Error ? error.message : String(error)}`, {
          type: 'BreakwaterWorkerWarning',
        });
      });
      this.#piscina = pool;
      return pool;
    });
    // A failed load surfaces in run() and close(); it is never an unhandled rejection by itself.
    this.#ready.catch(() => {});
  }

  /** Every option's value (what was given or its default). */
  override get config(): ResolvedWorkerPoolBulkheadConfig {
    return { ...super.config, ...this.#workerOptions };
  }

  /** Worker threads alive (piscina's count), once the pool is up. */
  protected override get threadPoolSize(): number {
    return this.#piscina?.threads.length ?? 0;
  }

  /**
   * Resolves once the worker module's threads are being started (piscina loaded and the core
   * threads spawned); `run` does not need it, it only lets a caller warm the pool up.
   *
   * @example
   * ```ts
   * await pool.ready();
   * ```
   */
  async ready(): Promise<void> {
    await this.#ready;
  }

  /**
   * Sends `payload` to a worker (now, or after waiting in the queue) and resolves with what the
   * worker's export returned. Rejects with {@link BulkheadFullError} when the pool is full or
   * closed, with the signal's reason when `options.signal` aborts (a running task's thread is
   * terminated and replaced), and with an `Error` named `DataCloneError` when what the task
   * returned or threw cannot be cloned back (its message says what). Never throws synchronously.
   *
   * @example
   * ```ts
   * const n = await pool.run({ n: 40 }, { name: 'fib', signal: AbortSignal.timeout(1000) });
   * ```
   */
  run(payload: T, options?: WorkerRunOptions | null): Promise<R> {
    const ctx = enterCall(options);
    if (ctx instanceof Promise) return ctx;
    return this.admitCall<R>(payload, options ?? undefined, ctx.signal);
  }

  /**
   * The same as {@link run}.
   *
   * @example
   * ```ts
   * await pool.submit({ n: 40 });
   * ```
   */
  submit(payload: T, options?: WorkerRunOptions | null): Promise<R> {
    return this.run(payload, options);
  }

  protected start(payload: T, options: WorkerRunOptions | undefined, signal: AbortSignal): Promise<unknown> {
    // piscina gets a signal of the task's own, so that the caller's signal carries one listener
    // of Breakwater's however many tasks share it (onAbort), and none once they have ended.
    let stop = noop;
    let taskSignal: AbortSignal | undefined;
    if (signal !== NEVER_ABORTED) {
      const controller = new AbortController();
      stop = onAbort(signal, () => controller.abort(signal.reason));
      taskSignal = controller.signal;
    }
    const runOptions = {
      filename: this.filename,
      ...(options?.name !== undefined ? { name: options.name } : {}),
      ...(options?.transferList !== undefined ? { transferList: [...options.transferList] as never } : {}),
      ...(taskSignal !== undefined ? { signal: taskSignal } : {}),
    };
    const send = (pool: Piscina): Promise<unknown> => (this.forced ? Promise.reject(this.#stopped()) : pool.run(payload, runOptions));
    return (this.#piscina !== undefined ? send(this.#piscina) : this.#ready.then(send)).then(
      (value) => {
        stop();
        return value;
      },
      (error: unknown) => {
        stop();
        throw this.#explain(error, signal, options?.name);
      },
    );
  }

  /** What the caller of a failed task gets. */
  #explain(error: unknown, signal: AbortSignal, name: string | undefined): unknown {
    // piscina rejects an aborted task with its own AbortError, and a terminated one with a plain Error.
    if (signal.aborted) return signal.reason;
    if (this.forced) return this.#stopped();
    if (error instanceof Error && CLONE_FAILURE.test(error.message)) {
      const explained = new Error(`PoolBulkhead '${this.name}': ${error.message} (task: export '${name ?? 'default'}' of ${this.filename})`, { cause: error });
      explained.name = 'DataCloneError';
      return explained;
    }
    return error;
  }

  #stopped(): BulkheadFullError {
    return new BulkheadFullError(this.name, 'was closed with force; the task was running and its worker thread was stopped');
  }

  /** `close` with force (or past its timeout): the threads are terminated, and every running task rejects. */
  protected override stopRunning(): void {
    if (this.#piscina !== undefined) this.#destroy(this.#piscina).catch(noop);
  }

  /** `close()` resolves once the threads are gone: the same destruction a forced close started, or a new one. */
  protected override async onClosed(): Promise<void> {
    await this.#destroy(await this.#ready);
  }

  /** The pool's one destruction (piscina's `destroy()` called twice would resolve the second at once, threads still alive). */
  #destroy(pool: Piscina): Promise<void> {
    this.#destroying ??= pool.destroy();
    return this.#destroying;
  }
}
