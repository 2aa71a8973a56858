import { getEventListeners } from 'node:events';
import { RequestNotPermittedError, TimeoutError, VirtualClock } from '@breakwater/core';
import { flush } from '@breakwater/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AdaptiveLimiter, type LimitAlgorithm } from './index.js';

// The limiter under any interleaving (fc.scheduler) of calls in any partition, their outcomes,
// aborts, time, and limit changes (a scripted algorithm moves the limit on every sample): a call
// is only ever admitted below the limit — `inFlight <= limit` at every admission, partitions
// included (Netflix #234 is a race where the partitioned limiter goes above it) — and everything
// taken is given back.

type Op =
  | { readonly kind: 'call'; readonly partition: string | undefined; readonly outcome: 'ok' | 'drop' | 'fail' | 'throw'; readonly abortable: boolean }
  | { readonly kind: 'token'; readonly partition: string | undefined; readonly end: 'success' | 'drop' | 'ignore' }
  | { readonly kind: 'abort'; readonly target: number }
  | { readonly kind: 'tick'; readonly ms: number };

const partition = fc.constantFrom(undefined, 'critical', 'batch');
const script: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('call' as const),
        partition,
        outcome: fc.constantFrom('ok' as const, 'drop' as const, 'fail' as const, 'throw' as const),
        abortable: fc.boolean(),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('token' as const), partition, end: fc.constantFrom('success' as const, 'drop' as const, 'ignore' as const) }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('abort' as const), target: fc.nat({ max: 4 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 15 }) }) },
  ),
  { minLength: 5, maxLength: 40 },
);

/** An algorithm that answers each sample with the next of `limits` (cycling). */
function scripted(limits: readonly number[]): LimitAlgorithm {
  let i = 0;
  let limit = limits[0]!;
  return {
    name: 'scripted',
    get limit() {
      return limit;
    },
    onSample: () => {
      limit = limits[++i % limits.length]!;
      return limit;
    },
  };
}

/** Releases scheduled tasks and fires timers until neither is left. */
async function settle(s: fc.Scheduler, clock: VirtualClock): Promise<void> {
  for (let round = 0; s.count() > 0 || clock.pendingTimers > 0; round++) {
    if (round > 2000) throw new Error(`still busy: ${s.count()} scheduled, ${clock.pendingTimers} timers`);
    if (s.count() > 0) await s.waitAll();
    else await clock.runAll();
    await flush();
  }
}

describe('AdaptiveLimiter under any interleaving (fc.scheduler)', () => {
  const seen = { rejected: 0, aborted: 0, changes: 0 };

  it('admits only below the limit (partitions included, the limit moving), and gives every slot back', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(0, 5, 20, Infinity),
        fc.constantFrom('fifo' as const, 'lifo' as const),
        fc.boolean(),
        script,
        async (s, limits, maxWaitDuration, queue, partitioned, ops) => {
          const clock = new VirtualClock();
          const l = new AdaptiveLimiter('p', {
            clock,
            algorithm: scripted(limits),
            window: false,
            maxWaitDuration,
            queue,
            maxQueue: 6,
            isDrop: (e) => e === 'drop',
            ...(partitioned ? { partitions: { critical: 0.6, batch: 0.4 } } : {}),
          });
          const violations: string[] = [];
          let running = 0;
          let permitted = 0;
          let finished = 0;
          // A call admitted at once publishes `callPermitted` inside `execute` / `tryAcquire`, under the
          // limit in force; a waiter publishes it in its own continuation, after the hand-over, by when
          // the limit may have moved down: its admission is checked against the largest limit (the
          // hand-over itself against the limit in force: slots.property.test.ts).
          let admitting = false;
          const largestLimit = Math.max(...limits);
          l.on('callPermitted', () => {
            permitted++;
            const limit = admitting ? l.limit : largestLimit;
            if (l.inFlight > limit) violations.push(`admitted to ${l.inFlight} in flight with a limit of ${limit}`);
          });
          l.on('callFinished', () => finished++);
          l.on('limitChanged', () => seen.changes++);
          const controllers: AbortController[] = [];
          const outcomes: Promise<string>[] = [];
          for (const op of ops) {
            const p = partitioned && (op.kind === 'call' || op.kind === 'token') ? op.partition : undefined;
            void s.schedule(Promise.resolve(op.kind)).then(() => {
              switch (op.kind) {
                case 'call': {
                  const ac = op.abortable ? new AbortController() : undefined;
                  if (ac !== undefined) controllers.push(ac);
                  const fn = () => {
                    running++;
                    if (running > l.inFlight) violations.push(`${running} running with ${l.inFlight} in flight`);
                    if (op.outcome === 'throw') {
                      running--;
                      throw new TimeoutError('inner', 1);
                    }
                    return s.schedule(Promise.resolve(op.outcome)).then((o) => {
                      running--;
                      if (o === 'drop') throw 'drop';
                      if (o === 'fail') throw new Error('fail');
                      return o;
                    });
                  };
                  const options = ac === undefined && p === undefined ? undefined : { signal: ac?.signal, partition: p };
                  admitting = true;
                  const call = l.execute(fn, options);
                  admitting = false;
                  outcomes.push(
                    call.then(
                      () => 'done',
                      (e: unknown) => (e instanceof RequestNotPermittedError ? 'rejected' : e === 'abort' ? 'aborted' : 'done'),
                    ),
                  );
                  break;
                }
                case 'token': {
                  admitting = true;
                  const token = l.tryAcquire(p === undefined ? undefined : { partition: p });
                  admitting = false;
                  if (token === null) break;
                  void s.schedule(Promise.resolve(op.end)).then((end) => {
                    if (end === 'success') token.onSuccess();
                    else if (end === 'drop') token.onDropped();
                    else token.onIgnore();
                  });
                  break;
                }
                case 'abort':
                  if (controllers.length > 0) controllers[Math.max(0, controllers.length - 1 - op.target)]!.abort('abort');
                  break;
                case 'tick':
                  clock.set(clock.now() + op.ms);
                  break;
              }
            });
          }
          await settle(s, clock);
          const results = await Promise.all(outcomes);
          expect(violations).toEqual([]);
          expect(running).toBe(0);
          expect(l.inFlight).toBe(0);
          expect(l.metrics.waiting).toBe(0);
          expect(permitted).toBe(finished);
          expect(clock.pendingTimers).toBe(0);
          for (const ac of controllers) expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
          seen.rejected += results.filter((r) => r === 'rejected').length;
          seen.aborted += results.filter((r) => r === 'aborted').length;
        },
      ),
      { numRuns: 250 },
    );
    // The runs did reach the interesting paths.
    expect(seen.rejected).toBeGreaterThan(20);
    expect(seen.aborted).toBeGreaterThan(8);
    expect(seen.changes).toBeGreaterThan(50);
  });
});
