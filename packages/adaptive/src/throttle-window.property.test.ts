import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { THROTTLE_BUCKETS, ThrottleWindow } from './throttle-window.js';

// The bucketed window against a brute-force model: every event kept with its time, and the window
// read as "the events whose bucket is one of the last 20 as of now".

type Event = { readonly kind: 'open' | 'answer' | 'refuse' | 'ignore'; readonly dt: number; readonly pick: number };

const events: fc.Arbitrary<Event[]> = fc.array(
  fc.record({
    kind: fc.constantFrom('open' as const, 'open' as const, 'answer' as const, 'answer' as const, 'refuse' as const, 'ignore' as const),
    dt: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 400 })),
    pick: fc.nat(),
  }),
  { maxLength: 120 },
);

describe('ThrottleWindow against a model (fast-check)', () => {
  it('counts answered requests (with their accepts) in their own start bucket and local rejections at once, over the last 20 buckets; requests in flight or ignored are not counted; its ratio is the formula over them', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(100, 200, 2000),
        fc.integer({ min: 0, max: 1000 }),
        fc.constantFrom(1, 1.5, 2, 3),
        fc.constantFrom(0, 0.5, 0.9, 1),
        events,
        (windowMs, origin, k, cap, script) => {
          const w = new ThrottleWindow(windowMs, origin);
          const bucketOf = (t: number) => Math.floor((t - origin) / (windowMs / THROTTLE_BUCKETS));
          // The model: every count kept with the bucket it belongs to.
          const log: { kind: 'request' | 'accept' | 'reject'; bucket: number }[] = [];
          const open: number[] = []; // the start buckets of the requests in flight
          let now = origin;
          for (const e of script) {
            now += e.dt;
            const current = bucketOf(now);
            switch (e.kind) {
              case 'open':
                expect(w.advance(now)).toBe(current); // a request let through: its bucket, nothing counted
                open.push(current);
                break;
              case 'refuse':
                w.advance(now);
                w.countRefused();
                log.push({ kind: 'request', bucket: current }, { kind: 'reject', bucket: current });
                break;
              case 'answer': {
                // The answer of a request in flight (it ends once), in its request's bucket; accepted or not.
                if (open.length === 0) break;
                const [bucket] = open.splice(e.pick % open.length, 1);
                const accepted = e.pick % 3 !== 0;
                if (e.dt % 2 === 0) w.advance(now); // with the window moved to now first, or not: the same counts
                w.countAnswered(bucket!, accepted);
                log.push({ kind: 'request', bucket: bucket! });
                if (accepted) log.push({ kind: 'accept', bucket: bucket! });
                break;
              }
              case 'ignore':
                if (open.length > 0) open.splice(e.pick % open.length, 1); // never counted
                break;
            }
            w.advance(now);
            const inWindow = log.filter((x) => x.bucket > current - THROTTLE_BUCKETS);
            const requests = inWindow.filter((x) => x.kind === 'request').length;
            const accepts = inWindow.filter((x) => x.kind === 'accept').length;
            expect(w.requests).toBe(requests);
            expect(w.accepts).toBe(accepts);
            expect(w.rejected).toBe(inWindow.filter((x) => x.kind === 'reject').length);
            expect(w.ratio(k, cap)).toBe(Math.min(cap, Math.max(0, (requests - k * accepts) / (requests + 1))));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('is exact at the edges of a bucket: a count leaves the window 20 buckets after its own began', () => {
    const w = new ThrottleWindow(2000, 0); // buckets of 100 ms
    for (const t of [0, 99, 100]) w.countAnswered(w.advance(t), false);
    w.advance(1999);
    expect(w.requests).toBe(3);
    w.advance(2000); // bucket 20: bucket 0 (0–99 ms) leaves
    expect(w.requests).toBe(1);
    w.advance(2099);
    expect(w.requests).toBe(1);
    w.advance(2100);
    expect(w.requests).toBe(0);
  });
});
