// fromConfig(…).pipeline(name): the layers Resilience4j's Spring aspects wrap an annotated method in,
// in their order (contract: docs/decorators.md).
import { TimeoutError, VirtualClock, onAbort, type CallContext } from '@breakwater/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { fromConfig } from './from-config.js';

/** Every section names `backendA`; `extra` goes under `resilience4j` too (aspect orders). */
const yml = (extra = '') =>
  parse(`
resilience4j:
  retry:
    instances: { backendA: { max-attempts: 3, wait-duration: 100ms } }
  circuitbreaker:
    instances: { backendA: { sliding-window-size: 10, minimum-number-of-calls: 10 }, other: {} }
  ratelimiter:
    instances: { backendA: { limit-for-period: 10, limit-refresh-period: 10s, timeout-duration: 0 } }
  timelimiter:
    instances: { backendA: { timeout-duration: 500ms } }
  bulkhead:
    instances: { backendA: { max-concurrent-calls: 1, max-wait-duration: 0 } }
${extra}`);

const DEFAULT = "Retry 'backendA' → CircuitBreaker 'backendA' → RateLimiter 'backendA' → TimeLimiter 'backendA' → Bulkhead 'backendA' → fn";

/** Spring's `Ordered.LOWEST_PRECEDENCE`: the innermost an order can put an aspect. */
const LOWEST = 2_147_483_647;

describe('fromConfig(…).pipeline(name): Spring’s aspects around an annotated method', () => {
  it('builds Retry ( CircuitBreaker ( RateLimiter ( TimeLimiter ( Bulkhead ( fn ) ) ) ) ) from the instances of that name, by default', () => {
    const r = fromConfig(yml());
    const pipeline = r.pipeline('backendA');
    expect(pipeline.describe()).toBe(DEFAULT);
    expect(pipeline.name).toBe('backendA');
    expect(pipeline.warnings).toEqual([]);
    // The registries' own instances: the pipeline shares them with whoever gets them by name.
    expect(pipeline.policies).toEqual([
      r.retry.find('backendA'),
      r.circuitBreaker.find('backendA'),
      r.rateLimiter.find('backendA'),
      r.timeLimiter.find('backendA'),
      r.bulkhead.find('backendA'),
    ]);
    for (const [i, policy] of pipeline.policies.entries()) expect(policy).toBe(r.pipeline('backendA').policies[i]);
  });

  it.each([
    ['retry', 'retry-aspect-order', "Retry 'backendA'"],
    ['circuitbreaker', 'circuit-breaker-aspect-order', "CircuitBreaker 'backendA'"],
    ['ratelimiter', 'rate-limiter-aspect-order', "RateLimiter 'backendA'"],
    ['timelimiter', 'time-limiter-aspect-order', "TimeLimiter 'backendA'"],
    ['bulkhead', 'bulkhead-aspect-order', "Bulkhead 'backendA'"],
  ])('moves the %s layer by %s: outermost at 0, innermost at Ordered.LOWEST_PRECEDENCE', (section, key, label) => {
    const others = DEFAULT.replace(' → fn', '')
      .split(' → ')
      .filter((l) => l !== label);
    const outer = fromConfig(yml(`  ${section}.${key}: 0`)).pipeline('backendA');
    expect(outer.describe()).toBe([label, ...others, 'fn'].join(' → '));
    const inner = fromConfig(yml(`  ${section}.${key}: ${LOWEST}`)).pipeline('backendA');
    expect(inner.describe()).toBe([...others, label, 'fn'].join(' → '));
  });

  it('orders by every value given, and its warnings say what a moved order loses', () => {
    const pipeline = fromConfig(
      yml(`
  bulkhead.bulkhead-aspect-order: 1
  circuitbreaker.circuitBreakerAspectOrder: 2
  retry.retry-aspect-order: "3"
  timelimiter.time-limiter-aspect-order: -4
`),
    ).pipeline('backendA');
    expect(pipeline.describe()).toBe(
      "TimeLimiter 'backendA' → Bulkhead 'backendA' → CircuitBreaker 'backendA' → Retry 'backendA' → RateLimiter 'backendA' → fn",
    );
    expect(pipeline.warnings.map((w) => w.code)).toEqual(['TIME_LIMITER_OUTSIDE_CIRCUIT_BREAKER', 'RETRY_INSIDE_BULKHEAD', 'CIRCUIT_BREAKER_OUTSIDE_RETRY']);
  });

  it('keeps Resilience4j’s default order between two aspects of one order (Spring leaves it undefined), and notes the tie', () => {
    // Bulkhead and retry tie at 1: both move out, the retry (further out by default) first.
    const r = fromConfig(yml('  bulkhead.bulkhead-aspect-order: 1\n  retry.retry-aspect-order: 1'));
    expect(r.pipeline('backendA').describe()).toBe(
      "Retry 'backendA' → Bulkhead 'backendA' → CircuitBreaker 'backendA' → RateLimiter 'backendA' → TimeLimiter 'backendA' → fn",
    );
    expect(r.notes.at(-1)).toEqual({
      path: 'resilience4j.bulkhead.bulkhead-aspect-order',
      message:
        "retry and bulkhead have the same aspect order 1: Spring leaves their order undefined; aspectOrder keeps Resilience4j's default order between them",
    });
    // A tie with a default order: the time limiter given the bulkhead's default stays outside it.
    expect(
      fromConfig(yml(`  timelimiter.time-limiter-aspect-order: ${LOWEST - 1}`))
        .pipeline('backendA')
        .describe(),
    ).toBe(DEFAULT);
  });

  it('leaves out the layers of the sections that do not name the instance (as Spring leaves out an annotation’s aspect), and reads backends and limiters', () => {
    const r = fromConfig(
      parse(`
resilience4j:
  retry:
    backends: { pg: { max-attempts: 2 } }
  circuitbreaker:
    instances: { other: {} }
  timelimiter:
    instances: { pg: { timeout-duration: 1s } }
  ratelimiter:
    limiters: { pg: { limit-for-period: 5 } }
`),
    );
    expect(r.pipeline('pg').describe()).toBe("Retry 'pg' → RateLimiter 'pg' → TimeLimiter 'pg' → fn");
    expect(r.pipeline('other').describe()).toBe("CircuitBreaker 'other' → fn");
  });

  it('refuses a name no section has, with the closest one and every section’s names', () => {
    const r = fromConfig(yml());
    expect(() => r.pipeline('backendB')).toThrow(
      new RangeError(
        "fromConfig(…).pipeline('backendB'): no section has an instance named 'backendB' (did you mean 'backendA'?): a pipeline is built from the instances of that name (the file has retry: backendA; circuitbreaker: backendA, other; ratelimiter: backendA; timelimiter: backendA; bulkhead: backendA)",
      ),
    );
    expect(() => fromConfig({}).pipeline('pg')).toThrow(
      "fromConfig(…).pipeline('pg'): no section has an instance named 'pg': a pipeline is built from the instances of that name (the file names no instance)",
    );
    // A name in configs only is not an instance.
    expect(() => fromConfig({ retry: { configs: { pg: { 'max-attempts': 2 } } } }).pipeline('pg')).toThrow(/no section has an instance named 'pg'/);
    expect(() => r.pipeline('')).toThrow(new TypeError("fromConfig(…).pipeline(''): name must be a non-empty string (an instance name), got ''"));
    expect(() => r.pipeline(42 as unknown as string)).toThrow(
      new TypeError('fromConfig(…).pipeline(…): name must be a non-empty string (an instance name), got 42'),
    );
  });

  it('takes the bulkhead section’s instance, else the thread-pool bulkhead’s; bulkheadType chooses, as @Bulkhead(type = …) does', () => {
    const both = fromConfig(
      parse(`
resilience4j:
  bulkhead.instances.pg.max-concurrent-calls: 2
  thread-pool-bulkhead.instances:
    pg: { max-thread-pool-size: 2, core-thread-pool-size: 1, queue-capacity: 1 }
    reports: { max-thread-pool-size: 4, core-thread-pool-size: 2, queue-capacity: 10 }
  timelimiter.instances.reports.timeout-duration: 2s
`),
    );
    expect(both.pipeline('pg').describe()).toBe("Bulkhead 'pg' → fn");
    expect(both.pipeline('pg', { bulkheadType: 'SEMAPHORE' }).describe()).toBe("Bulkhead 'pg' → fn");
    expect(both.pipeline('pg', { bulkheadType: 'THREADPOOL' }).policies).toEqual([both.poolBulkhead.find('pg')]);
    expect(both.pipeline('reports').describe()).toBe("TimeLimiter 'reports' → PoolBulkhead 'reports' → fn");
    expect(() => both.pipeline('reports', { bulkheadType: 'SEMAPHORE' })).toThrow(
      new RangeError("fromConfig(…).pipeline('reports'): bulkheadType 'SEMAPHORE' takes resilience4j.bulkhead.instances.reports, which the file does not have"),
    );
    expect(() => both.pipeline('pg', { bulkheadType: 'semaphore' as 'SEMAPHORE' })).toThrow(
      new RangeError("fromConfig(…).pipeline('pg'): bulkheadType must be one of 'SEMAPHORE', 'THREADPOOL', got 'semaphore'"),
    );
    expect(() => both.pipeline('pg', { type: 'THREADPOOL' } as never)).toThrow(
      new RangeError("fromConfig(…).pipeline('pg'): unknown option 'type' (known: bulkheadType)"),
    );
    expect(() => both.pipeline('pg', null as never)).toThrow(new TypeError("fromConfig(…).pipeline('pg'): options must be an object, got null"));
  });
});

describe('a call through fromConfig(…).pipeline(name), on a VirtualClock', () => {
  let clock = new VirtualClock();
  afterEach(() => {
    const pending = clock.pendingTimers;
    clock = new VirtualClock();
    expect(pending).toBe(0);
  });

  /** Hangs until its signal aborts, on attempts up to `hangs`; then resolves 'paid' after 50 ms. */
  const backend = (hangs: number) =>
    vi.fn(
      (ctx: CallContext) =>
        new Promise<string>((resolve, reject) => {
          if (ctx.attempt <= hangs) {
            onAbort(ctx.signal, () => reject(ctx.signal.reason));
            return;
          }
          clock.setTimeout(() => resolve('paid'), 50);
        }),
    );

  it('by default: each attempt is a breaker call, a permit, a slot, and is timed out on its own', async () => {
    const r = fromConfig(yml(), { clock });
    const fn = backend(2);
    const call = r.pipeline('backendA').execute(fn);
    await clock.runAll();
    await expect(call).resolves.toBe('paid');
    // 500 ms time-out, 100 ms wait, 500 ms time-out, 100 ms wait, 50 ms: the third attempt pays.
    expect(clock.now()).toBe(1250);
    expect(fn).toHaveBeenCalledTimes(3);
    expect(r.circuitBreaker.find('backendA')!.metrics).toMatchObject({ numberOfFailedCalls: 2, numberOfSuccessfulCalls: 1 });
    expect(r.retry.find('backendA')!.metrics.numberOfSuccessfulCallsWithRetryAttempt).toBe(1);
    expect(r.rateLimiter.find('backendA')!.metrics.availablePermissions).toBe(7);
    expect(r.bulkhead.find('backendA')!.metrics.availableConcurrentCalls).toBe(1);
  });

  it('with the time limiter moved outermost (time-limiter-aspect-order: 0): one time-out bounds the whole retried call', async () => {
    const r = fromConfig(yml('  timelimiter.time-limiter-aspect-order: 0'), { clock });
    const fn = backend(2);
    const call = r.pipeline('backendA').execute(fn);
    const settled = expect(call).rejects.toBeInstanceOf(TimeoutError);
    await clock.runAll();
    await settled;
    expect(clock.now()).toBe(500);
    expect(fn).toHaveBeenCalledTimes(1); // the retry never got to wait: the caller was gone
    expect(r.retry.find('backendA')!.metrics.numberOfSuccessfulCallsWithRetryAttempt).toBe(0);
    expect(r.bulkhead.find('backendA')!.metrics.availableConcurrentCalls).toBe(1);
  });
});
