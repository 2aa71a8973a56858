import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Frame } from './frame.js';
import { FrameQueue } from './frame-queue.js';

// The gates' and the backend's queue against an array that removes for real: the same frames,
// taken in the same order, whatever leaves in between (compaction included: runs past 1 024 frames).
type Op = { kind: 'add' } | { kind: 'remove'; pick: number } | { kind: 'oldest' } | { kind: 'newest' };
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'add' as const }) },
  { weight: 2, arbitrary: fc.nat().map((pick) => ({ kind: 'remove' as const, pick })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'oldest' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'newest' as const }) },
);

describe('FrameQueue (property)', () => {
  it('takes oldest and newest as an array model does, with frames leaving anywhere', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3000 }), (ops) => {
        const queue = new FrameQueue();
        const model: Frame[] = [];
        for (const o of ops) {
          if (o.kind === 'add') {
            const frame = new Frame(0, null, null);
            queue.add(frame);
            model.push(frame);
          } else if (model.length === 0) {
            continue;
          } else if (o.kind === 'remove') {
            const [frame] = model.splice(o.pick % model.length, 1);
            queue.remove(frame!);
            queue.remove(frame!); // a second leave is nothing
            expect(frame!.queued).toBe(false);
          } else {
            const expected = o.kind === 'oldest' ? model.shift()! : model.pop()!;
            expect(o.kind === 'oldest' ? queue.takeOldest() : queue.takeNewest()).toBe(expected);
            expect(expected.queued).toBe(false);
          }
          expect(queue.size).toBe(model.length);
        }
        while (model.length > 0) expect(queue.takeOldest()).toBe(model.shift());
      }),
      { numRuns: 60 },
    );
  });

  it('keeps its order when it compacts its array (past 1 024 frames taken)', () => {
    const queue = new FrameQueue();
    const frames = Array.from({ length: 3000 }, () => new Frame(0, null, null));
    for (const frame of frames) queue.add(frame);
    for (let i = 1; i < 3000; i += 3) queue.remove(frames[i]!); // every third leaves
    const left = frames.filter((_, i) => i % 3 !== 1);
    for (let i = 0; i < 1500; i++) expect(queue.takeOldest()).toBe(left[i]);
    expect(queue.takeNewest()).toBe(left.at(-1));
    for (let i = 1500; i < left.length - 1; i++) expect(queue.takeOldest()).toBe(left[i]);
    expect(queue.size).toBe(0);
  });
});
