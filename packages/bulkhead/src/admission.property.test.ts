import { VirtualClock } from '@breakwater/core';
import { deferred, flush } from '@breakwater/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admit } from './admission.js';
import type { PoolLimits } from './config.js';
import { PoolBulkhead } from './pool-bulkhead.js';

/**
 * A brute-force model of Java's ThreadPoolExecutor with a keep-alive of 0: real threads, each
 * idle or running one task; `execute` follows the JDK's three steps (a new thread while fewer
 * than `core` exist; else offer to the queue — taken at once by an idle thread, or kept if the
 * queue has room; else a new thread while fewer than `max` exist; else reject). A thread that
 * finishes takes the next queued task; with none, it ends if more than `core` threads exist.
 */
class JavaPool {
  threads: (number | null)[] = [];
  queue: number[] = [];
  constructor(readonly limits: PoolLimits) {}

  execute(task: number): 'run' | 'queue' | 'reject' {
    const { coreThreadPoolSize: core, maxThreadPoolSize: max, queueCapacity } = this.limits;
    if (this.threads.length < core) {
      this.threads.push(task);
      return 'run';
    }
    const idle = this.threads.indexOf(null);
    if (idle >= 0) {
      // offer() succeeds (an idle thread is waiting on take(), even for a SynchronousQueue) and that thread runs it.
      this.threads[idle] = task;
      return 'run';
    }
    if (this.queue.length < queueCapacity) {
      this.queue.push(task);
      return 'queue';
    }
    if (this.threads.length < max) {
      this.threads.push(task);
      return 'run';
    }
    return 'reject';
  }

  complete(task: number): void {
    const i = this.threads.indexOf(task);
    const next = this.queue.shift();
    if (next !== undefined) this.threads[i] = next;
    else if (this.threads.length > this.limits.coreThreadPoolSize) this.threads.splice(i, 1);
    else this.threads[i] = null;
  }

  remove(task: number): void {
    this.queue = this.queue.filter((t) => t !== task);
  }

  get running(): number[] {
    return this.threads.filter((t): t is number => t !== null).sort((a, b) => a - b);
  }
}

const limitsArb = fc
  .record({ max: fc.integer({ min: 1, max: 4 }), queueCapacity: fc.integer({ min: 0, max: 3 }) })
  .chain(({ max, queueCapacity }) =>
    fc.record({ maxThreadPoolSize: fc.constant(max), coreThreadPoolSize: fc.integer({ min: 1, max }), queueCapacity: fc.constant(queueCapacity) }),
  );

type Step = { readonly kind: 'submit' } | { readonly kind: 'complete'; readonly pick: number } | { readonly kind: 'abort'; readonly pick: number };
const steps: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof(
    { weight: 5, arbitrary: fc.constant({ kind: 'submit' as const }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('complete' as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('abort' as const), pick: fc.nat() }) },
  ),
  { minLength: 1, maxLength: 40 },
);

describe('admit, the admission rule', () => {
  it('keeps at most maxThreadPoolSize running and queueCapacity queued, whatever the traffic', () => {
    fc.assert(
      fc.property(limitsArb, fc.array(fc.boolean(), { maxLength: 60 }), (limits, arrivals) => {
        let active = 0;
        let queued = 0;
        for (const arrives of arrivals) {
          if (arrives) {
            const decision = admit(active, queued, limits);
            // An extra slot beyond the core is used only when the queue is full.
            if (decision === 'run' && active >= limits.coreThreadPoolSize) expect(queued).toBe(limits.queueCapacity);
            if (decision === 'run') active++;
            else if (decision === 'queue') queued++;
            else expect(active + queued).toBe(limits.maxThreadPoolSize + limits.queueCapacity);
          } else if (active > 0) {
            if (queued > 0) queued--;
            else active--;
          }
          expect(active).toBeLessThanOrEqual(limits.maxThreadPoolSize);
          expect(queued).toBeLessThanOrEqual(limits.queueCapacity);
        }
      }),
    );
  });
});

describe('PoolBulkhead against a brute-force model of ThreadPoolExecutor', () => {
  it('admits, queues, refuses, starts in FIFO order and counts threads as Java does', async () => {
    await fc.assert(
      fc.asyncProperty(limitsArb, steps, async (limits, script) => {
        const pool = new PoolBulkhead('model', { ...limits, clock: new VirtualClock() });
        const java = new JavaPool(limits);
        const started: number[] = [];
        const running = new Map<number, () => void>();
        const controllers = new Map<number, AbortController>();
        const queued: number[] = [];
        const settled: Promise<unknown>[] = [];
        let next = 0;
        for (const step of script) {
          if (step.kind === 'submit') {
            const id = next++;
            const before = pool.metrics;
            const expected = java.execute(id);
            // The pure rule agrees with Java's on the counts the pool shows.
            expect(admit(before.activeCount, before.queueDepth, limits)).toBe(expected);
            const ac = new AbortController();
            controllers.set(id, ac);
            const hold = deferred();
            const call = pool.execute(
              () => {
                started.push(id);
                running.set(id, hold.resolve);
                return hold.promise;
              },
              { signal: ac.signal },
            );
            settled.push(call.catch(() => {}));
            if (expected === 'queue') queued.push(id);
            if (expected === 'reject') await expect(call).rejects.toThrow("Bulkhead 'model' is full and does not permit further calls");
          } else if (step.kind === 'complete' && running.size > 0) {
            const ids = [...running.keys()];
            const id = ids[step.pick % ids.length]!;
            running.get(id)!();
            running.delete(id);
            java.complete(id);
            await flush();
            const moved = java.running.filter((t) => !running.has(t) && t !== id);
            for (const t of moved) queued.splice(queued.indexOf(t), 1);
          } else if (step.kind === 'abort' && queued.length > 0) {
            const id = queued.splice(step.pick % queued.length, 1)[0]!;
            controllers.get(id)!.abort('gone');
            java.remove(id);
            await flush();
          }
          await flush();
          expect([...running.keys()].sort((a, b) => a - b)).toEqual(java.running);
          expect(pool.metrics).toMatchObject({
            activeCount: java.running.length,
            queueDepth: java.queue.length,
            threadPoolSize: java.threads.length,
            remainingQueueCapacity: limits.queueCapacity - java.queue.length,
          });
        }
        for (const resolve of running.values()) resolve();
        await pool.close();
        await Promise.all(settled);
        expect(pool.metrics).toMatchObject({ activeCount: 0, queueDepth: 0 });
      }),
      { numRuns: 300 },
    );
  });
});
