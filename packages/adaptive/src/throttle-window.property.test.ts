import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { THROTTLE_BUCKETS, ThrottleWindow } from './throttle-window.js';

// The bucketed window against a brute-force model: every event kept with its time, and the window
// read as "the events whose bucket is one of the last 20 as of now".

type Event = { readonly kind: 'request' | 'accept' | 'reject' | 'uncount'; readonly dt: number; readonly pick: number };

const events: fc.Arbitrary<Event[]> = fc.array(
  fc.record({
    kind: fc.constantFrom('request' as const, 'request' as const, 'accept' as const, 'reject' as const, 'uncount' as const),
    dt: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 400 })),
    pick: fc.nat(),
  }),
  { maxLength: 120 },
);

describe('ThrottleWindow against a model (fast-check)', () => {
  it('counts requests, accepts and local rejections over the last 20 buckets, and its ratio is the formula over them', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(100, 200, 2000),
        fc.integer({ min: 0, max: 1000 }),
        fc.constantFrom(1, 1.5, 2, 3),
        fc.constantFrom(0, 0.5, 0.9, 1),
        events,
        (windowMs, origin, k, cap, script) => {
          const w = new ThrottleWindow(windowMs, origin);
          const bucketMs = windowMs / THROTTLE_BUCKETS;
          const bucketOf = (t: number) => Math.floor((t - origin) / bucketMs);
          const log: { kind: 'request' | 'accept' | 'reject'; bucket: number; taken: boolean }[] = [];
          const requestBuckets: { bucket: number; index: number }[] = [];
          let now = origin;
          for (const e of script) {
            now += e.dt;
            const current = bucketOf(now);
            switch (e.kind) {
              case 'request': {
                w.advance(now);
                const index = w.countRequest();
                expect(index).toBe(current);
                log.push({ kind: 'request', bucket: current, taken: false });
                requestBuckets.push({ bucket: current, index: log.length - 1 });
                break;
              }
              case 'reject':
                if (log.length === 0 || log[log.length - 1]!.kind !== 'request') break; // a rejection follows its request
                w.advance(now);
                if (bucketOf(now) !== log[log.length - 1]!.bucket) break; // in the throttle both happen at one instant
                w.countRejected();
                log.push({ kind: 'reject', bucket: current, taken: false });
                break;
              case 'accept': {
                // The accept of a request still open (it ends once: it can no longer be taken back), in its request's bucket.
                if (requestBuckets.length === 0) break;
                const [r] = requestBuckets.splice(e.pick % requestBuckets.length, 1);
                if (e.dt % 2 === 0) w.advance(now); // with the window moved to now first, or not: the same counts
                w.countAccept(r!.bucket);
                log.push({ kind: 'accept', bucket: r!.bucket, taken: false });
                break;
              }
              case 'uncount': {
                if (requestBuckets.length === 0) break;
                const [r] = requestBuckets.splice(e.pick % requestBuckets.length, 1);
                w.uncount(r!.bucket, now);
                if (r!.bucket > current - THROTTLE_BUCKETS) log[r!.index]!.taken = true;
                break;
              }
            }
            w.advance(now);
            const inWindow = log.filter((x) => !x.taken && x.bucket > current - THROTTLE_BUCKETS);
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
    for (const t of [0, 99, 100]) {
      w.advance(t);
      w.countRequest();
    }
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
