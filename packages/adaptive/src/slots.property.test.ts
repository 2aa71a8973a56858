import { VirtualClock } from '@breakwater/core';
import { NEVER_ABORTED } from '@breakwater/core/internal';
import { flush } from '@breakwater/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { guaranteedSlots } from './partitions.js';
import { Slots } from './slots.js';

// The slots against a brute-force model: every admission, every hand-over (which waiter gets a
// freed slot), every abort and limit change, step by step.

type Op =
  | { readonly kind: 'arrive'; readonly lane: number; readonly abortable: boolean }
  | { readonly kind: 'free'; readonly pick: number }
  | { readonly kind: 'abort'; readonly pick: number }
  | { readonly kind: 'limit'; readonly limit: number };

const ops = (lanes: number): fc.Arbitrary<Op[]> =>
  fc.array(
    fc.oneof(
      { weight: 5, arbitrary: fc.record({ kind: fc.constant('arrive' as const), lane: fc.nat({ max: lanes - 1 }), abortable: fc.boolean() }) },
      { weight: 4, arbitrary: fc.record({ kind: fc.constant('free' as const), pick: fc.nat() }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('abort' as const), pick: fc.nat() }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('limit' as const), limit: fc.integer({ min: 1, max: 8 }) }) },
    ),
    { maxLength: 60 },
  );

/** The model: the same rule written as plainly as possible, over arrays. */
class Model {
  inFlight = 0;
  readonly busy: number[];
  /** Waiters in arrival order. */
  waiters: { id: number; lane: number }[] = [];
  readonly granted: number[] = [];

  constructor(
    public limit: number,
    readonly shares: readonly number[],
    readonly lifo: boolean,
  ) {
    this.busy = new Array<number>(shares.length + 1).fill(0);
  }

  tryTake(lane: number): boolean {
    if (this.inFlight >= this.limit || this.waiters.length > 0) return false;
    this.inFlight++;
    this.busy[lane]!++;
    return true;
  }

  free(lane: number): void {
    this.inFlight--;
    this.busy[lane]!--;
    this.handOver();
  }

  handOver(): void {
    while (this.waiters.length > 0 && this.inFlight < this.limit) {
      const owed = this.waiters.filter((w) => w.lane < this.shares.length && this.busy[w.lane]! < guaranteedSlots(this.limit, this.shares[w.lane]!));
      const pool = owed.length > 0 ? owed : this.waiters;
      const next = this.lifo ? pool[pool.length - 1]! : pool[0]!;
      this.waiters = this.waiters.filter((w) => w !== next);
      this.inFlight++;
      this.busy[next.lane]!++;
      this.granted.push(next.id);
    }
  }
}

const sharesOf = fc.oneof(fc.constant<number[]>([]), fc.constant([0.7, 0.3]), fc.constant([0.5, 0.25]), fc.constant([0.2, 0.2, 0.2]), fc.constant([1]));

describe('Slots against a model (fast-check)', () => {
  it('admit, hand over, abort and change the limit exactly as the model, and never hold more than the limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        sharesOf.chain((shares) => fc.tuple(fc.constant(shares), fc.integer({ min: 1, max: 6 }), fc.boolean(), ops(shares.length + 1))),
        async ([shares, limit, lifo, script]) => {
          const clock = new VirtualClock();
          const slots = new Slots({ limit, shares, lifo, clock, refused: () => new Error('no wait limit here') });
          const model = new Model(limit, shares, lifo);
          const granted: number[] = [];
          /** Calls holding a slot (id, lane), in both. */
          const holders: { id: number; lane: number }[] = [];
          const controllers = new Map<number, AbortController>();
          let id = 0;
          for (const op of script) {
            const before = slots.inFlight;
            switch (op.kind) {
              case 'arrive': {
                const me = id++;
                const taken = slots.tryTake(op.lane);
                expect(taken).toBe(model.tryTake(op.lane));
                if (taken) {
                  holders.push({ id: me, lane: op.lane });
                  break;
                }
                const ac = op.abortable ? new AbortController() : undefined;
                if (ac !== undefined) controllers.set(me, ac);
                model.waiters.push({ id: me, lane: op.lane });
                slots.wait(op.lane, ac?.signal ?? NEVER_ABORTED, Infinity).then(
                  () => {
                    granted.push(me);
                    holders.push({ id: me, lane: op.lane });
                  },
                  () => {},
                );
                break;
              }
              case 'free': {
                if (holders.length === 0) break;
                const [holder] = holders.splice(op.pick % holders.length, 1);
                slots.free(holder!.lane);
                model.free(holder!.lane);
                break;
              }
              case 'abort': {
                const waiting = model.waiters.filter((w) => controllers.has(w.id));
                if (waiting.length === 0) break;
                const target = waiting[op.pick % waiting.length]!;
                controllers.get(target.id)!.abort('abort');
                model.waiters = model.waiters.filter((w) => w !== target);
                break;
              }
              case 'limit':
                slots.setLimit(op.limit);
                slots.handOver();
                model.limit = op.limit;
                model.handOver();
                break;
            }
            await flush();
            // A slot is only ever taken below the limit: inFlight grows only up to it.
            if (slots.inFlight > before) expect(slots.inFlight).toBeLessThanOrEqual(slots.limit);
            expect(granted).toEqual(model.granted);
            expect(slots.inFlight).toBe(model.inFlight);
            expect(slots.waiting).toBe(model.waiters.length);
            for (let lane = 0; lane <= shares.length; lane++) {
              expect(slots.busy(lane)).toBe(model.busy[lane]);
              expect(slots.waitingIn(lane)).toBe(model.waiters.filter((w) => w.lane === lane).length);
            }
          }
          // Drain: free every holder; with the limit >= 1 every waiter gets in and leaves.
          while (holders.length > 0) {
            slots.free(holders.shift()!.lane);
            await flush();
          }
          expect(slots.inFlight).toBe(0);
          expect(slots.waiting).toBe(0);
          expect(clock.pendingTimers).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });
});
