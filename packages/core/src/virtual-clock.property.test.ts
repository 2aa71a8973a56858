import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TimerHandle } from './clock.js';
import { VirtualClock } from './virtual-clock.js';

/**
 * The reference: a plain list of timers; to move time, repeatedly take the pending timer with the
 * smallest (due, order set) that is due by the target, fire it at its time, add the timers it sets.
 */
class ListModel {
  now = 0;
  readonly timers: { id: number; due: number; seq: number; children: readonly number[]; pending: boolean }[] = [];
  readonly fired: [id: number, at: number][] = [];
  #seq = 0;

  set(delay: number, children: readonly number[]): number {
    const id = this.timers.length;
    this.timers.push({ id, due: this.now + Math.max(delay, 0), seq: this.#seq++, children, pending: true });
    return id;
  }

  clear(id: number): void {
    const t = this.timers[id];
    if (t !== undefined) t.pending = false;
  }

  moveTo(target: number): void {
    for (;;) {
      const due = this.timers.filter((t) => t.pending && t.due <= target).sort((a, b) => a.due - b.due || a.seq - b.seq);
      const next = due[0];
      if (next === undefined) break;
      next.pending = false;
      this.now = Math.max(this.now, next.due);
      this.fired.push([next.id, this.now]);
      for (const d of next.children) this.set(d, []);
    }
    this.now = target;
  }

  runAll(): void {
    for (let p = this.timers.filter((t) => t.pending); p.length > 0; p = this.timers.filter((t) => t.pending)) {
      this.moveTo(Math.max(this.now, Math.min(...p.map((t) => t.due))));
    }
  }

  get pending(): number {
    return this.timers.filter((t) => t.pending).length;
  }
}

const delay = fc.oneof(fc.integer({ min: -5, max: 60 }), fc.constantFrom(0.5, 12.25, 30.125));
const op = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('set' as const), delay, children: fc.array(delay, { maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('clear' as const), pick: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      by: fc.oneof(fc.integer({ min: 0, max: 70 }), fc.constant(0.75)),
      via: fc.constantFrom('advance' as const, 'advanceTo' as const, 'set' as const),
    }),
  },
);

describe('VirtualClock against a sorted-list model', () => {
  it('fires the same timers, in the same order, at the same times, and leaves the same ones pending', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const clock = new VirtualClock();
        const model = new ListModel();
        const fired: [id: number, at: number][] = [];
        const handles: TimerHandle[] = [];

        const setReal = (d: number, children: readonly number[]): void => {
          const id = handles.length;
          handles.push(
            clock.setTimeout(() => {
              fired.push([id, clock.now()]);
              for (const c of children) setReal(c, []);
            }, d),
          );
        };

        for (const o of ops) {
          if (o.kind === 'set') {
            setReal(o.delay, o.children);
            model.set(o.delay, o.children);
          } else if (o.kind === 'clear') {
            if (handles.length === 0) continue;
            const id = o.pick % handles.length;
            clock.clearTimeout(handles[id]!);
            model.clear(id);
          } else {
            const target = clock.now() + o.by;
            if (o.via === 'advance') await clock.advance(o.by);
            else if (o.via === 'advanceTo') await clock.advanceTo(target);
            else clock.set(target);
            model.moveTo(target);
          }
          expect(clock.now()).toBe(model.now);
          expect(clock.pendingTimers).toBe(model.pending);
        }
        expect(fired).toEqual(model.fired);

        await clock.runAll();
        model.runAll();
        expect(fired).toEqual(model.fired);
        expect(clock.now()).toBe(model.now);
        expect(clock.pendingTimers).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
