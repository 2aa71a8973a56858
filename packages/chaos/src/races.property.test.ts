import { getEventListeners } from 'node:events';
import { VirtualClock } from '@breakwater/core';
import { ROOT_CONTEXT } from '@breakwater/core/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BehaviorInjection, FaultInjection, LatencyInjection } from './index.js';

// A caller's abort against an injected latency, a behaviour and fn, at any moment (contract:
// docs/chaos.md): before the wait ends the call rejects with the reason and fn is never called;
// while fn runs it rejects at once; after fn settled it changes nothing. No timer, no listener left.

const on = { enabled: true, rate: 1, random: () => 0 } as const;

/** fn taking `ms` on the clock, recording when it was called. */
const slowFn = (clock: VirtualClock, ms: number, calls: number[]) => () => {
  calls.push(clock.now());
  return new Promise<string>((resolve) => clock.setTimeout(() => resolve('real'), ms));
};

describe('a caller’s abort at any moment (fast-check)', () => {
  it('latency: the outcome, whether fn ran, and nothing left behind, as the timeline says', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 0, max: 1200 }),
        async (latency, duration, abortAt) => {
          fc.pre(abortAt !== latency && abortAt !== latency + duration);
          const clock = new VirtualClock();
          const slow = new LatencyInjection('pg', { ...on, latency, clock });
          const ac = new AbortController();
          const calls: number[] = [];
          const outcome = slow.execute(slowFn(clock, duration, calls), { signal: ac.signal }).then(
            (v) => v,
            (e: unknown) => e,
          );
          clock.setTimeout(() => ac.abort('aborted'), abortAt);
          await clock.runAll();
          const result = await outcome;
          if (abortAt < latency) {
            expect(result).toBe('aborted');
            expect(calls).toEqual([]);
          } else if (abortAt < latency + duration) {
            expect(result).toBe('aborted');
            expect(calls).toEqual([latency]);
          } else {
            expect(result).toBe('real');
            expect(calls).toEqual([latency]);
          }
          expect(clock.pendingTimers).toBe(0);
          expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('behaviour: fn is called only when the behaviour ended before the abort', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 0, max: 700 }),
        async (behaves, duration, abortAt) => {
          fc.pre(abortAt !== behaves && abortAt !== behaves + duration);
          const clock = new VirtualClock();
          const behavior = () => new Promise<void>((resolve) => clock.setTimeout(resolve, behaves));
          const monkey = new BehaviorInjection('pg', { ...on, behavior, clock });
          const ac = new AbortController();
          const calls: number[] = [];
          const outcome = monkey.execute(slowFn(clock, duration, calls), { signal: ac.signal }).then(
            (v) => v,
            (e: unknown) => e,
          );
          clock.setTimeout(() => ac.abort('aborted'), abortAt);
          await clock.runAll();
          expect(await outcome).toBe(abortAt < behaves + duration ? 'aborted' : 'real');
          expect(calls).toEqual(abortAt < behaves ? [] : [behaves]);
          expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('hostile functions', () => {
  it('a thenable that calls both handlers, or throws from then, settles the call once', async () => {
    const twoFaced = { then: (resolve: (v: string) => void, reject: (e: unknown) => void) => (resolve('first'), reject(new Error('second'))) };
    const throwing = {
      then: () => {
        throw new Error('then threw');
      },
    };
    for (const enabled of [false, true]) {
      const f = new FaultInjection('pg', { enabled, rate: 0, random: () => 0.5, fault: 1 });
      expect(await f.execute(() => twoFaced as unknown as PromiseLike<string>)).toBe('first');
      await expect(f.execute(() => throwing as unknown as PromiseLike<string>)).rejects.toThrow('then threw');
    }
  });

  it('whatever fn returns is the call’s result, disabled or not: primitives, null, undefined, a function, a plain object', async () => {
    const fnValue = () => 'a function';
    const values: unknown[] = [1, 'text', null, undefined, false, 10n, Symbol.for('s'), fnValue, { then: 1 }];
    for (const enabled of [false, true]) {
      const f = new FaultInjection('pg', { enabled, rate: 0, random: () => 0.5, fault: 1 });
      for (const value of values) expect(await f.execute(() => value)).toBe(value);
    }
  });

  it('the context of decorate() (core’s ROOT_CONTEXT) takes the short path, disabled or not', async () => {
    const seen: unknown[] = [];
    const off = new FaultInjection('pg', { fault: 1 });
    const onAndMissing = new FaultInjection('pg', { enabled: true, rate: 0, random: () => 0.5, fault: 1 });
    expect(await off.execute((ctx) => (seen.push(ctx), 1), ROOT_CONTEXT)).toBe(1);
    expect(await onAndMissing.execute((ctx) => (seen.push(ctx), 2), ROOT_CONTEXT)).toBe(2);
    expect(seen).toEqual([ROOT_CONTEXT, ROOT_CONTEXT]);
    expect(seen[0]).toBe(ROOT_CONTEXT);
    expect(off.metrics.numberOfCallsNotInjected).toBe(1);
  });
});
