import { getEventListeners } from 'node:events';
import { BulkheadFullError, VirtualClock } from '@breakwater/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admit } from './admission.js';
import { PoolBulkhead } from './pool-bulkhead.js';
import { scheduledWork, settleAll } from '../test/test-support.js';

type Op =
  | { readonly kind: 'call'; readonly outcome: 'ok' | 'fail' | 'throw'; readonly abortable: boolean }
  | { readonly kind: 'abort'; readonly target: number }
  | { readonly kind: 'close' };

const script: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record({
        kind: fc.constant('call' as const),
        outcome: fc.constantFrom('ok' as const, 'fail' as const, 'throw' as const),
        abortable: fc.boolean(),
      }),
    },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('abort' as const), target: fc.nat({ max: 4 }) }) },
  ),
  { minLength: 5, maxLength: 40 },
);

const limits = fc
  .integer({ min: 1, max: 3 })
  .chain((max) =>
    fc.record({ maxThreadPoolSize: fc.constant(max), coreThreadPoolSize: fc.integer({ min: 1, max }), queueCapacity: fc.integer({ min: 0, max: 3 }) }),
  );

describe('PoolBulkhead (async slots) under any interleaving of calls, completions, failures, aborts and close (fc.scheduler)', () => {
  const seen = { aborted: 0, rejected: 0, queued: 0 };

  it('admits by the rule, never runs more than max nor queues more than the capacity, and ends empty', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), limits, script, fc.boolean(), async (s, l, calls, closeMidway) => {
        const ops: Op[] = closeMidway ? [...calls, { kind: 'close' }] : calls;
        const clock = new VirtualClock();
        const pool = new PoolBulkhead('p', { ...l, clock });
        const violations: string[] = [];
        let running = 0;
        let permitted = 0;
        let finished = 0;
        pool.on('callPermitted', () => {
          permitted++;
          if (pool.metrics.activeCount > l.maxThreadPoolSize) violations.push(`${pool.metrics.activeCount} active`);
        });
        pool.on('callFinished', () => finished++);
        const controllers: AbortController[] = [];
        const outcomes: Promise<string>[] = [];
        let closing: Promise<void> | undefined;
        for (const op of ops) {
          void s.schedule(Promise.resolve(op.kind)).then(() => {
            if (op.kind === 'abort') {
              if (controllers.length > 0) controllers[Math.max(0, controllers.length - 1 - op.target)]!.abort('abort');
              return;
            }
            if (op.kind === 'close') {
              closing ??= pool.close();
              return;
            }
            const ac = op.abortable ? new AbortController() : undefined;
            if (ac !== undefined) controllers.push(ac);
            const before = pool.metrics;
            const expected = pool.closed ? 'reject' : admit(before.activeCount, before.queueDepth, l);
            if (expected === 'queue') seen.queued++;
            let calls = 0;
            const call = pool.execute(
              scheduledWork(
                s,
                op.outcome,
                () => {
                  if (++calls > 1) violations.push('fn called twice');
                  running++;
                  if (running > l.maxThreadPoolSize) violations.push(`${running} running`);
                },
                () => running--,
              ),
              ac === undefined ? undefined : { signal: ac.signal },
            );
            const after = pool.metrics;
            // The decision is visible at once: a run starts now, a queued call waits, a refusal changes nothing.
            if (expected === 'run' && after.activeCount !== before.activeCount + 1) violations.push('admitted to run but not running');
            if (expected === 'queue' && after.queueDepth !== before.queueDepth + 1) violations.push('admitted to queue but not queued');
            if (expected === 'reject' && (after.activeCount !== before.activeCount || after.queueDepth !== before.queueDepth))
              violations.push('refused but admitted');
            if (after.queueDepth > l.queueCapacity) violations.push(`${after.queueDepth} queued`);
            outcomes.push(
              call.then(
                () => (expected === 'reject' ? 'wrongly-admitted' : 'done'),
                (e: unknown) => {
                  if (e instanceof BulkheadFullError) return expected === 'reject' || pool.closed ? 'rejected' : 'wrongly-rejected';
                  return e === 'abort' ? 'aborted' : 'done';
                },
              ),
            );
          });
        }
        await settleAll(s, clock);
        const results = await Promise.all(outcomes);
        await pool.close();
        if (closing !== undefined) await closing;
        expect(violations).toEqual([]);
        expect(results.filter((r) => r.startsWith('wrongly'))).toEqual([]);
        expect(running).toBe(0);
        expect(permitted).toBe(finished);
        expect(pool.metrics).toMatchObject({ activeCount: 0, queueDepth: 0, remainingQueueCapacity: l.queueCapacity });
        for (const ac of controllers) expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
        seen.aborted += results.filter((r) => r === 'aborted').length;
        seen.rejected += results.filter((r) => r === 'rejected').length;
      }),
      { numRuns: 200 },
    );
    expect(seen.queued).toBeGreaterThan(50);
    expect(seen.aborted).toBeGreaterThan(10);
    expect(seen.rejected).toBeGreaterThan(20);
  });
});
