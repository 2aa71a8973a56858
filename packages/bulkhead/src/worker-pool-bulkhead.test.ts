import { getEventListeners } from 'node:events';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { BulkheadFullError, VirtualClock } from '@breakwater/core';
import { afterEach, describe, expect, it } from 'vitest';
import { PoolBulkhead, WorkerPoolBulkhead, type WorkerPoolBulkheadConfig } from './index.js';

// Real worker threads on real time: these tests wait for outcomes (messages, events), never for durations.
const filename = new URL('../test/fixtures/tasks.mjs', import.meta.url);

type Payload =
  | { op: 'square'; value: number }
  | { op: 'thread' }
  | { op: 'workerData' }
  | { op: 'throw'; message: string }
  | { op: 'hold'; port: MessagePort }
  | { op: 'never' }
  | { op: 'uncloneable' }
  | { op: 'throwUncloneable' };

const pools: WorkerPoolBulkhead<Payload | number, unknown>[] = [];
const ports: MessagePort[] = [];
afterEach(async () => {
  for (const port of ports.splice(0)) port.close();
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

const workers = (config: Partial<WorkerPoolBulkheadConfig> = {}) => {
  const pool = PoolBulkhead.workers<Payload | number, unknown>('cpu', { filename, maxThreadPoolSize: 2, coreThreadPoolSize: 1, queueCapacity: 1, ...config });
  pools.push(pool);
  return pool;
};

/** A task that runs until `release(message)` is called. */
function holdTask(pool: WorkerPoolBulkhead<Payload | number, unknown>, options: { signal?: AbortSignal } = {}) {
  const { port1, port2 } = new MessageChannel();
  ports.push(port1);
  const result = pool.run({ op: 'hold', port: port2 }, { transferList: [port2], ...options });
  return { result, release: (message: unknown) => port1.postMessage(message) };
}

/** Resolves on the pool's next event of `type`. */
const next = (pool: WorkerPoolBulkhead<Payload | number, unknown>, type: 'callPermitted' | 'callFinished' | 'callRejected') =>
  new Promise<void>((resolve) => {
    const off = pool.on(type, () => {
      off();
      resolve();
    });
  });

describe('PoolBulkhead.workers — real worker threads', () => {
  it('runs a payload in a worker: the default export, a named export, workerData', async () => {
    const pool = workers({ workerData: { region: 'eu' } });
    expect(pool).toBeInstanceOf(WorkerPoolBulkhead);
    expect(pool.kind).toBe('poolBulkhead');
    expect(pool.name).toBe('cpu');
    await expect(pool.run({ op: 'square', value: 7 })).resolves.toBe(49);
    await expect(pool.submit(21, { name: 'double' })).resolves.toBe(42);
    await expect(pool.run({ op: 'workerData' })).resolves.toEqual({ region: 'eu' });
    const threadId = await pool.run({ op: 'thread' });
    expect(threadId).toBeGreaterThan(0);
  });

  it('admits like ThreadPoolExecutor with real threads: core, queue, an extra thread, then refusal', async () => {
    const pool = workers();
    await pool.ready();
    const a = holdTask(pool);
    const b = holdTask(pool); // queued: the core thread is busy and the queue has room
    const c = holdTask(pool); // the queue is full: an extra thread
    const refused = await pool.run({ op: 'square', value: 2 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BulkheadFullError);
    expect(refused).toMatchObject({ bulkheadName: 'cpu', message: "Bulkhead 'cpu' is full and does not permit further calls" });
    expect(pool.metrics).toMatchObject({ activeCount: 2, queueDepth: 1, remainingQueueCapacity: 0, maximumThreadPoolSize: 2, coreThreadPoolSize: 1 });
    const bStarts = next(pool, 'callPermitted');
    a.release('a');
    await expect(a.result).resolves.toBe('a');
    await bStarts;
    expect(pool.metrics).toMatchObject({ activeCount: 2, queueDepth: 0 });
    b.release('b');
    c.release('c');
    await expect(Promise.all([b.result, c.result])).resolves.toEqual(['b', 'c']);
    expect(pool.metrics).toMatchObject({ activeCount: 0, queueDepth: 0 });
  });

  it('two tasks admitted at once run on two different threads', async () => {
    const pool = workers({ coreThreadPoolSize: 2, queueCapacity: 0 });
    const a = holdTask(pool);
    const b = holdTask(pool);
    expect(pool.metrics.activeCount).toBe(2);
    const ids = pool.run({ op: 'thread' }).catch((e: unknown) => e);
    await expect(ids).resolves.toBeInstanceOf(BulkheadFullError);
    a.release('x');
    b.release('y');
    await Promise.all([a.result, b.result]);
    const [t1, t2] = await Promise.all([pool.run({ op: 'thread' }), pool.run({ op: 'thread' })]);
    expect(t1).not.toBe(t2);
  });

  it('an error thrown in the worker rejects the call, with its message', async () => {
    const pool = workers();
    await expect(pool.run({ op: 'throw', message: 'bad input' })).rejects.toThrow('bad input');
    await expect(pool.run({ op: 'square', value: 3 })).resolves.toBe(9);
    expect(pool.metrics.activeCount).toBe(0);
  });

  it('an aborted queued task leaves the queue; an aborted running task has its thread replaced', async () => {
    const pool = workers({ maxThreadPoolSize: 1, coreThreadPoolSize: 1, queueCapacity: 2 });
    const running = new AbortController();
    const queued = new AbortController();
    const a = holdTask(pool, { signal: running.signal });
    const b = holdTask(pool, { signal: queued.signal });
    expect(pool.metrics).toMatchObject({ activeCount: 1, queueDepth: 1 });
    queued.abort(new Error('not needed'));
    await expect(b.result).rejects.toThrow('not needed');
    expect(pool.metrics.queueDepth).toBe(0);
    // The caller gets the reason at once; the slot comes back when piscina has let go of the task.
    const freed = next(pool, 'callFinished');
    running.abort('user left');
    await expect(a.result).rejects.toBe('user left');
    await freed;
    expect(pool.metrics.activeCount).toBe(0);
    await expect(pool.run({ op: 'square', value: 5 })).resolves.toBe(25);
    expect(getEventListeners(running.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(queued.signal, 'abort')).toHaveLength(0);
  });

  it('a long-lived signal keeps no listener after its tasks end', async () => {
    const pool = workers();
    const { signal } = new AbortController();
    await Promise.all([pool.run({ op: 'square', value: 1 }, { signal }), pool.run({ op: 'square', value: 2 }, { signal })]);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('close rejects the queue, refuses new work, lets running tasks finish, then stops the threads', async () => {
    const pool = workers({ maxThreadPoolSize: 1, coreThreadPoolSize: 1, queueCapacity: 2 });
    const a = holdTask(pool);
    const queued = pool.run({ op: 'square', value: 4 });
    let closed = false;
    const closing = pool.close().then(() => (closed = true));
    await expect(queued).rejects.toThrow("Bulkhead 'cpu' is closed; the call was queued and never ran");
    await expect(pool.run({ op: 'square', value: 4 })).rejects.toThrow(BulkheadFullError);
    expect(closed).toBe(false);
    a.release('done');
    await expect(a.result).resolves.toBe('done');
    await closing;
    expect(pool.metrics).toMatchObject({ activeCount: 0, queueDepth: 0, threadPoolSize: 0 });
  });

  it('tasks sharing one signal put one listener on it, running or queued, and none once they have ended', async () => {
    const pool = workers({ maxThreadPoolSize: 2, coreThreadPoolSize: 2, queueCapacity: 20 });
    const { signal } = new AbortController();
    const held = Array.from({ length: 12 }, () => holdTask(pool, { signal }));
    expect(pool.metrics).toMatchObject({ activeCount: 2, queueDepth: 10 });
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    for (const [i, h] of held.entries()) h.release(i);
    await expect(Promise.all(held.map((h) => h.result))).resolves.toEqual([...Array(12).keys()]);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('a result that cannot be cloned rejects with an Error that says what could not be cloned; the thread lives on', async () => {
    const pool = workers({ maxThreadPoolSize: 1, coreThreadPoolSize: 1 });
    const before = await pool.run({ op: 'thread' });
    const returned = (await pool.run({ op: 'uncloneable' }).catch((e: unknown) => e)) as Error;
    expect(returned).toBeInstanceOf(Error);
    expect(returned.name).toBe('DataCloneError');
    expect(returned.message).toBe(
      `PoolBulkhead 'cpu': the value the task returned could not be cloned to the main thread: (n) => \`#\${n}\` could not be cloned. (task: export 'default' of ${filename.href})`,
    );
    const thrown = (await pool.run({ op: 'throwUncloneable' }).catch((e: unknown) => e)) as Error;
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown.message).toMatch(
      /^PoolBulkhead 'cpu': the value the task threw could not be cloned to the main thread: \(\) => \{\s*\} could not be cloned\./,
    );
    expect(pool.metrics.activeCount).toBe(0);
    await expect(pool.run({ op: 'thread' })).resolves.toBe(before);
  });

  it('close() waits for a task that never settles; close({ force: true }) stops its thread and rejects it', async () => {
    const pool = workers({ maxThreadPoolSize: 1, coreThreadPoolSize: 1, queueCapacity: 1 });
    await pool.ready();
    const stuck = pool.run({ op: 'never' });
    const queued = pool.run({ op: 'square', value: 3 });
    const closing = pool.close();
    await expect(queued).rejects.toThrow("Bulkhead 'cpu' is closed; the call was queued and never ran");
    const forced = pool.close({ force: true });
    await expect(stuck).rejects.toThrow(new BulkheadFullError('cpu', 'was closed with force; the task was running and its worker thread was stopped'));
    await forced;
    await closing;
    expect(pool.metrics).toMatchObject({ activeCount: 0, queueDepth: 0, threadPoolSize: 0 });
    await expect(pool.run({ op: 'square', value: 2 })).rejects.toThrow("Bulkhead 'cpu' is closed and does not accept further calls");
  });

  it('close({ timeout }) gives running tasks that long on the pool’s clock, then stops them', async () => {
    const clock = new VirtualClock();
    const pool = workers({ maxThreadPoolSize: 2, coreThreadPoolSize: 2, clock });
    const quick = holdTask(pool);
    const stuck = pool.run({ op: 'never' });
    stuck.catch(() => {});
    const closing = pool.close({ timeout: '2s' });
    quick.release('in time');
    await expect(quick.result).resolves.toBe('in time');
    await clock.advance(1999);
    expect(pool.metrics.activeCount).toBe(1);
    await clock.advance(1);
    await expect(stuck).rejects.toThrow(/was closed with force/);
    await closing;
    expect(pool.metrics).toMatchObject({ activeCount: 0, threadPoolSize: 0 });
  });

  it('config reads back every option', () => {
    const pool = workers({ workerData: { region: 'eu' }, execArgv: ['--enable-source-maps'] });
    expect(pool.config).toMatchObject({
      filename: filename.href,
      workerData: { region: 'eu' },
      execArgv: ['--enable-source-maps'],
      resourceLimits: undefined,
      maxThreadPoolSize: 2,
      coreThreadPoolSize: 1,
      queueCapacity: 1,
      writableStackTraceEnabled: true,
    });
  });

  it('checks its options like every component', () => {
    expect(() => PoolBulkhead.workers('cpu', {} as WorkerPoolBulkheadConfig)).toThrow(
      new TypeError("PoolBulkhead 'cpu': filename must be the path or file URL of a worker module, got undefined"),
    );
    expect(() => PoolBulkhead.workers('cpu', { filename, coreThreadPoolSize: 3, maxThreadPoolSize: 2 })).toThrow(
      new RangeError("PoolBulkhead 'cpu': coreThreadPoolSize must be an integer in [1, 2] (maxThreadPoolSize), got 3"),
    );
    expect(() => PoolBulkhead.workers('cpu', { filename, threads: 2 } as WorkerPoolBulkheadConfig)).toThrow(/unknown option 'threads'/);
    expect(() => PoolBulkhead.workers('cpu', { filename, execArgv: [1] } as unknown as WorkerPoolBulkheadConfig)).toThrow(
      "PoolBulkhead 'cpu': execArgv must be an array of strings, got an array",
    );
  });
});
