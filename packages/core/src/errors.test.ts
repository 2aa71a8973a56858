import { describe, expect, it } from 'vitest';
import {
  BreakwaterError,
  BulkheadFullError,
  CallNotPermittedError,
  IllegalStateTransitionError,
  MaxRetriesExceededError,
  RequestNotPermittedError,
  ResultRecordedAsFailureError,
  TimeoutError,
  withoutStack,
} from './errors.js';

const cases = [
  {
    error: new CallNotPermittedError('pg', 'OPEN'),
    name: 'CallNotPermittedError',
    fields: { circuitBreakerName: 'pg', state: 'OPEN' },
    message: "CircuitBreaker 'pg' is OPEN and does not permit further calls",
  },
  {
    error: new TimeoutError('pg', 600),
    name: 'TimeoutError',
    fields: { timeLimiterName: 'pg', timeoutMs: 600 },
    message: "TimeLimiter 'pg' timed out after 600 ms",
  },
  {
    error: new BulkheadFullError('db'),
    name: 'BulkheadFullError',
    fields: { bulkheadName: 'db' },
    message: "Bulkhead 'db' is full and does not permit further calls",
  },
  {
    error: new RequestNotPermittedError('api', 250),
    name: 'RequestNotPermittedError',
    fields: { rateLimiterName: 'api', waitMs: 250 },
    message: "RateLimiter 'api' does not permit further calls (a permit is free in 250 ms)",
  },
  {
    error: new MaxRetriesExceededError('pg', 3, { status: 503 }),
    name: 'MaxRetriesExceededError',
    fields: { retryName: 'pg', attempts: 3, lastResult: { status: 503 } },
    message: "Retry 'pg' has exhausted its 3 attempts and the result is still to be retried",
  },
  {
    error: new IllegalStateTransitionError('pg', 'FORCED_OPEN', 'HALF_OPEN'),
    name: 'IllegalStateTransitionError',
    fields: { circuitBreakerName: 'pg', from: 'FORCED_OPEN', to: 'HALF_OPEN' },
    message: "CircuitBreaker 'pg' cannot move from FORCED_OPEN to HALF_OPEN",
  },
  {
    error: new ResultRecordedAsFailureError('pg', 503),
    name: 'ResultRecordedAsFailureError',
    fields: { circuitBreakerName: 'pg', result: 503 },
    message: "CircuitBreaker 'pg' has recorded a result as a failure",
  },
];

describe('errors', () => {
  it.each(cases)('$name extends BreakwaterError and Error, with its name, fields and message', ({ error, name, fields, message }) => {
    expect(error).toBeInstanceOf(BreakwaterError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.message).toBe(message);
    expect(error).toMatchObject(fields);
    expect(String(error)).toBe(`${name}: ${message}`);
    expect(error.stack?.split('\n')[0]).toBe(`${name}: ${message}`);
  });

  it("RequestNotPermittedError takes the message of a refusal that is not a rate limiter's (an adaptive limiter's: no wait to give)", () => {
    const error = new RequestNotPermittedError('pg', 0, "AdaptiveLimiter 'pg' does not permit further calls (limit 20, 20 in flight)");
    expect(error).toMatchObject({ rateLimiterName: 'pg', waitMs: 0 });
    expect(error.stack?.split('\n')[0]).toBe("RequestNotPermittedError: AdaptiveLimiter 'pg' does not permit further calls (limit 20, 20 in flight)");
  });

  it('each class name but TimeoutError’s is its class name; TimeoutError’s is the DOM’s', () => {
    for (const { error } of cases) {
      if (error instanceof TimeoutError) expect(error.name).toBe('TimeoutError');
      else expect(error.name).toBe(error.constructor.name);
    }
  });

  it('the classes are distinct: one is never an instance of another', () => {
    for (const a of cases) {
      for (const b of cases) {
        if (a !== b) expect(a.error).not.toBeInstanceOf(b.error.constructor);
      }
    }
  });

  it('BreakwaterError is an Error named BreakwaterError that takes a message and a cause', () => {
    const cause = new Error('root');
    const e = new BreakwaterError('custom', { cause });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('BreakwaterError');
    expect(e.message).toBe('custom');
    expect(e.cause).toBe(cause);
  });

  it('BulkheadFullError takes another detail (a pool bulkhead whose queue is full)', () => {
    expect(new BulkheadFullError('db', 'has no free slot and its queue is full').message).toBe("Bulkhead 'db' has no free slot and its queue is full");
  });

  it('a user can extend BreakwaterError for a policy of their own', () => {
    class QuotaExceededError extends BreakwaterError {
      override name = 'QuotaExceededError';
    }
    const e = new QuotaExceededError('over quota');
    expect(e).toBeInstanceOf(BreakwaterError);
    expect(e.name).toBe('QuotaExceededError');
  });
});

describe('withoutStack', () => {
  const hasFrames = (e: Error): boolean => /\n\s+at /.test(e.stack ?? '');

  it('builds the error with no stack frames, only its header', () => {
    expect(hasFrames(new CallNotPermittedError('pg', 'OPEN'))).toBe(true);
    const e = withoutStack(() => new CallNotPermittedError('pg', 'OPEN'));
    expect(e).toBeInstanceOf(CallNotPermittedError);
    expect(e.circuitBreakerName).toBe('pg');
    expect(hasFrames(e)).toBe(false);
    expect(e.stack).toBe("CallNotPermittedError: CircuitBreaker 'pg' is OPEN and does not permit further calls");
  });

  it('restores Error.stackTraceLimit afterwards', () => {
    const before = Error.stackTraceLimit;
    withoutStack(() => new TimeoutError('pg', 1));
    expect(Error.stackTraceLimit).toBe(before);
    expect(hasFrames(new TimeoutError('pg', 1))).toBe(true);
  });

  it('restores Error.stackTraceLimit even when the builder throws', () => {
    const before = Error.stackTraceLimit;
    const boom = new Error('builder failed');
    expect(() =>
      withoutStack(() => {
        throw boom;
      }),
    ).toThrow(boom);
    expect(Error.stackTraceLimit).toBe(before);
  });

  it('restores a custom limit as it was', () => {
    const before = Error.stackTraceLimit;
    try {
      Error.stackTraceLimit = 3;
      withoutStack(() => new BulkheadFullError('db'));
      expect(Error.stackTraceLimit).toBe(3);
    } finally {
      Error.stackTraceLimit = before;
    }
  });
});
