import { CallNotPermittedError, TimeoutError, VirtualClock, type CallContext } from '@breakwater/core';
import { track } from '@breakwater/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Retry, RetryRegistry, type RetryConfig } from './index.js';
import { scripted } from '../test/test-support.js';

let clock: VirtualClock;

beforeEach(() => {
  clock = new VirtualClock();
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

function retry(config: RetryConfig = {}): Retry {
  return new Retry('pg', { clock, ...config });
}

const NO_CALLS = {
  numberOfSuccessfulCallsWithoutRetryAttempt: 0,
  numberOfSuccessfulCallsWithRetryAttempt: 0,
  numberOfFailedCallsWithoutRetryAttempt: 0,
  numberOfFailedCallsWithRetryAttempt: 0,
};

describe('Retry: success', () => {
  it('does not retry a call that succeeds at once', async () => {
    const r = retry();
    const { fn, starts } = scripted(clock, [{ value: 'ok' }]);
    await expect(r.execute(fn)).resolves.toBe('ok');
    expect(starts).toEqual([0]);
    expect(r.metrics).toEqual({ ...NO_CALLS, numberOfSuccessfulCallsWithoutRetryAttempt: 1 });
  });

  it('returns the value of the attempt that succeeds after failures, waiting 500 ms by default', async () => {
    const r = retry();
    const boom = new Error('boom');
    const { fn, starts } = scripted(clock, [{ reject: boom }, { reject: boom }, { value: 'third time' }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call.value).toBe('third time');
    expect(starts).toEqual([0, 500, 1000]);
    expect(r.metrics).toEqual({ ...NO_CALLS, numberOfSuccessfulCallsWithRetryAttempt: 1 });
  });

  it('takes each wait exactly on the clock: 499 ms is not enough, 500 is', async () => {
    const r = retry({ waitDuration: 500 });
    const { fn, starts } = scripted(clock, [{ reject: new Error('1') }, { value: 2 }]);
    const call = track(r.execute(fn));
    await clock.advance(499);
    expect(starts).toHaveLength(1);
    await clock.advance(1);
    expect(starts).toEqual([0, 500]);
    expect(call.value).toBe(2);
  });

  it('hands fn the 1-based attempt number and the caller signal', async () => {
    const r = retry({ waitDuration: 10 });
    const caller = new AbortController();
    const { fn, contexts } = scripted(clock, [{ reject: 'a' }, { reject: 'b' }, { value: 'c' }]);
    const call = track(r.execute(fn, { signal: caller.signal }));
    await clock.runAll();
    expect(call.value).toBe('c');
    expect(contexts.map((c) => c.attempt)).toEqual([1, 2, 3]);
    expect(contexts.every((c) => c.signal === caller.signal)).toBe(true);
  });

  it('numbers its own attempts from 1 under an outer layer that passes down another attempt', async () => {
    const r = retry({ waitDuration: 0 });
    const caller = new AbortController();
    const outer: CallContext = { signal: caller.signal, attempt: 4 };
    const { fn, contexts } = scripted(clock, [{ reject: 'x' }, { value: 'y' }]);
    await expect(r.execute(fn, outer)).resolves.toBe('y');
    expect(contexts.map((c) => c.attempt)).toEqual([1, 2]);
    expect(contexts[0]!.signal).toBe(caller.signal);
  });

  it('passes the context of an outer layer through as it is on the first attempt when its attempt is 1', async () => {
    const r = retry();
    const outer: CallContext = { signal: new AbortController().signal, attempt: 1 };
    let seen: CallContext | undefined;
    await r.execute((ctx) => {
      seen = ctx;
      return 1;
    }, outer);
    expect(seen).toBe(outer);
  });

  it('accepts a plain (non-promise) return value and a thenable', async () => {
    const r = retry();
    await expect(r.execute(() => 5)).resolves.toBe(5);
    await expect(r.execute(() => ({ then: (ok: (v: number) => void) => ok(6) }) as PromiseLike<number>)).resolves.toBe(6);
  });
});

describe('Retry: errors', () => {
  it('rethrows the last error as it is once the attempts are exhausted', async () => {
    const r = retry({ maxAttempts: 3, waitDuration: 100 });
    const errors = [new Error('1'), new Error('2'), new Error('3')];
    const { fn, starts } = scripted(
      clock,
      errors.map((e) => ({ reject: e })),
    );
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call.error).toBe(errors[2]);
    expect(starts).toEqual([0, 100, 200]);
    expect(r.metrics).toEqual({ ...NO_CALLS, numberOfFailedCallsWithRetryAttempt: 1 });
  });

  it('retries a synchronous throw like a rejection', async () => {
    const r = retry({ waitDuration: 0 });
    const { fn, starts } = scripted(clock, [{ throw: new Error('sync') }, { value: 'fine' }]);
    await expect(r.execute(fn)).resolves.toBe('fine');
    expect(starts).toHaveLength(2);
  });

  it('retries TypeErrors (p-retry alone would not)', async () => {
    const r = retry({ maxAttempts: 3, waitDuration: 0 });
    const typeError = new TypeError("Cannot read properties of undefined (reading 'id')");
    const { fn, starts } = scripted(clock, [{ reject: typeError }]);
    await expect(r.execute(fn)).rejects.toBe(typeError);
    expect(starts).toHaveLength(3);
  });

  it.each([['a string'], [undefined], [null], [42], [{ code: 'ECONNRESET' }]])('retries a thrown non-Error (%o) and rethrows it as it is', async (thrown) => {
    const r = retry({ maxAttempts: 2, waitDuration: 0 });
    const { fn, starts } = scripted(clock, [{ throw: thrown }]);
    const call = track(r.execute(fn));
    await clock.runAll();
    expect(call.settled).toBe(true);
    expect(call.error).toBe(thrown);
    expect(starts).toHaveLength(2);
  });

  it('with maxAttempts: 1 never retries', async () => {
    const r = retry({ maxAttempts: 1 });
    const { fn, starts } = scripted(clock, [{ reject: 'no' }]);
    await expect(r.execute(fn)).rejects.toBe('no');
    expect(starts).toEqual([0]);
    expect(r.metrics).toEqual({ ...NO_CALLS, numberOfFailedCallsWithoutRetryAttempt: 1 });
  });

  it('retries only retryExceptions (is-a) and publishes the others as ignoredError', async () => {
    class Transient extends Error {}
    class Flaky extends Transient {}
    const r = retry({ waitDuration: 0, retryExceptions: [Transient] });
    const events: string[] = [];
    r.on('*', (e) => events.push(e.type));
    const flaky = scripted(clock, [{ reject: new Flaky() }, { value: 'ok' }]);
    await expect(r.execute(flaky.fn)).resolves.toBe('ok');
    expect(flaky.starts).toHaveLength(2);
    const other = new RangeError('not transient');
    const permanent = scripted(clock, [{ reject: other }]);
    await expect(r.execute(permanent.fn)).rejects.toBe(other);
    expect(permanent.starts).toHaveLength(1);
    expect(events).toEqual(['retry', 'success', 'ignoredError']);
    expect(r.metrics).toEqual({ ...NO_CALLS, numberOfSuccessfulCallsWithRetryAttempt: 1, numberOfFailedCallsWithoutRetryAttempt: 1 });
  });

  it('ORs retryExceptions with retryOnException', async () => {
    class Transient extends Error {}
    const r = retry({ waitDuration: 0, maxAttempts: 2, retryExceptions: [Transient], retryOnException: (e) => (e as { code?: string }).code === 'ECONNRESET' });
    const byClass = scripted(clock, [{ reject: new Transient() }]);
    const byPredicate = scripted(clock, [{ reject: { code: 'ECONNRESET' } }]);
    const neither = scripted(clock, [{ reject: { code: 'EACCES' } }]);
    await r.execute(byClass.fn).catch(() => {});
    await r.execute(byPredicate.fn).catch(() => {});
    await r.execute(neither.fn).catch(() => {});
    expect([byClass.starts.length, byPredicate.starts.length, neither.starts.length]).toEqual([2, 2, 1]);
  });

  it('lets ignoreExceptions win over retryExceptions and retryOnException', async () => {
    class Transient extends Error {}
    class Fatal extends Transient {}
    const r = retry({ waitDuration: 0, retryExceptions: [Transient], retryOnException: () => true, ignoreExceptions: [Fatal] });
    const ignored: unknown[] = [];
    r.on('ignoredError', (e) => ignored.push(e.error));
    const fatal = new Fatal('stop');
    const { fn, starts } = scripted(clock, [{ reject: fatal }]);
    await expect(r.execute(fn)).rejects.toBe(fatal);
    expect(starts).toHaveLength(1);
    expect(ignored).toEqual([fatal]);
  });

  it('stops at an error that is not to be retried after some retries (counted as failed with retry)', async () => {
    class Fatal extends Error {}
    const r = retry({ waitDuration: 0, maxAttempts: 5, ignoreExceptions: [Fatal] });
    const fatal = new Fatal();
    const { fn, starts } = scripted(clock, [{ reject: new Error('transient') }, { reject: fatal }]);
    await expect(r.execute(fn)).rejects.toBe(fatal);
    expect(starts).toHaveLength(2);
    expect(r.metrics).toEqual({ ...NO_CALLS, numberOfFailedCallsWithRetryAttempt: 1 });
  });

  it('does not retry a CallNotPermittedError unless retryCallNotPermitted (differs from Resilience4j)', async () => {
    const open = new CallNotPermittedError('pg', 'OPEN');
    const strict = retry({ waitDuration: 0 });
    const s = scripted(clock, [{ reject: open }]);
    await expect(strict.execute(s.fn)).rejects.toBe(open);
    expect(s.starts).toHaveLength(1);

    const lenient = retry({ waitDuration: 0, retryCallNotPermitted: true });
    const l = scripted(clock, [{ reject: open }, { value: 'closed again' }]);
    await expect(lenient.execute(l.fn)).resolves.toBe('closed again');
    expect(l.starts).toHaveLength(2);
  });

  it('with retryCallNotPermitted still obeys retryExceptions', async () => {
    const r = retry({ waitDuration: 0, retryCallNotPermitted: true, retryExceptions: [TimeoutError] });
    const { fn, starts } = scripted(clock, [{ reject: new CallNotPermittedError('pg', 'OPEN') }]);
    await expect(r.execute(fn)).rejects.toBeInstanceOf(CallNotPermittedError);
    expect(starts).toHaveLength(1);
  });
});

describe('Retry: decorate, of, defaults, registry', () => {
  it('decorate keeps the parameters and retries each call', async () => {
    const r = retry({ waitDuration: 0 });
    let calls = 0;
    const add = r.decorate((a: number, b: number) => {
      calls++;
      if (calls === 1) throw new Error('first');
      return a + b;
    });
    await expect(add(2, 3)).resolves.toBe(5);
    expect(calls).toBe(2);
  });

  it('of builds the same retry as new', () => {
    const r = Retry.of('pg', { maxAttempts: 7 });
    expect(r).toBeInstanceOf(Retry);
    expect(r.name).toBe('pg');
    expect(r.kind).toBe('retry');
    expect(r.config.maxAttempts).toBe(7);
  });

  it('has Resilience4j defaults: 3 attempts, 500 ms', () => {
    const r = new Retry('defaults');
    expect(r.config.maxAttempts).toBe(3);
    expect(r.config.waitDuration).toBe(500);
    expect(r.config.failAfterMaxAttempts).toBe(false);
    expect(r.config.retryCallNotPermitted).toBe(false);
    expect(r.metrics).toEqual(NO_CALLS);
  });

  it('accepts a duration string for waitDuration', () => {
    expect(retry({ waitDuration: '1.5s' }).config.waitDuration).toBe(1500);
  });

  it('registry: get-or-create with named configs', () => {
    const registry = new RetryRegistry({ defaultConfig: { clock, maxAttempts: 2 }, configs: { patient: { maxAttempts: 6 } } });
    const pg = registry.get('pg');
    expect(registry.get('pg')).toBe(pg);
    expect(pg.config.maxAttempts).toBe(2);
    expect(registry.get('reports', 'patient').config.maxAttempts).toBe(6);
    expect(() => registry.get('x', 'nope')).toThrow(RangeError);
  });
});
