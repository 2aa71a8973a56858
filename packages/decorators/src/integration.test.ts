// Real pipelines of Breakwater's own policies (the workspace packages, dev dependencies of this
// one) sharing one caller signal: docs/conventions.md "at most one `abort` listener per signal from all of
// Breakwater, however many calls and layers; none once they have ended", and "a caller's abort
// rejects the call at once with the signal's reason".
import { getEventListeners } from 'node:events';
import { AdaptiveLimiter, AdaptiveThrottle } from '@breakwater/adaptive';
import { onAbort, RequestNotPermittedError, VirtualClock, type CallContext } from '@breakwater/core';
import { Bulkhead } from '@breakwater/bulkhead';
import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { RateLimiter } from '@breakwater/rate-limiter';
import { Retry } from '@breakwater/retry';
import { TimeLimiter } from '@breakwater/time-limiter';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { decorate, type Pipeline } from './index.js';

const CALLS = 50;

let clock = new VirtualClock();
let warn: MockInstance<typeof process.emitWarning>;
beforeEach(() => {
  warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
});
afterEach(() => {
  warn.mockRestore();
  const pending = clock.pendingTimers;
  clock = new VirtualClock();
  expect(pending).toBe(0);
});

/** The warnings Node printed about too many listeners on one target. */
function maxListenersWarnings(): unknown[] {
  return warn.mock.calls.filter(([w, o]) => `${(w as Error)?.name ?? ''} ${w} ${JSON.stringify(o ?? '')}`.includes('MaxListenersExceeded'));
}

/** Call `i`: fails its first attempt when `i` is odd (so the retry waits and tries again), then resolves `i` after 100 + i ms, honouring the signal it is given. */
function work(i: number) {
  return (ctx: CallContext): Promise<number> => {
    if (i % 2 === 1 && ctx.attempt === 1) return Promise.reject(new Error(`call ${i} failed its first attempt`));
    return new Promise<number>((resolve, reject) => {
      const stop = onAbort(ctx.signal, () => {
        clock.clearTimeout(timer);
        reject(ctx.signal.reason);
      });
      const timer = clock.setTimeout(() => {
        stop();
        resolve(i);
      }, 100 + i);
    });
  };
}

interface Variant {
  readonly name: string;
  readonly build: () => { pipeline: Pipeline; bulkhead?: Bulkhead; adaptive?: AdaptiveLimiter };
}

/** Nothing held or waiting once every call has ended: the bulkhead's slots, the adaptive limiter's places. */
function nothingHeld({ bulkhead, adaptive }: { bulkhead?: Bulkhead; adaptive?: AdaptiveLimiter }): void {
  if (bulkhead) expect(bulkhead.metrics).toEqual({ availableConcurrentCalls: 5, maxAllowedConcurrentCalls: 5, waitingCalls: 0 });
  if (adaptive) expect(adaptive.metrics).toMatchObject({ limit: 5, inFlight: 0, waiting: 0, rejected: 0 });
}

const retry = (): Retry => new Retry('pg', { maxAttempts: 3, waitDuration: 10, clock });
const breaker = (): CircuitBreaker => new CircuitBreaker('pg', { clock });
const timeLimiter = (): TimeLimiter => new TimeLimiter('pg', { timeoutDuration: 1000, clock });

const VARIANTS: readonly Variant[] = [
  {
    name: 'Retry → CircuitBreaker → TimeLimiter',
    build: () => ({ pipeline: decorate().withRetry(retry()).withCircuitBreaker(breaker()).withTimeLimiter(timeLimiter()) }),
  },
  {
    name: 'Retry → Bulkhead (5, the others queued) → CircuitBreaker → TimeLimiter',
    build: () => {
      const bulkhead = new Bulkhead('pg', { maxConcurrentCalls: 5, maxWaitDuration: 60_000, clock });
      return { bulkhead, pipeline: decorate().withRetry(retry()).withBulkhead(bulkhead).withCircuitBreaker(breaker()).withTimeLimiter(timeLimiter()) };
    },
  },
  {
    name: 'Retry → RateLimiter (5 per 100 ms, the others waiting) → CircuitBreaker → TimeLimiter',
    build: () => ({
      pipeline: decorate()
        .withRetry(retry())
        .withRateLimiter(new RateLimiter('pg', { limitForPeriod: 5, limitRefreshPeriod: 100, timeoutDuration: 60_000, clock }))
        .withCircuitBreaker(breaker())
        .withTimeLimiter(timeLimiter()),
    }),
  },
  {
    name: 'AdaptiveThrottle (steady) → Retry → AdaptiveLimiter (a limit of 5, the others queued) → CircuitBreaker → TimeLimiter',
    build: () => {
      const adaptive = new AdaptiveLimiter('pg', {
        algorithm: { name: 'fixed', limit: 5, onSample: () => 5 },
        window: false,
        maxWaitDuration: 60_000,
        clock,
      });
      // A throttle in its steady state: 100 requests answered, all accepted. (A fresh one would refuse
      // much of a burst of 50: none of them is answered yet when the others are counted.)
      const throttle = new AdaptiveThrottle('pg', { clock });
      for (let i = 0; i < 100; i++) throttle.tryAcquire()?.onAccepted();
      const pipeline = decorate()
        .withThrottle(throttle)
        .withRetry(retry())
        .withAdaptiveLimiter(adaptive)
        .withCircuitBreaker(breaker())
        .withTimeLimiter(timeLimiter());
      expect(pipeline.warnings).toEqual([]);
      return { adaptive, pipeline };
    },
  },
];

describe(`${CALLS} concurrent calls sharing one caller signal`, () => {
  it.each(VARIANTS)('$name: at most one abort listener on it while they run, none after, no MaxListenersExceededWarning', async ({ build }) => {
    const { pipeline, ...held } = build();
    const caller = new AbortController();
    let settled = 0;
    const calls = Array.from({ length: CALLS }, (_, i) => pipeline.execute(work(i), { signal: caller.signal }).finally(() => settled++));
    const counts: number[] = [getEventListeners(caller.signal, 'abort').length];
    while (settled < CALLS && clock.now() < 10_000) {
      await clock.advance(5);
      counts.push(getEventListeners(caller.signal, 'abort').length);
    }
    await expect(Promise.all(calls)).resolves.toEqual(Array.from({ length: CALLS }, (_, i) => i));
    expect(counts.length).toBeGreaterThan(20); // they did run a while together
    expect(Math.max(...counts)).toBeLessThanOrEqual(1);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(maxListenersWarnings()).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
    nothingHeld(held);
  });

  it.each(VARIANTS)('$name: aborting rejects all of them at once with the reason', async ({ build }) => {
    const { pipeline, ...held } = build();
    const caller = new AbortController();
    const outcomes: unknown[] = [];
    const calls = Array.from({ length: CALLS }, (_, i) =>
      pipeline.execute(work(i), { signal: caller.signal }).then(
        (value) => void outcomes.push(['value', value]),
        (error: unknown) => void outcomes.push(error),
      ),
    );
    await clock.advance(50); // some running, some waiting for a retry, a slot or a permit
    expect(outcomes).toEqual([]);
    const reason = new Error('shutting down');
    caller.abort(reason);
    await clock.advance(0); // no time passes
    expect(outcomes).toHaveLength(CALLS);
    expect(outcomes.every((o) => o === reason)).toBe(true);
    await Promise.all(calls);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    await clock.advance(2000); // whatever was still running in the background ends; nothing is left behind
    nothingHeld(held);
    expect(maxListenersWarnings()).toEqual([]);
  });
});

describe('a pipeline without a time limiter or a retry', () => {
  it("a caller's abort rejects at once with the reason, not with the value fn gives 200 ms later; a bulkhead slot stays held until fn really settles", async () => {
    const bulkhead = new Bulkhead('pg', { maxConcurrentCalls: 1, clock });
    const cb = breaker();
    const caller = new AbortController();
    const outcomes: unknown[] = [];
    // fn ignores its signal: it resolves 200 ms later whatever happens
    const deaf = (): Promise<string> => new Promise((resolve) => clock.setTimeout(() => resolve('late'), 200));
    decorate()
      .withBulkhead(bulkhead)
      .withCircuitBreaker(cb)
      .execute(deaf, { signal: caller.signal })
      .then(
        (value) => void outcomes.push(['value', value]),
        (error: unknown) => void outcomes.push(error),
      );
    await clock.advance(10);
    const reason = new Error('user left');
    caller.abort(reason);
    await clock.advance(0);
    expect(outcomes).toEqual([reason]);
    expect(bulkhead.metrics.availableConcurrentCalls).toBe(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    await clock.advance(190);
    expect(outcomes).toEqual([reason]);
    expect(bulkhead.metrics.availableConcurrentCalls).toBe(1);
  });
});

// What RATE_LIMITER_OUTSIDE_CIRCUIT_BREAKER warns of, on the real policies (issue 18.17): written
// the wrong way round, an OPEN breaker spends the limiter's permits and its callers get the
// limiter's refusal; written the right way round, the breaker refuses first and spends nothing.
describe('a rate limiter and an OPEN breaker', () => {
  const build = () => ({
    limiter: new RateLimiter('api', { limitForPeriod: 2, limitRefreshPeriod: 1000, timeoutDuration: 0, clock }),
    breaker: new CircuitBreaker('pg', { initialState: 'FORCED_OPEN', clock }),
  });

  it('limiter outside the breaker: refused calls spend permits, then the limiter refuses instead of the breaker', async () => {
    const { limiter, breaker } = build();
    const pipeline = decorate().withRateLimiter(limiter).withCircuitBreaker(breaker);
    expect(pipeline.warnings.map((w) => w.code)).toEqual(['RATE_LIMITER_OUTSIDE_CIRCUIT_BREAKER']);
    const errors = await Promise.all([1, 2, 3].map(() => pipeline.execute(() => 'ok').catch((e: Error) => e.name)));
    expect(errors).toEqual(['CallNotPermittedError', 'CallNotPermittedError', 'RequestNotPermittedError']);
    expect(limiter.metrics.availablePermissions).toBe(0);
  });

  it('breaker outside the limiter: the breaker refuses every call and no permit is spent', async () => {
    const { limiter, breaker } = build();
    const pipeline = decorate().withCircuitBreaker(breaker).withRateLimiter(limiter);
    expect(pipeline.warnings).toEqual([]);
    const errors = await Promise.all([1, 2, 3].map(() => pipeline.execute(() => 'ok').catch((e: Error) => e.name)));
    expect(errors).toEqual(['CallNotPermittedError', 'CallNotPermittedError', 'CallNotPermittedError']);
    expect(limiter.metrics.availablePermissions).toBe(2);
  });
});

// What THROTTLE_INSIDE_RETRY warns of, on the real policies: written the wrong way round, the
// throttle's local refusal is retried (each attempt one more request, the caller kept waiting);
// the right way round, the operation is refused once, at once.
describe('a throttle and a retry', () => {
  it('throttle inside the retry: every attempt is refused and counted, and the caller waits through the retry', async () => {
    let draw = 0.99;
    const throttle = new AdaptiveThrottle('api', { random: () => draw, clock });
    await throttle.execute(() => 'ok');
    for (let i = 0; i < 3; i++) await throttle.execute(() => Promise.reject(new Error('503'))).catch(() => {});
    draw = 0;
    const pipeline = decorate().withRetry(retry()).withThrottle(throttle);
    expect(pipeline.warnings.map((w) => w.code)).toEqual(['THROTTLE_INSIDE_RETRY']);
    const fn = vi.fn(() => 'sent');
    const call = pipeline.execute(fn).catch((e: unknown) => e);
    await clock.advance(20); // the retry's two waits of 10 ms
    expect(await call).toBeInstanceOf(RequestNotPermittedError);
    expect(fn).not.toHaveBeenCalled();
    expect(throttle.metrics).toMatchObject({ requests: 7, accepts: 1, rejected: 3 });
  });

  it('throttle outside the retry: one request, refused at once', async () => {
    let draw = 0.99;
    const throttle = new AdaptiveThrottle('api', { random: () => draw, clock });
    await throttle.execute(() => 'ok');
    for (let i = 0; i < 3; i++) await throttle.execute(() => Promise.reject(new Error('503'))).catch(() => {});
    draw = 0;
    const pipeline = decorate().withThrottle(throttle).withRetry(retry());
    expect(pipeline.warnings).toEqual([]);
    await expect(pipeline.execute(() => 'sent')).rejects.toBeInstanceOf(RequestNotPermittedError);
    expect(throttle.metrics).toMatchObject({ requests: 5, accepts: 1, rejected: 1 });
  });
});
