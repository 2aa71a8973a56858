import { ResultRecordedAsFailureError } from '@breakwater/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BoomError, breakerOnClock, counts, expectNoLeakedTimers } from '../test/test-support.js';

afterEach(() => {
  vi.restoreAllMocks();
  expectNoLeakedTimers();
});

/** Captures process warnings (so none is printed) and returns the spy. */
function captureWarnings() {
  return vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
}

/** The messages of the captured warnings of type `type`. */
function warningsOf(spy: ReturnType<typeof captureWarnings>, type = 'BreakwaterCallbackWarning'): string[] {
  return spy.mock.calls.filter((c) => (c[1] as { type?: string } | undefined)?.type === type).map((c) => String(c[0]));
}

// A predicate written for HTTP errors, given a plain Error: `e.response` is undefined, so it throws a
// TypeError. A fresh one per use: a throwing callback is reported once per callback, for the process.
const httpOnly = () => (e: unknown) => (e as { response: { status: number } }).response.status >= 500;

describe('user callbacks are contained (contract: docs/conventions.md)', () => {
  for (const option of ['recordException', 'ignoreException'] as const) {
    it(`a throwing ${option}: the caller gets its own error, the call is an ERROR, no half-open permit is lost, one warning`, async () => {
      const warn = captureWarnings();
      const { breaker, events } = breakerOnClock({ [option]: httpOnly(), permittedNumberOfCallsInHalfOpenState: 2, minimumNumberOfCalls: 2 }, 'pg');
      breaker.transitionToOpenState();
      breaker.transitionToHalfOpenState();
      const own = new Error('connection refused');
      await expect(breaker.execute(() => Promise.reject(own))).rejects.toBe(own);
      expect(breaker.state).toBe('HALF_OPEN');
      expect(counts(breaker.metrics)).toMatchObject({ buffered: 1, failed: 1 });
      // The second permit is still there: the second trial decides (2 errors of 2 → OPEN).
      await expect(
        breaker.execute(() => {
          throw own;
        }),
      ).rejects.toBe(own);
      expect(breaker.state).toBe('OPEN');
      expect(events.filter((e) => e === 'error')).toHaveLength(2);
      const warnings = warningsOf(warn);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`CircuitBreaker 'pg': ${option} threw; the call is recorded as an error (reported once)`);
      expect(warnings[0]).toContain('TypeError');
    });
  }

  it('a throwing recordResult: the caller gets the value, the call is an ERROR carrying the value, one warning', async () => {
    const warn = captureWarnings();
    // Written for `{ response: { status } }`, given a body without `response` (null and undefined are never asked about).
    const { breaker } = breakerOnClock(
      { recordResult: (r) => (r as { response: { status: number } }).response.status >= 500, minimumNumberOfCalls: 1, slidingWindowSize: 1 },
      'pg',
    );
    const errors: unknown[] = [];
    breaker.on('error', (e) => errors.push(e.error));
    const body = { ok: true };
    await expect(breaker.execute(() => body)).resolves.toBe(body);
    expect(breaker.state).toBe('OPEN');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ResultRecordedAsFailureError);
    expect((errors[0] as ResultRecordedAsFailureError).result).toBe(body);
    expect(warningsOf(warn)).toEqual([expect.stringContaining("CircuitBreaker 'pg': recordResult threw; the call is recorded as an error")]);
  });

  it('a throwing recordResult in HALF_OPEN loses no permit (it was lost before: the breaker refused every call forever)', async () => {
    const warn = captureWarnings();
    const { breaker } = breakerOnClock({
      recordResult: () => {
        throw new Error('bad predicate');
      },
      permittedNumberOfCallsInHalfOpenState: 2,
      minimumNumberOfCalls: 3,
    });
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    await expect(breaker.execute(() => 'a')).resolves.toBe('a');
    await expect(breaker.execute(() => 'b')).resolves.toBe('b');
    // min(3, 2) = 2 calls decide: both recorded as errors → OPEN.
    expect(breaker.state).toBe('OPEN');
    expect(counts(breaker.metrics)).toMatchObject({ buffered: 2, failed: 2 });
    expect(warningsOf(warn)).toHaveLength(1);
  });

  it('a throwing class check (Symbol.hasInstance) in ignoreExceptions is contained too', async () => {
    const warn = captureWarnings();
    class Hostile {
      static [Symbol.hasInstance](): boolean {
        throw new Error('hostile class');
      }
    }
    const { breaker } = breakerOnClock({ ignoreExceptions: [Hostile] });
    const own = new BoomError();
    await expect(breaker.execute(() => Promise.reject(own))).rejects.toBe(own);
    expect(breaker.metrics.numberOfFailedCalls).toBe(1);
    expect(warningsOf(warn)).toEqual([expect.stringContaining('ignoreExceptions threw')]);
  });

  it('onError and onResult called directly never throw from a predicate: the call is an ERROR and the user permit is used', () => {
    const warn = captureWarnings();
    const { breaker } = breakerOnClock({
      recordException: httpOnly(),
      recordResult: () => {
        throw new TypeError('nope');
      },
      permittedNumberOfCallsInHalfOpenState: 2,
      minimumNumberOfCalls: 2,
    });
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    expect(breaker.tryAcquirePermission()).toBe(true);
    expect(() => breaker.onError(5, new Error('plain'))).not.toThrow();
    expect(breaker.tryAcquirePermission()).toBe(true);
    expect(() => breaker.onResult(5, { status: 200 })).not.toThrow();
    expect(breaker.state).toBe('OPEN'); // two errors of two
    expect(counts(breaker.metrics)).toMatchObject({ buffered: 2, failed: 2 });
    expect(warningsOf(warn)).toHaveLength(2); // one per callback
  });

  it('reports a throwing predicate once, however many calls it fails', async () => {
    const warn = captureWarnings();
    const { breaker } = breakerOnClock({ recordException: httpOnly(), slidingWindowSize: 1000, minimumNumberOfCalls: 1000 });
    for (let i = 0; i < 50; i++) await breaker.execute(() => Promise.reject(new Error('x'))).catch(() => {});
    expect(breaker.metrics.numberOfFailedCalls).toBe(50);
    expect(warningsOf(warn)).toHaveLength(1);
  });
});

describe('waitIntervalFunctionInOpenState is contained', () => {
  it('a wait function that throws for attempt 3 never crashes the breaker’s timer: the previous wait is kept, reported once', async () => {
    const warn = captureWarnings();
    const { breaker, clock } = breakerOnClock(
      {
        waitIntervalFunctionInOpenState: (attempt) => {
          if (attempt >= 3) throw new RangeError(`no wait for attempt ${attempt}`);
          return 1000 * attempt;
        },
        automaticTransitionFromOpenToHalfOpenEnabled: true,
        maxWaitDurationInHalfOpenState: 100, // HALF_OPEN → OPEN from a timer: the wait function runs in a timer
      },
      'pg',
    );
    breaker.transitionToOpenState(); // attempt 1: 1000 ms
    await clock.advance(1000);
    expect(breaker.state).toBe('HALF_OPEN');
    await clock.advance(100); // timer → OPEN, attempt 2: 2000 ms
    expect(breaker.state).toBe('OPEN');
    await clock.advance(2000);
    expect(breaker.state).toBe('HALF_OPEN');
    await clock.advance(100); // timer → OPEN, attempt 3: throws → keeps 2000 ms
    expect(breaker.state).toBe('OPEN');
    await clock.advance(1999);
    expect(breaker.state).toBe('OPEN');
    await clock.advance(1);
    expect(breaker.state).toBe('HALF_OPEN');
    await clock.advance(100); // attempt 4 throws too: reported once only
    await clock.advance(2000);
    expect(breaker.state).toBe('HALF_OPEN');
    const warnings = warningsOf(warn);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("CircuitBreaker 'pg': waitIntervalFunctionInOpenState threw; the breaker keeps its previous wait, 2000 ms");
    breaker.transitionToClosedState();
  });

  it.each([NaN, Infinity, -5, 0, 0.5, '3000', undefined])('a later wait of %s keeps the previous wait, reported once', async (bad) => {
    const warn = captureWarnings();
    const { breaker, clock } = breakerOnClock({ waitIntervalFunctionInOpenState: (attempt) => (attempt === 1 ? 500 : (bad as number)) }, 'pg');
    breaker.transitionToOpenState(); // 500 ms
    await clock.advance(501);
    expect(breaker.tryAcquirePermission()).toBe(true);
    breaker.transitionToOpenState(); // attempt 2: bad → 500 ms
    await clock.advance(500);
    expect(breaker.tryAcquirePermission()).toBe(false);
    await clock.advance(1);
    expect(breaker.tryAcquirePermission()).toBe(true);
    breaker.transitionToOpenState(); // attempt 3: bad again, not reported again
    expect(warningsOf(warn)).toEqual([expect.stringContaining(`waitIntervalFunctionInOpenState returned`)]);
    expect(warningsOf(warn)[0]).toContain('for attempt 2, not a finite wait in ms >= 1; the breaker keeps its previous wait, 500 ms');
    breaker.reset();
  });

  it('refuses at construction a wait function that throws or gives a bad wait for attempt 1', async () => {
    const { CircuitBreaker } = await import('./circuit-breaker.js');
    expect(
      () =>
        new CircuitBreaker('pg', {
          waitIntervalFunctionInOpenState: () => {
            throw new Error('boom');
          },
        }),
    ).toThrow(new TypeError("CircuitBreaker 'pg': waitIntervalFunctionInOpenState threw for attempt 1: Error: boom"));
    for (const bad of [NaN, Infinity, -1, 0]) {
      expect(() => new CircuitBreaker('pg', { waitIntervalFunctionInOpenState: () => bad })).toThrow(RangeError);
      expect(() => new CircuitBreaker('pg', { waitIntervalFunctionInOpenState: () => bad })).toThrow(
        `CircuitBreaker 'pg': waitIntervalFunctionInOpenState must be a function returning a finite wait in ms >= 1 (it returned this for attempt 1), got ${bad}`,
      );
    }
  });
});
