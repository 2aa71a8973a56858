import { getEventListeners } from 'node:events';
import { RequestNotPermittedError, VirtualClock } from '@breakwater/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limiter.js';

type Op =
  | { readonly kind: 'call'; readonly abortable: boolean; readonly fails: boolean }
  | { readonly kind: 'abort'; readonly target: number }
  | { readonly kind: 'tick'; readonly ms: number }
  | { readonly kind: 'drain' }
  | { readonly kind: 'timeout'; readonly ms: number };

const ops = (period: number): fc.Arbitrary<Op[]> =>
  fc.array(
    fc.oneof(
      { weight: 6, arbitrary: fc.record({ kind: fc.constant('call' as const), abortable: fc.boolean(), fails: fc.boolean() }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('abort' as const), target: fc.nat({ max: 3 }) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: period }) }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'drain' as const }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('timeout' as const), ms: fc.integer({ min: 0, max: 5 * period }) }) },
    ),
    { minLength: 10, maxLength: 40 },
  );

describe('RateLimiter under any interleaving (fc.scheduler)', () => {
  const stats = { waited: 0, aborted: 0 };
  it('never lets more than limitForPeriod calls start in one cycle, waits exactly to a cycle start, and leaves nothing behind', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 1, max: 3 }),
        fc
          .integer({ min: 1, max: 20 })
          .chain((period) => fc.tuple(fc.constant(period), fc.oneof(fc.constant(0), fc.integer({ min: period, max: 6 * period })), ops(period))),
        async (s, limit, [period, timeout, script]) => {
          const clock = new VirtualClock();
          const rl = new RateLimiter('p', { limitForPeriod: limit, limitRefreshPeriod: period, timeoutDuration: timeout, clock });
          const controllers: AbortController[] = [];
          const signals: AbortSignal[] = [];
          const starts = new Map<number, number>();
          const settled: Promise<unknown>[] = [];
          const violations: string[] = [];
          // A permit is granted when the limiter says so: at once, or when the wait ends (at a
          // cycle start). fn itself may run later, after a clock jump.
          rl.on('successfulAcquire', (e) => {
            const cycle = Math.floor(e.at / period);
            if (e.waitMs > 0) {
              waited++;
              if (e.at !== cycle * period) violations.push(`granted at ${e.at}, not at a cycle start`);
            }
            starts.set(cycle, (starts.get(cycle) ?? 0) + e.permits);
            if (starts.get(cycle)! > limit) violations.push(`${starts.get(cycle)} permits granted in cycle ${cycle}`);
          });
          let waited = 0;
          let refused = 0;
          let aborted = 0;
          let done = 0;
          for (const op of script) {
            void s.schedule(Promise.resolve(op.kind)).then(() => {
              switch (op.kind) {
                case 'call': {
                  const ac = op.abortable ? new AbortController() : undefined;
                  if (ac !== undefined) {
                    controllers.push(ac);
                    signals.push(ac.signal);
                  }
                  const call = rl.execute(
                    () => {
                      return s.schedule(Promise.resolve('done')).then(() => {
                        if (op.fails) throw new Error('backend');
                        return 'ok';
                      });
                    },
                    ac === undefined ? undefined : { signal: ac.signal },
                  );
                  settled.push(
                    call.then(
                      () => done++,
                      (e: unknown) => {
                        if (e instanceof RequestNotPermittedError) {
                          expect(e.waitMs).toBeGreaterThan(0);
                          refused++;
                        } else if (e === 'aborted') aborted++;
                        else done++;
                      },
                    ),
                  );
                  break;
                }
                case 'abort':
                  if (controllers.length > 0) controllers[Math.max(0, controllers.length - 1 - op.target)]!.abort('aborted');
                  break;
                case 'tick':
                  clock.set(clock.now() + op.ms);
                  break;
                case 'drain':
                  rl.drainPermissions();
                  break;
                case 'timeout':
                  rl.changeTimeoutDuration(op.ms);
                  break;
              }
            });
          }
          await s.waitAll();
          // Let every waiter that is left reach its cycle, then finish what it started.
          while (clock.pendingTimers > 0 || s.count() > 0) {
            await clock.runAll();
            await s.waitAll();
          }
          await Promise.all(settled);
          expect(violations).toEqual([]);
          stats.waited += waited;
          stats.aborted += aborted;
          const calls = script.filter((o) => o.kind === 'call').length;
          expect(refused + aborted + done).toBe(calls);
          expect(rl.metrics.numberOfWaitingCalls).toBe(0);
          expect(clock.pendingTimers).toBe(0);
          for (const signal of signals) expect(getEventListeners(signal, 'abort')).toHaveLength(0);
          // Every permit handed out or handed back is accounted for: once idle for a cycle, the
          // limiter is full again.
          clock.set(clock.now() + 10 * period);
          expect(rl.metrics.availablePermissions).toBe(limit);
        },
      ),
      { numRuns: 150 },
    );
    // The runs did exercise waiting and aborted waiters.
    expect(stats.waited).toBeGreaterThan(100);
    expect(stats.aborted).toBeGreaterThan(20);
  });
});
