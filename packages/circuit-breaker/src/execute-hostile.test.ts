import { afterEach, describe, expect, it } from 'vitest';
import { BoomError, breakerOnClock, expectNoLeakedTimers } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

const config = { slidingWindowSize: 4, minimumNumberOfCalls: 4, slowCallDurationThreshold: 1000, waitDurationInOpenState: 10_000 } as const;

describe('CircuitBreaker.execute with hostile input', () => {
  it('records a native promise whose own then calls both handlers exactly once (it was recorded twice)', async () => {
    const { breaker, events } = breakerOnClock(config);
    const hostile = Promise.resolve('value');
    Object.defineProperty(hostile, 'then', {
      value(resolve: (v: unknown) => void, reject: (e: unknown) => void) {
        resolve('value');
        reject(new BoomError());
      },
    });
    await expect(breaker.execute(() => hostile)).resolves.toBe('value');
    expect(breaker.metrics.numberOfBufferedCalls).toBe(1);
    expect(events).toEqual(['success']);
  });

  it('settles once for thenables that call back twice or throw, and never throws synchronously', async () => {
    const { breaker } = breakerOnClock(config);
    const boom = new BoomError();
    const twice = { then: (resolve: (v: unknown) => void) => (resolve(1), resolve(2)) };
    const rejectThenResolve = { then: (resolve: (v: unknown) => void, reject: (e: unknown) => void) => (reject(boom), resolve(3)) };
    const throwing = {
      get then(): never {
        throw boom;
      },
    };
    await expect(breaker.execute(() => twice as PromiseLike<number>)).resolves.toBe(1);
    await expect(breaker.execute(() => rejectThenResolve as PromiseLike<number>)).rejects.toBe(boom);
    await expect(breaker.execute(() => throwing as unknown as PromiseLike<number>)).rejects.toBe(boom);
    expect(breaker.metrics).toMatchObject({ numberOfBufferedCalls: 3, numberOfFailedCalls: 2 });
  });

  it('settles once for objects that only look like native promises', async () => {
    const { breaker } = breakerOnClock(config);
    const boom = new BoomError();
    // Passes instanceof Promise, but the native then refuses it: rejects with that TypeError.
    const fake = Object.create(Promise.prototype) as Promise<number>;
    let call: Promise<number> | undefined;
    expect(() => (call = breaker.execute(() => fake))).not.toThrow();
    await expect(call).rejects.toThrow(TypeError);
    // A real promise with a then getter of its own that throws: rejects with the getter's error.
    const getter = Promise.resolve(1);
    Object.defineProperty(getter, 'then', {
      get() {
        throw boom;
      },
    });
    await expect(breaker.execute(() => getter)).rejects.toBe(boom);
    expect(breaker.metrics).toMatchObject({ numberOfBufferedCalls: 2, numberOfFailedCalls: 2 });
  });

  it('never throws synchronously for bad options or a bad fn, and takes no permit for them', async () => {
    const { breaker } = breakerOnClock({ ...config, permittedNumberOfCallsInHalfOpenState: 1, minimumNumberOfCalls: 1 }, 'pg');
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    const fake = { signal: { aborted: false } } as unknown as AbortSignal;
    const calls: [() => Promise<unknown>, RegExp][] = [
      [() => breaker.execute(() => 1, { signal: fake }), /options.signal must be an AbortSignal/],
      [() => breaker.execute(() => 1, { signal: fake, attempt: 1 } as never), /options.signal must be an AbortSignal/],
      [() => breaker.execute(() => 1, 5 as never), /options must be an object/],
      [() => breaker.execute(null as never), /CircuitBreaker 'pg': execute\(fn\) needs a function, got null/],
    ];
    for (const [call, message] of calls) {
      let promise: Promise<unknown> | undefined;
      expect(() => (promise = call())).not.toThrow();
      await expect(promise).rejects.toThrow(message);
    }
    await expect(breaker.execute(() => 'trial', null as never)).resolves.toBe('trial'); // null options: no signal
    expect(breaker.state).toBe('CLOSED'); // the one permit was still there
  });
});
