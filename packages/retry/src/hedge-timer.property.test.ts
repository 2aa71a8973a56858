import { systemClock, VirtualClock } from '@breakwater/core';
import { keepsProcessAlive } from '@breakwater/core/internal';
import { flush } from '@breakwater/test-support';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type DueCall, HedgeTimer } from './hedge-timer.js';
import { Hedge } from './index.js';
import { manualAttempts } from '../test/hedge-support.js';

// The hedge's one timer for all its calls' delays, held against a model where each call has a
// timer of its own (contract: docs/hedging.md): every call is told at its due time (never early), never
// one that left, and at most one timer is ever pending, none once no call waits.

class Call implements DueCall {
  due = 0;
  prev: DueCall | undefined;
  next: DueCall | undefined;
  queued = false;
  readonly told: number[] = [];
  constructor(
    readonly id: number,
    private readonly clock: VirtualClock,
    private readonly onTold: (call: Call) => void,
  ) {}
  onDue(): void {
    this.told.push(this.clock.now());
    this.onTold(this);
  }
}

type Op =
  | { readonly kind: 'add'; readonly delay: number; readonly again: number }
  | { readonly kind: 'remove'; readonly pick: number }
  | { readonly kind: 'advance'; readonly ms: number };

const ops: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('add' as const),
        delay: fc.oneof(fc.constant(50), fc.integer({ min: 1, max: 100 }), fc.double({ min: 0.1, max: 100, noNaN: true })),
        again: fc.integer({ min: 0, max: 2 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat({ max: 20 }) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 60 }) }) },
  ),
  { maxLength: 60 },
);

describe('HedgeTimer against one timer per call (fast-check)', () => {
  it('tells each linked call exactly at its due time (and again after each re-link), never one removed, on at most one pending timer', async () => {
    await fc.assert(
      fc.asyncProperty(ops, async (script) => {
        const clock = new VirtualClock();
        const timer = new HedgeTimer(clock);
        const calls: Call[] = [];
        /** The model: when each call is due, and how many times more it re-links when told. */
        const expected = new Map<Call, number[]>();
        const relinks = new Map<Call, { delay: number; left: number }>();
        const onTold = (call: Call): void => {
          const r = relinks.get(call)!;
          if (r.left > 0) {
            r.left--;
            const now = clock.now();
            expected.get(call)!.push(now + r.delay);
            timer.add(call, now + r.delay, now);
          }
          expect(clock.pendingTimers).toBeLessThanOrEqual(1);
        };
        for (const op of script) {
          if (op.kind === 'add') {
            const call = new Call(calls.length, clock, onTold);
            calls.push(call);
            const now = clock.now();
            expected.set(call, [now + op.delay]);
            relinks.set(call, { delay: op.delay, left: op.again });
            timer.add(call, now + op.delay, now);
          } else if (op.kind === 'remove') {
            const call = calls[op.pick % Math.max(1, calls.length)];
            if (call !== undefined) {
              if (call.queued) expected.get(call)!.pop();
              relinks.get(call)!.left = 0;
              timer.remove(call);
            }
          } else await clock.advance(op.ms);
          expect(clock.pendingTimers).toBe(calls.some((c) => c.queued) ? 1 : 0);
        }
        for (const call of calls) {
          relinks.get(call)!.left = Math.min(relinks.get(call)!.left, 2);
        }
        await clock.runAll();
        expect(clock.pendingTimers).toBe(0);
        for (const call of calls) {
          // Never early; late only by a rounding of the clock's arithmetic (armed at t for due − t).
          const due = expected.get(call)!;
          expect(call.told).toHaveLength(due.length);
          call.told.forEach((at, i) => {
            expect(at).toBeGreaterThanOrEqual(due[i]!);
            expect(at - due[i]!).toBeLessThanOrEqual(1e-12 * Math.max(1, due[i]!));
          });
          expect(call.queued).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('Hedge: one timer for all its calls', () => {
  it('hedges each of many concurrent calls exactly at its own start + delay, with at most one timer pending', async () => {
    const clock = new VirtualClock();
    const hedge = new Hedge('search', { clock, delay: 100 });
    const { fn, attempts } = manualAttempts(clock, { rejectOnAbort: true });
    for (let i = 0; i < 5; i++) {
      void hedge.execute(fn).catch(() => {});
      expect(clock.pendingTimers).toBe(1);
      await clock.advance(30);
    }
    // t = 150: primaries at 0, 30, 60, 90, 120; the calls of 0 and 30 hedged at 100 and 130
    attempts.find((a) => a.startedAt === 60)!.resolve('answered'); // the call of 60 answers before its delay
    await clock.advance(60); // t = 210: the call of 90 hedged at 190; the call of 120 waits for 220
    expect(attempts.map((a) => [a.ctx.attempt, a.startedAt])).toEqual([
      [1, 0],
      [1, 30],
      [1, 60],
      [1, 90],
      [2, 100],
      [1, 120],
      [2, 130],
      [2, 190],
    ]);
    expect(clock.pendingTimers).toBe(1); // the call of 120, due at 220
    for (const a of attempts) a.resolve('done');
    await clock.advance(0);
    expect(clock.pendingTimers).toBe(0);
    expect(hedge.metrics.numberOfSuccessfulCalls).toBe(5);
  });

  describe('on systemClock', () => {
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('arms one timer for calls one after another, and still hedges a slow one after its delay', async () => {
      const set = vi.spyOn(systemClock, 'setTimeout');
      const patient = new Hedge('patient', { delay: 60_000 }); // systemClock
      for (let i = 0; i < 20; i++) await patient.execute(() => Promise.resolve(i));
      expect(set).toHaveBeenCalledTimes(1); // left armed when the first call ended, for the others
      const hedge = new Hedge('search', { delay: 40 });
      const started: number[] = [];
      const t0 = systemClock.now();
      const value = await hedge.execute(
        (ctx) =>
          new Promise<string>((resolve) => {
            started.push(systemClock.now() - t0);
            if (ctx.attempt === 2) resolve('hedge');
            else ctx.signal.addEventListener('abort', () => resolve('lost'));
          }),
      );
      expect(value).toBe('hedge');
      expect(started).toHaveLength(2);
      expect(started[1]!).toBeGreaterThanOrEqual(40);
    });

    it('keeps the process alive while a call waits for its delay (its caller awaits it), and lets it go after', async () => {
      await flush();
      expect(keepsProcessAlive()).toBe(false);
      const hedge = new Hedge('search', { delay: 30 });
      let started = 0;
      const call = hedge.execute(
        (ctx) =>
          new Promise<string>((resolve) => {
            started++;
            if (ctx.attempt === 2) resolve('hedge');
            else ctx.signal.addEventListener('abort', () => resolve('lost'));
          }),
      );
      expect(keepsProcessAlive()).toBe(true); // nothing else would: the primary holds no handle
      await expect(call).resolves.toBe('hedge');
      expect(started).toBe(2);
      await flush();
      expect(keepsProcessAlive()).toBe(false);
    });
  });
});
