import { getEventListeners } from 'node:events';
import { BulkheadFullError, CallNotPermittedError, RequestNotPermittedError, systemClock, VirtualClock } from '@breakwater/core';
import { deferred, flush } from '@breakwater/test-support';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AdaptiveThrottle, type AdaptiveThrottleConfig } from './index.js';

let clock: VirtualClock;
beforeEach(() => {
  clock = new VirtualClock();
});
afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
  vi.restoreAllMocks();
});

/** Draws that never reject (no ratio reaches 1). */
const never = () => 0.999_999;
/** Draws that always reject when the ratio is above 0. */
const always = () => 0;

const throttle = (config: AdaptiveThrottleConfig = {}) => new AdaptiveThrottle('t', { clock, random: never, ...config });
const fail = (t: AdaptiveThrottle, error: unknown = new Error('503')) => t.execute(() => Promise.reject(error)).catch(() => {});

describe('AdaptiveThrottle — Google SRE client-side throttling (contract: docs/adaptive.md)', () => {
  it('has its defaults: k 2, a 2-minute window, maxRejectRatio 0.9, every error a drop', () => {
    const t = new AdaptiveThrottle('t');
    expect(t.kind).toBe('throttle');
    expect(t.name).toBe('t');
    const { isDrop, random, ...rest } = t.config;
    expect(rest).toEqual({ k: 2, window: 120_000, maxRejectRatio: 0.9, writableStackTraceEnabled: true, clock: systemClock });
    expect(isDrop(new Error('x'))).toBe(true);
    expect(random).toBe(Math.random);
    expect(t.metrics).toEqual({ requests: 0, accepts: 0, rejected: 0, rejectRatio: 0 });
    expect(t.rejectRatio).toBe(0);
    expect(AdaptiveThrottle.of('x').name).toBe('x');
  });

  it('the reject ratio is max(0, (requests − k·accepts) / (requests + 1)), each request counted when it is answered', async () => {
    const t = throttle();
    const ratios: number[] = [];
    for (let i = 0; i < 3; i++) {
      ratios.push(t.rejectRatio);
      await fail(t);
    }
    expect(ratios).toEqual([0, 1 / 2, 2 / 3]);
    expect(t.metrics).toEqual({ requests: 3, accepts: 0, rejected: 0, rejectRatio: 3 / 4 });
    expect(await t.execute(() => 'ok')).toBe('ok');
    expect(t.metrics).toEqual({ requests: 4, accepts: 1, rejected: 0, rejectRatio: (4 - 2) / 5 });
    await t.execute(() => 'ok');
    expect(t.metrics).toMatchObject({ requests: 5, accepts: 2, rejectRatio: (5 - 4) / 6 });
    await t.execute(() => 'ok');
    expect(t.metrics).toMatchObject({ requests: 6, accepts: 3, rejectRatio: 0 });
  });

  it('rejects locally with the probability of the counts so far, and a local rejection counts as a request at once', async () => {
    const draws = [0.49, 0.5, 0.7];
    const t = throttle({ random: () => draws.shift()! });
    const events: unknown[] = [];
    t.on('*', ({ time: _t, ...e }) => events.push(e));
    await fail(t); // ratio 0: no draw
    let ran = 0;
    const rejected = await t.execute(() => ran++).catch((e: unknown) => e); // ratio 1/2, draw 0.49 < 0.5: rejected
    expect(rejected).toBeInstanceOf(RequestNotPermittedError);
    expect(rejected).toMatchObject({ rateLimiterName: 't', waitMs: 0, message: "AdaptiveThrottle 't' rejected the call locally (reject ratio 0.5)" });
    expect(ran).toBe(0);
    expect(t.metrics).toEqual({ requests: 2, accepts: 0, rejected: 1, rejectRatio: 2 / 3 });
    await t.execute(() => ran++).catch(() => {}); // ratio 2/3, draw 0.5: rejected
    await t.execute(() => ran++).catch(() => {}); // ratio 3/4, draw 0.7: rejected
    expect(draws).toEqual([]);
    expect(ran).toBe(0);
    expect(events).toEqual([
      { type: 'callPermitted', name: 't', at: 0 },
      { type: 'callFinished', name: 't', at: 0, accepted: false },
      { type: 'callRejected', name: 't', at: 0, rejectRatio: 1 / 2 },
      { type: 'callRejected', name: 't', at: 0, rejectRatio: 2 / 3 },
      { type: 'callRejected', name: 't', at: 0, rejectRatio: 3 / 4 },
    ]);
  });

  it('a cold burst on a fresh throttle: 50 calls at once are all let through, none counted until answered', async () => {
    let seed = 7;
    const random = () => {
      seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
      return seed / 2 ** 32;
    };
    const t = throttle({ random });
    const work = deferred<string>();
    let reached = 0;
    const calls = Array.from({ length: 50 }, () =>
      t.execute(() => {
        reached++;
        return work.promise;
      }),
    );
    const settled = Promise.allSettled(calls);
    expect(reached).toBe(50);
    expect(t.metrics).toEqual({ requests: 0, accepts: 0, rejected: 0, rejectRatio: 0 });
    work.resolve('ok');
    expect((await settled).map((r) => r.status)).toEqual(Array.from({ length: 50 }, () => 'fulfilled'));
    expect(t.metrics).toEqual({ requests: 50, accepts: 50, rejected: 0, rejectRatio: 0 });
  });

  it('maxRejectRatio caps the ratio; 0 never rejects', async () => {
    const capped = throttle({ maxRejectRatio: 0.5 });
    for (let i = 0; i < 20; i++) await fail(capped);
    expect(capped.metrics).toEqual({ requests: 20, accepts: 0, rejected: 0, rejectRatio: 0.5 });
    const off = throttle({ maxRejectRatio: 0, random: always });
    for (let i = 0; i < 20; i++) await fail(off);
    expect(off.metrics).toEqual({ requests: 20, accepts: 0, rejected: 0, rejectRatio: 0 });
  });

  it('k: fewer accepts per request are tolerated with a larger k', async () => {
    const t = throttle({ k: 3 });
    await fail(t);
    await fail(t);
    await t.execute(() => 1);
    expect(t.rejectRatio).toBe(0); // 3 − 3·1 = 0
    await fail(t);
    expect(t.rejectRatio).toBe((4 - 3) / 5);
  });

  it('the counts leave the window bucket by bucket (20 buckets of window/20)', async () => {
    const t = throttle({ window: 2000 }); // buckets of 100 ms
    await fail(t);
    await clock.advance(150);
    await fail(t);
    expect(t.metrics).toMatchObject({ requests: 2, rejectRatio: 2 / 3 });
    await clock.advance(1849); // 1999: both still in
    expect(t.metrics.requests).toBe(2);
    await clock.advance(1); // 2000: the bucket of 0–99 ms leaves
    expect(t.metrics).toMatchObject({ requests: 1, rejectRatio: 1 / 2 });
    await clock.advance(100); // 2100: the bucket of 100–199 ms leaves
    expect(t.metrics).toEqual({ requests: 0, accepts: 0, rejected: 0, rejectRatio: 0 });
  });

  it('an accept is counted in the bucket of its own request, without reading the clock: the two leave the window together', async () => {
    const t = throttle({ window: 2000 }); // buckets of 100 ms
    const work = deferred<string>();
    const call = t.execute(() => work.promise);
    await clock.advance(150); // the call ends in the second bucket
    work.resolve('ok');
    await call;
    expect(t.metrics).toMatchObject({ requests: 1, accepts: 1 });
    await clock.advance(1850); // 2000: bucket 0 leaves, with the request and its accept
    expect(t.metrics).toEqual({ requests: 0, accepts: 0, rejected: 0, rejectRatio: 0 });
  });

  it('an answer and a request let through at the same instant give the same counts in either order', async () => {
    const counts = async (acceptFirst: boolean) => {
      clock = new VirtualClock();
      const t = throttle({ window: 2000 }); // buckets of 100 ms
      const early = t.tryAcquire()!; // bucket 0
      await clock.advance(150);
      if (acceptFirst) early.onAccepted();
      const late = t.tryAcquire()!; // bucket 1
      if (!acceptFirst) early.onAccepted();
      const now = t.metrics; // the late request is in flight: not counted
      late.onRejected(); // answered: counted in bucket 1
      const answered = t.metrics;
      await clock.advance(1850); // 2000: bucket 0 leaves
      return [now, answered, t.metrics];
    };
    const expected = [
      { requests: 1, accepts: 1, rejected: 0, rejectRatio: 0 },
      { requests: 2, accepts: 1, rejected: 0, rejectRatio: 0 },
      { requests: 1, accepts: 0, rejected: 0, rejectRatio: 1 / 2 },
    ];
    expect(await counts(true)).toEqual(expected);
    expect(await counts(false)).toEqual(expected);
  });

  it("an answer whose request's bucket has left the window is not counted, accepted or not", async () => {
    const t = throttle({ window: 2000 });
    const accepted = t.tryAcquire()!;
    const dropped = t.tryAcquire()!;
    await clock.advance(2000); // their bucket leaves
    expect(t.metrics.requests).toBe(0);
    accepted.onAccepted();
    dropped.onRejected();
    expect(t.metrics).toEqual({ requests: 0, accepts: 0, rejected: 0, rejectRatio: 0 });
  });

  it('isDrop says which errors the backend refused; any other error is an accept', async () => {
    const t = throttle({ isDrop: (e) => (e as { status?: number }).status === 503 });
    await fail(t, Object.assign(new Error('not found'), { status: 404 }));
    await fail(t, Object.assign(new Error('unavailable'), { status: 503 }));
    expect(t.metrics).toMatchObject({ requests: 2, accepts: 1 });
  });

  it('a refusal by a Breakwater layer inside (a breaker, a bulkhead, a limiter) is not counted: the backend never saw it', async () => {
    const t = throttle({ isDrop: () => true });
    await fail(t, new CallNotPermittedError('pg', 'OPEN'));
    await fail(t, new BulkheadFullError('db'));
    await fail(t, new RequestNotPermittedError('pg', 0));
    expect(t.metrics).toEqual({ requests: 0, accepts: 0, rejected: 0, rejectRatio: 0 });
    await fail(t, new Error('503'));
    expect(t.metrics).toMatchObject({ requests: 1, accepts: 0 });
  });

  it('a refusal by a layer inside is not counted, with a signal or without, alone or beside a call in progress', async () => {
    for (const signal of [undefined, new AbortController().signal]) {
      clock = new VirtualClock();
      const t = throttle();
      clock.set(30_000); // bucket 5 of the 2-minute window that began at 0
      await t.execute(() => Promise.reject(new BulkheadFullError('b')), signal === undefined ? undefined : { signal }).catch(() => {});
      expect(t.metrics).toEqual({ requests: 0, accepts: 0, rejected: 0, rejectRatio: 0 });
      const token = t.tryAcquire()!;
      token.onIgnore();
      expect(t.metrics).toEqual({ requests: 0, accepts: 0, rejected: 0, rejectRatio: 0 });
    }
    // Two calls at once without a signal (the second finds the first's handlers in use): each its own bucket.
    const t = throttle();
    clock.set(clock.now() + 30_000);
    const first = deferred<string>();
    const one = t.execute(() => first.promise);
    clock.set(clock.now() + 30_000);
    await t.execute(() => Promise.reject(new CallNotPermittedError('pg', 'OPEN'))).catch(() => {});
    first.reject(new RequestNotPermittedError('pg', 0));
    await one.catch(() => {});
    expect(t.metrics).toEqual({ requests: 0, accepts: 0, rejected: 0, rejectRatio: 0 });
  });

  it('a caller that aborts while fn runs is rejected at once; the request is not counted (a failure after the abort is not judged)', async () => {
    const t = throttle();
    const ac = new AbortController();
    const work = deferred<string>();
    const call = t.execute(() => work.promise, { signal: ac.signal }).catch((e: unknown) => e);
    expect(t.metrics.requests).toBe(0); // in flight
    ac.abort(new Error('bye'));
    expect(((await call) as Error).message).toBe('bye');
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    work.reject(new Error('cancelled'));
    await flush();
    expect(t.metrics).toEqual({ requests: 0, accepts: 0, rejected: 0, rejectRatio: 0 });
  });

  it('a caller that aborted still sees a success counted as an accept', async () => {
    const t = throttle();
    const ac = new AbortController();
    const work = deferred<string>();
    const call = t.execute(() => work.promise, { signal: ac.signal }).catch(() => {});
    ac.abort(new Error('bye'));
    await call;
    work.resolve('late');
    await flush();
    expect(t.metrics).toMatchObject({ requests: 1, accepts: 1 });
  });

  it('tryAcquire: a token or null; each token settles once', () => {
    const t = throttle({ random: always });
    const a = t.tryAcquire()!;
    a.onRejected();
    a.onAccepted();
    expect(t.metrics).toMatchObject({ requests: 1, accepts: 0 });
    expect(t.tryAcquire()).toBeNull(); // ratio 1/2, draw 0
    expect(t.metrics).toMatchObject({ requests: 2, rejected: 1 });
    const never2 = throttle();
    const b = never2.tryAcquire()!;
    b.onIgnore();
    b.onAccepted();
    expect(never2.metrics).toEqual({ requests: 0, accepts: 0, rejected: 0, rejectRatio: 0 });
  });

  it('never throws synchronously; a sync throw is a rejection; decorate passes the arguments', async () => {
    const t = throttle();
    await expect(t.execute(() => 1, 7 as never)).rejects.toThrow(TypeError);
    await expect(
      t.execute(() => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    expect(t.metrics).toMatchObject({ requests: 1, accepts: 0 });
    expect(await t.decorate((a: number, b: number) => a * b)(6, 7)).toBe(42);
  });

  it('a throwing isDrop counts the error as a drop, a throwing random lets the request through, each reported once', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const t = throttle({
      isDrop: () => {
        throw new Error('predicate bug');
      },
      random: () => {
        throw new Error('rng bug');
      },
    });
    await fail(t);
    await fail(t);
    expect(await t.execute(() => 'through')).toBe('through');
    expect(t.metrics).toMatchObject({ requests: 3, accepts: 1, rejected: 0 });
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it('without stack traces a local rejection carries its header alone', async () => {
    const t = throttle({ random: always, writableStackTraceEnabled: false });
    await fail(t);
    const error = (await t.execute(() => 1).catch((e: unknown) => e)) as Error;
    expect(error.stack).toBe("RequestNotPermittedError: AdaptiveThrottle 't' rejected the call locally (reject ratio 0.5)");
  });
});

describe('AdaptiveThrottle against a model (fast-check)', () => {
  it('every decision and count follows the formula over answered requests and local rejections, calls held in flight counted only when answered (seeded outcomes and draws)', async () => {
    type Step = { draw: number; ok: boolean; hold: boolean; release: boolean };
    const step: fc.Arbitrary<Step> = fc.record({
      draw: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      ok: fc.boolean(),
      hold: fc.boolean(),
      release: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), fc.constantFrom(1, 1.5, 2), fc.constantFrom(0.5, 0.9, 1), async (steps, k, maxRejectRatio) => {
        const draws = steps.map((s) => s.draw);
        const t = new AdaptiveThrottle('m', { clock: new VirtualClock(), k, maxRejectRatio, random: () => draws.shift()! });
        const model = { requests: 0, accepts: 0, rejected: 0 };
        const ratio = () => Math.min(maxRejectRatio, Math.max(0, (model.requests - k * model.accepts) / (model.requests + 1)));
        const check = () => expect(t.metrics).toEqual({ ...model, rejectRatio: ratio() });
        // Calls let through and held in flight: nothing counted until each is answered.
        const held: { ok: boolean; work: ReturnType<typeof deferred<string>>; outcome: Promise<string> }[] = [];
        const answer = async () => {
          const h = held.shift()!;
          if (h.ok) h.work.resolve('ok');
          else h.work.reject(new Error('x'));
          expect(await h.outcome).toBe(h.ok ? 'ok' : 'failed');
          model.requests++;
          if (h.ok) model.accepts++;
          check();
        };
        const judge = (e: unknown) => (e instanceof RequestNotPermittedError ? 'rejected' : 'failed');
        for (const s of steps) {
          if (s.release && held.length > 0) await answer();
          const p = ratio();
          const expectRejected = p > 0 && s.draw < p;
          if (p === 0) draws.shift(); // no draw is made at a ratio of 0
          if (s.hold) {
            const work = deferred<string>();
            const outcome = t.execute(() => work.promise).then(() => 'ok', judge);
            if (expectRejected) {
              expect(await outcome).toBe('rejected');
              model.requests++;
              model.rejected++;
            } else held.push({ ok: s.ok, work, outcome });
          } else {
            const outcome = await t.execute(() => (s.ok ? 'ok' : Promise.reject(new Error('x')))).then(() => 'ok', judge);
            expect(outcome).toBe(expectRejected ? 'rejected' : s.ok ? 'ok' : 'failed');
            model.requests++;
            if (expectRejected) model.rejected++;
            else if (s.ok) model.accepts++;
          }
          check();
        }
        while (held.length > 0) await answer();
      }),
      { numRuns: 200 },
    );
  });
});

describe('AdaptiveThrottle: calls at once, settled in any order (fast-check)', () => {
  it('each answered request and its accept land in the bucket of its own request; a call in flight, ignored or refused inside is not counted; with a signal or without', async () => {
    type Call = { at: number; outcome: 'ok' | 'drop' | 'accepted error' | 'refused inside'; signal: boolean; abort: boolean };
    const call: fc.Arbitrary<Call> = fc.record({
      at: fc.integer({ min: 0, max: 3000 }),
      outcome: fc.constantFrom('ok' as const, 'drop' as const, 'accepted error' as const, 'refused inside' as const),
      signal: fc.boolean(),
      abort: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(call, { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
        fc.integer({ min: 0, max: 2500 }),
        async (calls, order, after) => {
          const clock = new VirtualClock();
          const t = new AdaptiveThrottle('p', { clock, window: 2000, random: never, maxRejectRatio: 0.9, isDrop: (e) => e === 'drop' }); // buckets of 100 ms
          const started = [...calls].sort((a, b) => a.at - b.at);
          const running = started.map((c) => {
            clock.set(Math.max(clock.now(), c.at));
            const work = deferred<string>();
            const ac = c.signal ? new AbortController() : undefined;
            const done = t.execute(() => work.promise, ac === undefined ? undefined : { signal: ac.signal }).catch(() => {});
            return { c, bucket: Math.floor(clock.now() / 100), work, ac, done };
          });
          // The model: a request counts once answered, while its own bucket is in the window; an ignored one (refused
          // inside, or failed after its caller aborted) never; an accept (a success, or an error isDrop does not accept) with its request.
          const answered = new Set<(typeof running)[number]>();
          const ignored = (r: (typeof running)[number]) => r.c.outcome === 'refused inside' || (r.c.outcome !== 'ok' && r.c.abort && r.ac !== undefined);
          const model = () => {
            const head = Math.floor(clock.now() / 100);
            const counted = running.filter((r) => answered.has(r) && !ignored(r) && r.bucket > head - 20);
            const requests = counted.length;
            const accepts = counted.filter((r) => r.c.outcome === 'ok' || r.c.outcome === 'accepted error').length;
            return { requests, accepts, rejected: 0, rejectRatio: Math.min(0.9, Math.max(0, (requests - 2 * accepts) / (requests + 1))) };
          };
          expect(t.metrics).toEqual(model()); // all in flight: nothing counted
          // Settled in an order of the property's choosing, the clock moving on between them.
          const pending = [...running];
          for (let i = 0; pending.length > 0; i++) {
            const pick = order[i % order.length]!;
            const [r] = pending.splice(pick % pending.length, 1);
            clock.set(clock.now() + (pick % 7) * 50); // 0-300 ms later: some requests' buckets leave the window meanwhile
            if (r!.c.abort && r!.ac !== undefined) r!.ac.abort('bye');
            const o = r!.c.outcome;
            if (o === 'ok') r!.work.resolve('ok');
            else r!.work.reject(o === 'drop' ? 'drop' : o === 'refused inside' ? new BulkheadFullError('b') : 'not found');
            await r!.done;
            await flush();
            answered.add(r!);
            if (pick % 2 === 0) expect(t.metrics).toEqual(model()); // read now (the window moved) or not until later
          }
          clock.set(clock.now() + after);
          expect(t.metrics).toEqual(model());
        },
      ),
      { numRuns: 200 },
    );
  });
});
