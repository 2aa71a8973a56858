// @resilient on real classes (test/tc39/, compiled by tsc with standard decorators) and real
// policies on a VirtualClock: `this` and the arguments kept, a retry's attempts, one breaker for
// every instance or one per instance, the signal a time-out aborts, fallbacks, the refused uses
// (contract: docs/decorators.md).
import { CallNotPermittedError, TimeoutError, VirtualClock } from '@breakwater/core';
import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { Hedge, Retry } from '@breakwater/retry';
import { TimeLimiter } from '@breakwater/time-limiter';
import { afterEach, describe, expect, it } from 'vitest';
import { loadFixture } from '../test/fixture-load.js';
import { breakerOn, order, scripted } from '../test/resilient-support.js';
import * as decorators from './index.js';
import { currentCallContext, decorate, resilient } from './index.js';

type GatewayModule = typeof import('../test/tc39/payment-gateway.js');
type ShapesModule = typeof import('../test/tc39/shapes.js');

const modules = { '@breakwater/decorators': decorators };
const { sharedGateway, TenantGateway } = loadFixture('tc39', 'payment-gateway', modules) as unknown as GatewayModule;
const { shapes, Doubler, Resolving, misuses } = loadFixture('tc39', 'shapes', modules) as unknown as ShapesModule;

let clock = new VirtualClock();
afterEach(() => {
  const pending = clock.pendingTimers;
  clock = new VirtualClock();
  expect(pending).toBe(0);
});

const breaker = (name: string) => breakerOn(clock, name);

describe('@resilient(pipeline): one pipeline for every instance', () => {
  it('runs the method through a Retry and a CircuitBreaker, `this`, arguments and attempts kept', async () => {
    const pgBreaker = new CircuitBreaker('pg', { clock, slidingWindowSize: 10, minimumNumberOfCalls: 10 });
    const pay = decorate('pay')
      .withRetry(new Retry('pg', { maxAttempts: 3, waitDuration: 100, clock }))
      .withCircuitBreaker(pgBreaker);
    const Gateway = sharedGateway(pay);
    const { client, seen } = scripted(['fail', 'fail', 'ok']);
    const call = new Gateway('eu', client).pay(order('o1'));
    const settled = expect(call).resolves.toEqual({ orderId: 'o1', by: 'eu', attempt: 3 });
    await clock.advance(100);
    await clock.advance(100);
    await settled;
    expect(seen.map((s) => s.orderId)).toEqual(['o1', 'o1', 'o1']);
    // Retry outside the breaker: each attempt is its own breaker call.
    expect(pgBreaker.metrics).toMatchObject({ numberOfFailedCalls: 2, numberOfSuccessfulCalls: 1 });
    expect(Gateway.prototype.pay.name).toBe('pay');
  });

  it('shares the breaker: once it opens, every instance is refused without calling its backend', async () => {
    const shared = breaker('pg');
    const Gateway = sharedGateway(decorate().withCircuitBreaker(shared));
    const failing = scripted(['fail', 'fail']);
    const healthy = scripted([]);
    const a = new Gateway('a', failing.client);
    const b = new Gateway('b', healthy.client);
    await expect(a.pay(order('o1'))).rejects.toThrow('502 for o1');
    await expect(a.pay(order('o2'))).rejects.toThrow('502 for o2');
    expect(shared.state).toBe('OPEN');
    await expect(b.pay(order('o3'))).rejects.toBeInstanceOf(CallNotPermittedError);
    expect(healthy.seen).toEqual([]);
  });

  it("gives the method the signal the pipeline's layers abort: a TimeLimiter's time-out", async () => {
    const Gateway = sharedGateway(decorate().withTimeLimiter(new TimeLimiter('pg', { timeoutDuration: 500, clock })));
    const { client, seen } = scripted(['hang']);
    const call = new Gateway('eu', client).pay(order('o1'));
    const settled = expect(call).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(500);
    await settled;
    expect(seen[0]?.signal.aborted).toBe(true);
    expect(seen[0]?.signal.reason).toBeInstanceOf(TimeoutError);
  });

  it("each attempt of a Hedge is its own call of the method, with its own signal: the loser's aborts", async () => {
    const Gateway = sharedGateway(decorate().withHedge(new Hedge('pg', { delay: 100, clock })));
    const { client, seen } = scripted(['hang', 'ok']);
    const call = new Gateway('eu', client).pay(order('o1'));
    const settled = expect(call).resolves.toEqual({ orderId: 'o1', by: 'eu', attempt: 2 });
    await clock.advance(100);
    await settled;
    expect(seen.map((s) => s.signal.aborted)).toEqual([true, false]);
    expect(seen[0]?.signal).not.toBe(seen[1]?.signal);
  });

  it("hands a fallback the method's arguments; other errors and values pass as they are", async () => {
    const handled: unknown[][] = [];
    const quotes = decorate().withFallback((error, ...args: unknown[]) => {
      handled.push([(error as Error).message, ...args]);
      return null;
    });
    const Quotes = shapes(quotes, breaker('q'));
    const q = new Quotes('Q:');
    await expect(q.quote('ACME', false)).resolves.toBe('Q:ACME');
    await expect(q.quote('ACME', true)).resolves.toBeNull();
    expect(handled).toEqual([['no quote for ACME', 'ACME', true]]);
  });

  it('decorates a static method (`this` is the class) and a private one', async () => {
    const Quotes = shapes(decorate(), breaker('q'));
    await expect(Quotes.count()).resolves.toBe(1);
    await expect(Quotes.count()).resolves.toBe(2);
    expect(Quotes.counted).toBe(2);
    await expect(new Doubler(breaker('d')).double(21)).resolves.toBe(42);
  });

  it('turns a sync method into one returning a promise, its throw into a rejection (the types refuse it)', async () => {
    const q = new (shapes(decorate(), breaker('q')))('');
    const value: unknown = q.sync(7);
    expect(value).toBeInstanceOf(Promise);
    await expect(value).resolves.toBe(7);
    await expect(q.sync(-1)).rejects.toThrow(RangeError);
  });

  it('a call without `this` runs as the method would (nothing cached for it)', async () => {
    const Quotes = shapes(decorate(), breaker('q'));
    const { count } = Quotes;
    await expect(count()).rejects.toBeInstanceOf(TypeError);
  });
});

describe('@resilient((self) => pipeline): the pipeline of each instance', () => {
  it('resolves it once per instance, keeps it in a WeakMap, and each instance has its own breaker', async () => {
    const before = TenantGateway.resolved;
    const breakerA = breaker('a');
    const a = new TenantGateway('a', decorate().withCircuitBreaker(breakerA), scripted(['fail', 'fail']).client);
    const b = new TenantGateway(
      'b',
      decorate()
        .withRetry(new Retry('b', { maxAttempts: 2, waitDuration: 10, clock }))
        .withCircuitBreaker(breaker('b')),
      scripted(['fail']).client,
    );
    await expect(a.pay(order('o1'))).rejects.toThrow('502');
    await expect(a.pay(order('o2'))).rejects.toThrow('502');
    await expect(a.pay(order('o3'))).rejects.toBeInstanceOf(CallNotPermittedError);
    expect(breakerA.state).toBe('OPEN');
    const call = b.pay(order('o4'));
    const settled = expect(call).resolves.toEqual({ orderId: 'o4', by: 'b', attempt: 2 });
    await clock.advance(10);
    await settled;
    expect(TenantGateway.resolved - before).toBe(2);
    expect(Reflect.ownKeys(a)).toEqual(['name', 'pipeline', 'client']);
  });

  it('a function returning no pipeline rejects that call with a TypeError, and runs again on the next', async () => {
    const r = new Resolving(42);
    await expect(r.run()).rejects.toThrow(/^@resilient method 'run': the function given to resilient\(\) must return a Pipeline or a Policy for .*, got 42$/);
    r.pipeline = breaker('r'); // a Policy is taken as a pipeline of one layer
    await expect(r.run()).resolves.toBe('ran');
  });
});

describe('currentCallContext()', () => {
  it('throws outside a @resilient method, and after its first await', async () => {
    expect(() => currentCallContext()).toThrow(/no @resilient method is running here .* before its first await/);
    const q = new (shapes(decorate(), breaker('q')))('');
    await expect(q.late()).rejects.toThrow(/no @resilient method is running here/);
  });

  it('a nested @resilient call has its own context and gives the outer one back', async () => {
    const q = new (shapes(decorate(), breaker('q')))('');
    await expect(q.outer()).resolves.toEqual([1, 101, 1]);
  });
});

describe('refused uses', () => {
  it('anything but a method is a TypeError when the class is defined', () => {
    const uses = misuses(breaker('m'));
    expect(() => uses['getter']?.()).toThrow("@resilient decorates a class method; 'total' is a getter (decorate a method returning a promise)");
    expect(() => uses['setter']?.()).toThrow("'total' is a setter");
    expect(() => uses['field']?.()).toThrow("'run' is a field");
    expect(() => uses['accessor']?.()).toThrow("'total' is an accessor");
    expect(() => uses['class']?.()).toThrow("'Decorated' is a class");
  });

  it('resilient() needs a Pipeline, a Policy or a function', () => {
    // @ts-expect-error not a pipeline
    expect(() => resilient(42)).toThrow('resilient: needs a Pipeline, a Policy, or a function (self) => pipeline; got 42');
    // @ts-expect-error an object without execute
    expect(() => resilient({ name: 'x' })).toThrow(TypeError);
  });

  it('called with neither a decorator context nor a property key, it says so (the legacy form: src/resilient-legacy.test.ts)', () => {
    const misused = resilient(decorate()) as unknown as (method: unknown, context: unknown) => unknown;
    expect(() => misused(async () => 1, { name: 'm' })).toThrow(
      /^@resilient: called with neither a decorator context nor a property key \(got .*\): apply it to a class method with @$/,
    );
  });
});
