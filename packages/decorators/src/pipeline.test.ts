import { getEventListeners } from 'node:events';
import { TimeoutError, toContext, VirtualClock, type CallContext, type Policy, type PolicyFn } from '@breakwater/core';
import { ROOT_CONTEXT } from '@breakwater/core/internal';
import { twoFaced } from '@breakwater/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decorate, Pipeline } from './index.js';
import { after, deaf, fakeBulkhead, fakeRateLimiter, fakeRetry, fakeTimeLimiter, racer, recorder, throwingThen, watch } from '../test/test-support.js';

let clock = new VirtualClock();
afterEach(() => {
  // A fresh clock for the next test even when this one failed, so one failure does not cascade.
  const pending = clock.pendingTimers;
  clock = new VirtualClock();
  expect(pending).toBe(0);
});

describe('order of nesting', () => {
  it('runs the first layer written as the outermost and the last one around fn', async () => {
    const log: string[] = [];
    const pipeline = decorate()
      .with(recorder('a', 'first', log))
      .with(recorder('b', 'second', log))
      .with(recorder('c', 'third', log));
    const result = await pipeline.execute(() => {
      log.push('fn');
      return 42;
    });
    expect(result).toBe(42);
    expect(log).toEqual(['>first', '>second', '>third', 'fn', '<third', '<second', '<first']);
  });

  it('the with-methods nest in the order written too', async () => {
    const log: string[] = [];
    const pipeline = decorate()
      .withRetry(fakeRetry('pg', 1, log))
      .withCircuitBreaker(recorder('circuitBreaker', 'cb', log))
      .withTimeLimiter(recorder('timeLimiter', 'tl', log))
      .withBulkhead(recorder('bulkhead', 'bh', log))
      .withRateLimiter(recorder('rateLimiter', 'rl', log))
      .withFallback(() => 'never');
    await pipeline.execute(() => log.push('fn'));
    expect(log).toEqual(['pg#1', '>cb', '>tl', '>bh', '>rl', 'fn', '<rl', '<bh', '<tl', '<cb']);
  });

  it('with zero layers runs fn once with the shared root context', async () => {
    const seen: CallContext[] = [];
    await expect(decorate().execute((ctx) => (seen.push(ctx), 'ok'))).resolves.toBe('ok');
    expect(seen).toEqual([ROOT_CONTEXT]);
    expect(seen[0]).toBe(ROOT_CONTEXT);
  });

  it('a retry outside a breaker makes each attempt its own breaker call', async () => {
    const log: string[] = [];
    const pipeline = decorate()
      .withRetry(fakeRetry('pg', 3, log))
      .withCircuitBreaker(recorder('circuitBreaker', 'pg', log));
    let calls = 0;
    const result = await pipeline.execute(() => {
      if (++calls < 3) throw new Error(`boom ${calls}`);
      return 'paid';
    });
    expect(result).toBe('paid');
    expect(log).toEqual(['pg#1', '>pg', '<pg', 'pg#2', '>pg', '<pg', 'pg#3', '>pg', '<pg']);
  });
});

describe('context', () => {
  it('the attempt a retry sets reaches fn through the layers inside it', async () => {
    const seen: CallContext[] = [];
    const attempts: number[] = [];
    const pipeline = decorate()
      .withRetry(fakeRetry('pg', 3))
      .with(recorder('a', 'inner', [], seen))
      .with(recorder('b', 'innermost', [], seen));
    await expect(
      pipeline.execute((ctx) => {
        attempts.push(ctx.attempt);
        throw new Error('down');
      }),
    ).rejects.toThrow('down');
    expect(attempts).toEqual([1, 2, 3]);
    expect(seen.map((c) => c.attempt)).toEqual([1, 1, 2, 2, 3, 3]);
  });

  it('each layer hands the next the very context it got', async () => {
    const seen: CallContext[] = [];
    const controller = new AbortController();
    let atFn: CallContext | undefined;
    await decorate()
      .with(recorder('a', 'a', [], seen))
      .with(recorder('b', 'b', [], seen))
      .execute((ctx) => void (atFn = ctx), { signal: controller.signal });
    expect(seen).toHaveLength(2);
    expect(seen[1]).toBe(seen[0]);
    expect(atFn).toBe(seen[0]);
    expect(atFn!.signal).toBe(controller.signal);
    expect(atFn!.attempt).toBe(1);
  });

  it('the signal a time limiter sets reaches fn, and aborts it on time-out', async () => {
    const caller = new AbortController();
    let atFn: CallContext | undefined;
    const pipeline = decorate()
      .withTimeLimiter(fakeTimeLimiter('pg', clock, 600))
      .with(recorder('a', 'inner', []));
    const call = pipeline.execute(
      (ctx) => {
        atFn = ctx;
        return after(clock, 1000, 'late')(ctx);
      },
      { signal: caller.signal },
    );
    const outcome = expect(call).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(600);
    await outcome;
    expect(atFn!.signal).not.toBe(caller.signal);
    expect(atFn!.signal.aborted).toBe(true);
    expect(atFn!.signal.reason).toBeInstanceOf(TimeoutError);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('attempt (from an outer retry) and signal (from an inner time limiter) both reach fn', async () => {
    const seen: Array<[number, boolean]> = [];
    const pipeline = decorate()
      .withRetry(fakeRetry('pg', 2))
      .withTimeLimiter(fakeTimeLimiter('pg', clock, 100));
    const call = pipeline.execute((ctx) => {
      seen.push([ctx.attempt, ctx.signal === ROOT_CONTEXT.signal]);
      return ctx.attempt === 1 ? after(clock, 500, 'slow')(ctx) : 'fast';
    });
    await clock.advance(100);
    await expect(call).resolves.toBe('fast');
    expect(seen).toEqual([
      [1, false],
      [2, false],
    ]);
  });

  it("the caller's signal reaches fn, and no listener is left on it after any number of calls", async () => {
    const caller = new AbortController();
    const pipeline = decorate()
      .withFallback(() => 'fallback')
      .withRetry(fakeRetry('pg', 2))
      .withTimeLimiter(fakeTimeLimiter('pg', clock, 100));
    const results: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      const call = pipeline.execute(after(clock, i % 2 === 0 ? 50 : 500, 'ok'), { signal: caller.signal }).then((v) => results.push(v));
      await clock.advance(500);
      await call;
    }
    expect(results).toEqual(['ok', 'fallback', 'ok', 'fallback']);
    const seen: AbortSignal[] = [];
    await decorate()
      .with(recorder('a', 'a', []))
      .execute((ctx) => void seen.push(ctx.signal), { signal: caller.signal });
    expect(seen).toEqual([caller.signal]);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('an abort by the caller during the call rejects with its reason through the layers', async () => {
    const caller = new AbortController();
    const pipeline = decorate()
      .withRetry(fakeRetry('pg', 1))
      .withTimeLimiter(fakeTimeLimiter('pg', clock, 1000));
    const call = pipeline.execute(after(clock, 500, 'ok'), { signal: caller.signal });
    const reason = new Error('user left');
    caller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('an already aborted signal rejects with its reason and enters no layer', async () => {
    const log: string[] = [];
    const fn = vi.fn();
    const reason = new Error('gone');
    const signal = AbortSignal.abort(reason);
    await expect(
      decorate()
        .with(recorder('a', 'a', log))
        .execute(fn, { signal }),
    ).rejects.toBe(reason);
    await expect(decorate().execute(fn, { signal })).rejects.toBe(reason);
    expect(fn).not.toHaveBeenCalled();
    expect(log).toEqual([]);
  });

  it('a layer that calls fn without a context passes down the one it got', async () => {
    const careless: Policy = { name: 'careless', kind: 'custom', execute: async (fn: PolicyFn<unknown>) => (fn as () => unknown)() } as Policy;
    const controller = new AbortController();
    let atFn: CallContext | undefined;
    await decorate()
      .with(careless)
      .execute((ctx) => void (atFn = ctx), { signal: controller.signal });
    expect(atFn?.signal).toBe(controller.signal);
  });

  it('a pipeline takes the CallContext an outer policy passes down, as it is', async () => {
    const inner = decorate().with(recorder('a', 'inner', []));
    let atFn: CallContext | undefined;
    const ctx: CallContext = { signal: new AbortController().signal, attempt: 3 };
    await inner.execute((c) => void (atFn = c), ctx);
    expect(atFn).toBe(ctx);
    // and a pipeline is a Policy an outer one can run
    const outer = decorate()
      .withRetry(fakeRetry('pg', 2))
      .with(recorder('b', 'middle', []));
    const attempts: number[] = [];
    await outer
      .execute((c) =>
        inner.execute((c2) => {
          attempts.push(c2.attempt);
          if (c2.attempt === 1) throw new Error('once');
        }, c),
      )
      .catch(() => {});
    expect(attempts).toEqual([1, 2]);
  });
});

describe('never throws synchronously', () => {
  it('a sync throw in fn is a rejection, with or without layers', async () => {
    const boom = new Error('sync');
    const throwing = (): never => {
      throw boom;
    };
    let call: Promise<unknown> | undefined;
    expect(() => (call = decorate().execute(throwing))).not.toThrow();
    await expect(call).rejects.toBe(boom);
    await expect(
      decorate()
        .with(recorder('a', 'a', []))
        .execute(throwing),
    ).rejects.toBe(boom);
    await expect(
      decorate()
        .with(recorder('a', 'a', []))
        .wrap(throwing)(),
    ).rejects.toBe(boom);
    await expect(decorate().wrap(throwing)()).rejects.toBe(boom);
  });

  it('a thrown non-Error is rethrown as it is', async () => {
    await expect(
      decorate()
        .with(recorder('a', 'a', []))
        .execute(() => {
          throw 'x';
        }),
    ).rejects.toBe('x');
    await expect(
      decorate().execute(() => {
        throw undefined;
      }),
    ).rejects.toBeUndefined();
  });

  it('a custom policy whose execute throws synchronously is a rejection', async () => {
    const rude = {
      name: 'rude',
      kind: 'custom',
      execute: () => {
        throw new Error('rude');
      },
    } as unknown as Policy;
    let call: Promise<unknown> | undefined;
    expect(
      () =>
        (call = decorate()
          .with(rude)
          .execute(() => 1)),
    ).not.toThrow();
    await expect(call).rejects.toThrow('rude');
    await expect(
      decorate()
        .with(rude)
        .wrap(() => 1)(),
    ).rejects.toThrow('rude');
  });

  it('bad arguments to execute are rejections naming the problem', async () => {
    await expect(decorate().execute(42 as unknown as PolicyFn<number>)).rejects.toThrow(
      new TypeError("Pipeline 'pipeline': execute(fn) needs a function, got 42"),
    );
    await expect(decorate().execute(() => 1, { signal: 'nope' as unknown as AbortSignal })).rejects.toBeInstanceOf(TypeError);
  });

  it('a plain value from fn is a resolved promise', async () => {
    const p = decorate()
      .with(recorder('a', 'a', []))
      .execute(() => 7);
    expect(p).toBeInstanceOf(Promise);
    await expect(p).resolves.toBe(7);
  });
});

describe('immutability and reuse', () => {
  it('each with… returns a new pipeline and leaves the original as it was', async () => {
    const log: string[] = [];
    const base = decorate().with(recorder('a', 'a', log));
    const longer = base.with(recorder('b', 'b', log));
    expect(longer).not.toBe(base);
    expect(base.describe()).toBe("a 'a' → fn");
    expect(longer.describe()).toBe("a 'a' → b 'b' → fn");
    expect(base.policies).toHaveLength(1);
    await base.execute(() => log.push('fn'));
    expect(log).toEqual(['>a', 'fn', '<a']);
    const empty = decorate();
    empty.withRetry(fakeRetry('r', 1));
    expect(empty.describe()).toBe('fn');
  });

  it('a pipeline, its layers and its warnings are frozen', () => {
    const p = decorate()
      .withTimeLimiter(recorder('timeLimiter', 'tl', []))
      .withCircuitBreaker(recorder('circuitBreaker', 'cb', []));
    expect(Object.isFrozen(p)).toBe(true);
    expect(Object.isFrozen(p.policies)).toBe(true);
    expect(Object.isFrozen(p.warnings)).toBe(true);
    expect(Object.isFrozen(p.warnings[0])).toBe(true);
    expect(() => ((p.policies as Policy[]).length = 0)).toThrow(TypeError);
    expect(p.warnings).toBe(p.warnings);
  });

  it('one pipeline serves concurrent calls, each with its own fn, arguments and attempts', async () => {
    const pipeline = decorate()
      .withRetry(fakeRetry('pg', 3))
      .withTimeLimiter(fakeTimeLimiter('pg', clock, 1000));
    const send = pipeline.wrap(async (ctx, id: string, failures: number) => {
      await after(clock, 10 * (failures + 1), null)(ctx);
      if (ctx.attempt <= failures) throw new Error(`${id} failed attempt ${ctx.attempt}`);
      return `${id}@${ctx.attempt}`;
    });
    const calls = [send('a', 2), send('b', 0), send('c', 1), pipeline.execute(async (ctx) => `x@${ctx.attempt}`)];
    await clock.advance(200);
    await expect(Promise.all(calls)).resolves.toEqual(['a@3', 'b@1', 'c@2', 'x@1']);
  });
});

describe('wrap', () => {
  it('passes the arguments to fn after the context, on every attempt', async () => {
    const seen: unknown[][] = [];
    const pipeline = decorate()
      .withRetry(fakeRetry('pg', 2))
      .with(recorder('a', 'a', []));
    const send = pipeline.wrap((ctx, to: string, amount: number) => {
      seen.push([ctx.attempt, to, amount]);
      if (ctx.attempt === 1) throw new Error('first');
      return `${to}:${amount}`;
    });
    await expect(send('bob', 12)).resolves.toBe('bob:12');
    expect(seen).toEqual([
      [1, 'bob', 12],
      [2, 'bob', 12],
    ]);
  });

  it('with zero layers calls fn with the root context and the arguments', async () => {
    const fn = vi.fn((ctx: CallContext, a: number, b: number) => (ctx === ROOT_CONTEXT ? a + b : -1));
    await expect(decorate().wrap(fn)(2, 3)).resolves.toBe(5);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('takes a signal for every call', async () => {
    const shutdown = new AbortController();
    const seen: AbortSignal[] = [];
    const call = decorate()
      .with(recorder('a', 'a', []))
      .wrap((ctx, n: number) => (seen.push(ctx.signal), n), { signal: shutdown.signal });
    await call(1);
    expect(seen).toEqual([shutdown.signal]);
    shutdown.abort(new Error('shutting down'));
    await expect(call(2)).rejects.toThrow('shutting down');
    expect(seen).toHaveLength(1);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  it('refuses what is not a function, at once', () => {
    expect(() => decorate().wrap('x' as never)).toThrow(new TypeError("Pipeline 'pipeline': wrap(fn) needs a function, got 'x'"));
    expect(() => decorate('payments').wrap(null as never)).toThrow(new TypeError("Pipeline 'payments': wrap(fn) needs a function, got null"));
  });
});

describe('kind checks at build time', () => {
  const retry = fakeRetry('pg', 1);
  const breaker = recorder('circuitBreaker', 'pg', []);
  it.each([
    [
      'withRetry',
      (p: Policy) => decorate().withRetry(p as never),
      breaker,
      "withRetry: expected a policy of kind 'retry', got kind 'circuitBreaker' (CircuitBreaker 'pg')",
    ],
    [
      'withCircuitBreaker',
      (p: Policy) => decorate().withCircuitBreaker(p as never),
      retry,
      "withCircuitBreaker: expected a policy of kind 'circuitBreaker', got kind 'retry' (Retry 'pg')",
    ],
    [
      'withTimeLimiter',
      (p: Policy) => decorate().withTimeLimiter(p as never),
      breaker,
      "withTimeLimiter: expected a policy of kind 'timeLimiter', got kind 'circuitBreaker' (CircuitBreaker 'pg')",
    ],
    [
      'withBulkhead',
      (p: Policy) => decorate().withBulkhead(p as never),
      retry,
      "withBulkhead: expected a policy of kind 'bulkhead' or 'poolBulkhead', got kind 'retry' (Retry 'pg')",
    ],
    [
      'withRateLimiter',
      (p: Policy) => decorate().withRateLimiter(p as never),
      recorder('audit', 'log', []),
      "withRateLimiter: expected a policy of kind 'rateLimiter', got kind 'audit' (audit 'log')",
    ],
  ])('%s refuses a policy of another kind, naming the method and the kind', (_method, build, policy, message) => {
    expect(() => build(policy)).toThrow(new TypeError(message));
  });

  it('withBulkhead takes both a semaphore and a pool bulkhead', () => {
    const p = decorate()
      .withBulkhead(recorder('bulkhead', 'db', []))
      .withBulkhead(recorder('poolBulkhead', 'cpu', []));
    expect(p.describe()).toBe("Bulkhead 'db' → PoolBulkhead 'cpu' → fn");
  });

  it('every with-method refuses what is not a Policy', () => {
    for (const bad of [undefined, null, 'retry', {}, { name: 'x', kind: 'retry' }, { name: 'x', kind: 'retry', execute: 1 }]) {
      expect(() => decorate().with(bad as never)).toThrow(TypeError);
      expect(() => decorate().withRetry(bad as never)).toThrow(TypeError);
    }
    expect(() => decorate().with(null as never)).toThrow(
      new TypeError('with: expected a Policy (an object with a string name, a string kind and an execute method), got null'),
    );
    expect(() => decorate().withRetry({ name: 'x' } as never)).toThrow(
      new TypeError('withRetry: expected a Policy (an object with a string name, a string kind and an execute method), got an object'),
    );
  });

  it('with() takes any policy, of any kind', async () => {
    const p = decorate()
      .with(fakeRetry('r', 1))
      .with(recorder('audit', 'h', []));
    expect(p.describe()).toBe("Retry 'r' → audit 'h' → fn");
    await expect(p.execute(() => 'ok')).resolves.toBe('ok');
  });

  it('decorate refuses an empty name', () => {
    expect(() => decorate('')).toThrow(new TypeError("decorate: name must be a non-empty string, got ''"));
    expect(decorate('payments').name).toBe('payments');
    expect(decorate().kind).toBe('pipeline');
  });
});

describe('withRateLimiter permits', () => {
  it('one permit (or none given) uses the limiter itself', async () => {
    const log: string[] = [];
    const limiter = fakeRateLimiter('pg', log);
    await decorate()
      .withRateLimiter(limiter)
      .execute(() => 1);
    await decorate()
      .withRateLimiter(limiter, 1)
      .execute(() => 1);
    expect(log).toEqual(['pg×1', 'pg×1']);
  });

  it('more permits use withPermits(n), called once at build time', async () => {
    const log: string[] = [];
    const limiter = fakeRateLimiter('pg', log);
    const spy = vi.spyOn(limiter, 'withPermits');
    const p = decorate().withRateLimiter(limiter, 3);
    expect(spy).toHaveBeenCalledWith(3);
    await p.execute(() => 1);
    await p.execute(() => 1);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(log).toEqual(['pg×3', 'pg×3']);
    expect(p.describe()).toBe("RateLimiter 'pg' (3 permits) → fn");
    expect(p.policies[0]).toBe(limiter);
  });

  it('more permits without withPermits is a TypeError at build time', () => {
    expect(() => decorate().withRateLimiter(recorder('rateLimiter', 'pg', []), 2)).toThrow(
      new TypeError("withRateLimiter: RateLimiter 'pg' has no withPermits(n) method, so it cannot take 2 permits per call"),
    );
  });

  it('refuses a permit count that is not an integer >= 1', () => {
    const limiter = fakeRateLimiter('pg', []);
    expect(() => decorate().withRateLimiter(limiter, 0)).toThrow(new RangeError('withRateLimiter: permits must be an integer >= 1, got 0'));
    expect(() => decorate().withRateLimiter(limiter, 1.5)).toThrow(new RangeError('withRateLimiter: permits must be an integer >= 1, got 1.5'));
    expect(() => decorate().withRateLimiter(limiter, NaN)).toThrow(RangeError);
    expect(() => decorate().withRateLimiter(limiter, '2' as never)).toThrow(new TypeError("withRateLimiter: permits must be a number, got '2'"));
  });

  it('withPermits must give back a policy', () => {
    const limiter = { ...fakeRateLimiter('pg', []), withPermits: () => 'nope' } as never;
    expect(() => decorate().withRateLimiter(limiter, 2)).toThrow(
      new TypeError("withRateLimiter: RateLimiter 'pg'.withPermits(2) must return a policy (with an execute method), got 'nope'"),
    );
  });
});

describe('describe()', () => {
  it('prints the payment example of the contract (docs/decorators.md)', () => {
    const pay = decorate()
      .withRetry(fakeRetry('pg', 3))
      .withCircuitBreaker(recorder('circuitBreaker', 'pg', []))
      .withTimeLimiter(recorder('timeLimiter', 'pg', []));
    expect(pay.describe()).toBe("Retry 'pg' → CircuitBreaker 'pg' → TimeLimiter 'pg' → fn");
    expect(`${pay}`).toBe(pay.describe());
  });

  it('prints every kind, names, permits and fallbacks', () => {
    const p = decorate()
      .withFallback(() => 0)
      .withFallback(() => 0, { name: 'cache', on: [TimeoutError] })
      .withBulkhead(recorder('poolBulkhead', 'cpu', []))
      .withRateLimiter(fakeRateLimiter('api', []), 5)
      .with(recorder('audit', 'h', []));
    expect(p.describe()).toBe("Fallback 'fallback' → Fallback 'cache' → PoolBulkhead 'cpu' → RateLimiter 'api' (5 permits) → audit 'h' → fn");
  });

  it('prints fn alone with zero layers', () => {
    expect(decorate().describe()).toBe('fn');
  });

  it('with(pipeline) appends its layers in their order', async () => {
    const log: string[] = [];
    const inner = decorate()
      .with(recorder('b', 'b', log))
      .with(recorder('c', 'c', log));
    const outer = decorate()
      .with(recorder('a', 'a', log))
      .with(inner)
      .with(recorder('d', 'd', log));
    expect(outer.describe()).toBe("a 'a' → b 'b' → c 'c' → d 'd' → fn");
    expect(outer.policies).toHaveLength(4);
    await outer.execute(() => log.push('fn'));
    expect(log).toEqual(['>a', '>b', '>c', '>d', 'fn', '<d', '<c', '<b', '<a']);
    expect(inner.describe()).toBe("b 'b' → c 'c' → fn");
  });

  it('a pipeline is a Policy', () => {
    const p: Policy = decorate().withRetry(fakeRetry('pg', 1));
    expect(p).toBeInstanceOf(Pipeline);
    expect(p.kind).toBe('pipeline');
    expect(p.name).toBe('pipeline');
  });
});

describe('toContext interplay', () => {
  it('execute accepts the options form and the context form', async () => {
    const signal = new AbortController().signal;
    const seen: CallContext[] = [];
    const p = decorate().with(recorder('a', 'a', []));
    await p.execute((ctx) => void seen.push(ctx), { signal });
    await p.execute((ctx) => void seen.push(ctx), {});
    await p.execute((ctx) => void seen.push(ctx), toContext({ signal }));
    expect(seen.map((c) => c.signal)).toEqual([signal, ROOT_CONTEXT.signal, signal]);
  });
});

describe("a caller's abort ends the call at once (contract: docs/conventions.md), whatever the layers", () => {
  it('with only a user policy that does not race the signal, rejects at once with the reason, not with the late value', async () => {
    const log: string[] = [];
    const caller = new AbortController();
    const call = watch(
      decorate()
        .with(recorder('circuitBreaker', 'cb', log))
        .execute(deaf(clock, 200, 'late'), { signal: caller.signal }),
    );
    await clock.advance(50);
    expect(call.outcomes).toEqual([]);
    const reason = new Error('user left');
    caller.abort(reason);
    await clock.advance(0); // no time passes: the rejection is there at once
    expect(call.outcomes).toEqual([['error', reason]]);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    await clock.advance(150); // fn ends in the background; its late value goes nowhere
    expect(call.outcomes).toEqual([['error', reason]]);
    expect(log).toEqual(['>cb', '<cb']);
  });

  it('with zero layers, and through wrap with or without layers', async () => {
    const caller = new AbortController();
    const zero = watch(decorate().execute(deaf(clock, 200, 'late'), { signal: caller.signal }));
    const shutdown = new AbortController();
    const wrappedZero = watch(decorate().wrap((_ctx, v: string) => deaf(clock, 200, v)(ROOT_CONTEXT), { signal: shutdown.signal })('late'));
    const wrapped = watch(
      decorate()
        .with(recorder('custom', 'c', []))
        .wrap((_ctx, v: string) => deaf(clock, 200, v)(ROOT_CONTEXT), { signal: shutdown.signal })('late'),
    );
    await clock.advance(10);
    const reason = new Error('stop');
    caller.abort(reason);
    shutdown.abort(reason);
    await clock.advance(0);
    expect([zero, wrappedZero, wrapped].map((c) => c.outcomes)).toEqual([[['error', reason]], [['error', reason]], [['error', reason]]]);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
    await clock.advance(200);
    expect(zero.outcomes).toHaveLength(1);
  });

  it('fn that aborts the signal itself, synchronously, rejects with the reason', async () => {
    const caller = new AbortController();
    const reason = new Error('self');
    await expect(
      decorate()
        .with(recorder('custom', 'c', []))
        .execute(
          () => {
            caller.abort(reason);
            return 'value';
          },
          { signal: caller.signal },
        ),
    ).rejects.toBe(reason);
  });

  it('50 calls in flight on one signal add at most one listener to it, and none once they end', async () => {
    const caller = new AbortController();
    const pipeline = decorate()
      .with(recorder('custom', 'a', []))
      .with(recorder('custom', 'b', []));
    const calls = Array.from({ length: 50 }, (_, i) => pipeline.execute(deaf(clock, 10 + i, i), { signal: caller.signal }));
    expect(getEventListeners(caller.signal, 'abort').length).toBeLessThanOrEqual(1);
    await clock.advance(100);
    await expect(Promise.all(calls)).resolves.toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });
});

describe('hostile values and options settle exactly once, never a sync throw (contract: docs/conventions.md)', () => {
  it('fn returning a native promise whose then calls both handlers: one outcome, zero layers or more', async () => {
    for (const pipeline of [decorate(), decorate().with(recorder('custom', 'c', []))]) {
      const returned = pipeline.execute(() => twoFaced('v', new Error('also')));
      expect(Object.hasOwn(returned, 'then')).toBe(false);
      const call = watch(returned);
      await clock.advance(0);
      expect(call.outcomes).toEqual([['value', 'v']]);
      const wrapped = watch(pipeline.wrap(() => twoFaced('w', new Error('also')))());
      await clock.advance(0);
      expect(wrapped.outcomes).toEqual([['value', 'w']]);
    }
  });

  it('a user policy whose execute returns a two-faced promise or a thenable whose then throws', async () => {
    const boom = new Error('then getter');
    const twoFacedPolicy = { name: 'two', kind: 'custom', execute: () => twoFaced('v', new Error('also')) } as unknown as Policy;
    const throwingPolicy = { name: 'throws', kind: 'custom', execute: () => throwingThen(boom) } as unknown as Policy;
    const a = decorate()
      .with(twoFacedPolicy)
      .execute(() => 1);
    const b = decorate()
      .with(throwingPolicy)
      .execute(() => 1);
    expect(Object.hasOwn(a, 'then')).toBe(false);
    const [ca, cb] = [watch(a), watch(b)];
    await clock.advance(0);
    expect(ca.outcomes).toEqual([['value', 'v']]);
    expect(cb.outcomes).toEqual([['error', boom]]);
    // the same inside a bulkhead layer, with a signal (the layer that follows the running attempt)
    const signal = new AbortController().signal;
    const c = watch(
      decorate()
        .withBulkhead(fakeBulkhead('db'))
        .with(twoFacedPolicy)
        .execute(() => 1, { signal }),
    );
    const d = watch(
      decorate()
        .withBulkhead(fakeBulkhead('db'))
        .with(throwingPolicy)
        .execute(() => 1, { signal }),
    );
    await clock.advance(0);
    expect(c.outcomes).toEqual([['value', 'v']]);
    expect(d.outcomes).toEqual([['error', boom]]);
  });

  it("fn returning { get then() { throw } } rejects with the getter's error", async () => {
    const boom = new Error('then getter');
    for (const pipeline of [decorate(), decorate().with(recorder('custom', 'c', []))]) {
      let call: Promise<unknown> | undefined;
      expect(() => (call = pipeline.execute(() => throwingThen(boom)))).not.toThrow();
      await expect(call).rejects.toBe(boom);
      await expect(pipeline.wrap(() => throwingThen(boom))()).rejects.toBe(boom);
    }
  });

  it('options null is no options; a fake signal (even with an attempt) is a TypeError rejection, with nothing run', async () => {
    const fn = vi.fn(() => 'ok');
    for (const pipeline of [decorate(), decorate().with(recorder('custom', 'c', []))]) {
      await expect(pipeline.execute(fn, null as never)).resolves.toBe('ok');
      let call: Promise<unknown> | undefined;
      expect(() => (call = pipeline.execute(fn, { signal: { aborted: false }, attempt: 1 } as never))).not.toThrow();
      await expect(call).rejects.toThrow(new TypeError('execute: options.signal must be an AbortSignal, got an object'));
      expect(() => (call = pipeline.execute(fn, 5 as never))).not.toThrow();
      await expect(call).rejects.toBeInstanceOf(TypeError);
    }
    expect(fn).toHaveBeenCalledTimes(2);
    expect(() => decorate().wrap(fn, { signal: { aborted: false } } as never)).toThrow(TypeError); // wrap checks its options when it is built
  });
});

describe('a bulkhead layer keeps its slot until fn really settles (contract: docs/conventions.md)', () => {
  it("after the caller's abort, while the layers inside it end at once", async () => {
    const bulkhead = fakeBulkhead('db');
    const caller = new AbortController();
    const pipeline = decorate().withBulkhead(bulkhead).withCircuitBreaker(racer('circuitBreaker', 'pg'));
    const call = watch(pipeline.execute(deaf(clock, 200, 'late'), { signal: caller.signal }));
    await clock.advance(10);
    expect(bulkhead.inUse).toBe(1);
    const reason = new Error('user left');
    caller.abort(reason);
    await clock.advance(0);
    expect(call.outcomes).toEqual([['error', reason]]); // the caller is not kept waiting
    expect(bulkhead.inUse).toBe(1); // but fn still runs, so the slot is still taken
    await clock.advance(189);
    expect(bulkhead.inUse).toBe(1);
    await clock.advance(1);
    expect(bulkhead.inUse).toBe(0);
    expect(call.outcomes).toHaveLength(1);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('after an outer time limiter times out (it aborts the signal the bulkhead was given), through with() too', async () => {
    const bulkhead = fakeBulkhead('db');
    const pipeline = decorate()
      .withTimeLimiter(fakeTimeLimiter('pg', clock, 50))
      .with(bulkhead)
      .with(racer('custom', 'inner'));
    const call = watch(pipeline.execute(deaf(clock, 200, 'late')));
    await clock.advance(50);
    expect(call.outcomes).toEqual([['error', new TimeoutError('pg', 50)]]);
    expect(bulkhead.inUse).toBe(1);
    await clock.advance(150);
    expect(bulkhead.inUse).toBe(0);
  });

  it('an inner time-out with the caller still there frees the slot with the time-out (as in Resilience4j): fn was told to stop', async () => {
    const bulkhead = fakeBulkhead('db');
    const pipeline = decorate()
      .withBulkhead(bulkhead)
      .withTimeLimiter(fakeTimeLimiter('pg', clock, 50));
    const call = watch(pipeline.execute(deaf(clock, 200, 'late'), { signal: new AbortController().signal }));
    await clock.advance(50);
    expect(call.outcomes).toEqual([['error', new TimeoutError('pg', 50)]]);
    expect(bulkhead.inUse).toBe(0);
    await clock.advance(150);
  });

  it('a retry inside the bulkhead: the slot waits for the attempt that is running, and only for it', async () => {
    const bulkhead = fakeBulkhead('db');
    const caller = new AbortController();
    const pipeline = decorate().withBulkhead(bulkhead).withRetry(fakeRetry('pg', 3)).with(racer('custom', 'inner'));
    let attempts = 0;
    const call = watch(
      pipeline.execute(
        (ctx) => {
          attempts++;
          if (ctx.attempt === 1) throw new Error('first');
          return deaf(clock, 100, 'late')(ctx);
        },
        { signal: caller.signal },
      ),
    );
    await clock.advance(10);
    caller.abort(new Error('stop'));
    await clock.advance(0);
    expect(call.outcomes).toHaveLength(1);
    expect(attempts).toBe(2);
    expect(bulkhead.inUse).toBe(1);
    await clock.advance(90);
    expect(bulkhead.inUse).toBe(0);
  });
});
