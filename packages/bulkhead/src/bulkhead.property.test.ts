import { getEventListeners } from 'node:events';
import { BulkheadFullError, VirtualClock } from '@breakwater/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Bulkhead } from './bulkhead.js';
import { scheduledWork, settleAll } from '../test/test-support.js';

type Op =
  | { readonly kind: 'call'; readonly outcome: 'ok' | 'fail' | 'throw'; readonly abortable: boolean }
  | { readonly kind: 'abort'; readonly target: number }
  | { readonly kind: 'tick'; readonly ms: number }
  | { readonly kind: 'resize'; readonly max: number };

const script: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('call' as const),
        outcome: fc.constantFrom('ok' as const, 'fail' as const, 'throw' as const),
        abortable: fc.boolean(),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('abort' as const), target: fc.nat({ max: 4 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 15 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('resize' as const), max: fc.integer({ min: 0, max: 4 }) }) },
  ),
  { minLength: 5, maxLength: 40 },
);

describe('Bulkhead under any interleaving of calls, completions, failures, aborts, time and resizes (fc.scheduler)', () => {
  const seen = { aborted: 0, rejected: 0 };

  it('never exceeds its limit, never loses or duplicates a permit, and ends with every permit back', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom(0, 5, 20, Infinity),
        fc.boolean(),
        script,
        async (s, max, maxWaitDuration, fairCallHandlingEnabled, ops) => {
          const clock = new VirtualClock();
          const b = new Bulkhead('p', { maxConcurrentCalls: max, maxWaitDuration, fairCallHandlingEnabled, clock });
          const violations: string[] = [];
          let held = 0; // permits taken and not given back, as the events tell it
          let permitted = 0;
          let finished = 0;
          let running = 0; // fns between their start and their settling
          let fnCalls = 0;
          // A call admitted at once publishes `callPermitted` inside `execute`, under the limit in
          // force; a waiter publishes it in its own continuation, after the hand-over, by when a
          // resize may have shrunk the limit: its permit is checked against the largest limit set.
          let admitting = false;
          let largestLimit = max;
          b.on('callPermitted', () => {
            permitted++;
            held++;
            const limit = admitting ? b.config.maxConcurrentCalls : largestLimit;
            if (held > limit) violations.push(`${held} permits held with a limit of ${limit}`);
          });
          b.on('callFinished', () => {
            finished++;
            held--;
            if (held < 0) violations.push('a permit was given back twice');
          });
          const controllers: AbortController[] = [];
          const outcomes: Promise<string>[] = [];
          for (const op of ops) {
            void s.schedule(Promise.resolve(op.kind)).then(() => {
              switch (op.kind) {
                case 'call': {
                  const ac = op.abortable ? new AbortController() : undefined;
                  if (ac !== undefined) controllers.push(ac);
                  let calls = 0;
                  admitting = true;
                  const call = b.execute(
                    scheduledWork(
                      s,
                      op.outcome,
                      () => {
                        fnCalls++;
                        if (++calls > 1) violations.push('fn called twice');
                        running++;
                        if (running > held) violations.push(`${running} running with ${held} permits held`);
                      },
                      () => running--,
                    ),
                    ac === undefined ? undefined : { signal: ac.signal },
                  );
                  admitting = false;
                  outcomes.push(
                    call.then(
                      () => 'done',
                      (e: unknown) => (e instanceof BulkheadFullError ? 'rejected' : e === 'abort' ? 'aborted' : 'done'),
                    ),
                  );
                  break;
                }
                case 'abort':
                  if (controllers.length > 0) controllers[Math.max(0, controllers.length - 1 - op.target)]!.abort('abort');
                  break;
                case 'tick':
                  clock.set(clock.now() + op.ms);
                  break;
                case 'resize':
                  b.changeConfig({ maxConcurrentCalls: op.max });
                  largestLimit = Math.max(largestLimit, op.max);
                  break;
              }
            });
          }
          await settleAll(s, clock);
          // Waiters left with nobody to free a slot (a bulkhead shrunk to 0) time out; then grow it
          // back so that any waiter with no time limit gets in, and finish what they start.
          b.changeConfig({ maxConcurrentCalls: max });
          await settleAll(s, clock);
          const results = await Promise.all(outcomes);
          expect(violations).toEqual([]);
          expect(results).toHaveLength(ops.filter((o) => o.kind === 'call').length);
          expect(running).toBe(0);
          expect(held).toBe(0);
          expect(permitted).toBe(finished);
          // Every permitted call ran fn once, except one aborted in the instant between its grant and its start.
          expect(fnCalls).toBeLessThanOrEqual(permitted);
          expect(b.metrics).toEqual({ availableConcurrentCalls: max, maxAllowedConcurrentCalls: max, waitingCalls: 0 });
          expect(clock.pendingTimers).toBe(0);
          for (const ac of controllers) expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
          seen.aborted += results.filter((r) => r === 'aborted').length;
          seen.rejected += results.filter((r) => r === 'rejected').length;
        },
      ),
      { numRuns: 200 },
    );
    // The runs did reach the interesting paths.
    expect(seen.aborted).toBeGreaterThan(8);
    expect(seen.rejected).toBeGreaterThan(20);
  });
});
