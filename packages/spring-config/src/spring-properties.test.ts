import { BulkheadFullError, RequestNotPermittedError, VirtualClock } from '@breakwater/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fromConfig } from './from-config.js';
import { classes, GatewayError } from '../test/test-support.js';

// The rest of 'fromConfig on a whole application.yml' (application-yml.test.ts): stack traces, the
// legacy names of instances, the JVM-only sections, waits, lenient class binding.

/** Whether an error carries stack frames (writableStackTraceEnabled: false leaves the header alone). */
const hasFrames = (error: unknown) => /\n\s+at /.test(String((error as Error).stack));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('fromConfig on a whole application.yml', () => {
  it('maps writable-stack-trace-enabled for the bulkhead, the thread-pool bulkhead and the rate limiter (dropped before)', async () => {
    const clock = new VirtualClock();
    const r = fromConfig(
      {
        resilience4j: {
          bulkhead: { instances: { quiet: { 'max-concurrent-calls': 0, 'writable-stack-trace-enabled': false }, loud: { 'max-concurrent-calls': 0 } } },
          'thread-pool-bulkhead': {
            instances: { quiet: { 'max-thread-pool-size': 1, 'core-thread-pool-size': 1, 'queue-capacity': 0, 'writable-stack-trace-enabled': 'false' } },
          },
          ratelimiter: { instances: { quiet: { 'limit-for-period': 1, 'timeout-duration': 0, writableStackTraceEnabled: false } } },
          circuitbreaker: { instances: { quiet: { 'initial-state': 'FORCED_OPEN', 'writable-stack-trace-enabled': false } } },
        },
      },
      { clock },
    );
    const rejection = (p: Promise<unknown>) =>
      p.then(
        () => expect.fail('the call ran'),
        (e: unknown) => e,
      );

    const quiet = await rejection(r.bulkhead.find('quiet')!.execute(() => 1));
    expect(quiet).toBeInstanceOf(BulkheadFullError);
    expect(hasFrames(quiet)).toBe(false);
    expect(hasFrames(await rejection(r.bulkhead.find('loud')!.execute(() => 1)))).toBe(true);

    let release!: () => void;
    const pool = r.poolBulkhead.find('quiet')!;
    const running = pool.execute(() => new Promise<void>((resolve) => (release = resolve)));
    const full = await rejection(pool.execute(() => 1));
    expect(full).toBeInstanceOf(BulkheadFullError);
    expect(hasFrames(full)).toBe(false);
    release();
    await running;

    const limiter = r.rateLimiter.find('quiet')!;
    await limiter.execute(() => 1);
    const refused = await rejection(limiter.execute(() => 1));
    expect(refused).toBeInstanceOf(RequestNotPermittedError);
    expect(hasFrames(refused)).toBe(false);

    expect(hasFrames(await rejection(r.circuitBreaker.find('quiet')!.execute(() => 1)))).toBe(false);
  });

  it('takes the legacy names of instances (backends, limiters), and refuses one instance under both', () => {
    const r = fromConfig({
      resilience4j: { retry: { backends: { pg: { 'max-attempts': 2 } } }, ratelimiter: { limiters: { partner: { 'limit-for-period': 3 } } } },
    });
    expect(r.retry.find('pg')!.config.maxAttempts).toBe(2);
    expect(r.rateLimiter.find('partner')!.metrics.availablePermissions).toBe(3);
    expect(() => fromConfig({ retry: { instances: { pg: {} }, backends: { pg: {} } } })).toThrow(
      'fromConfig: retry.backends.pg: is given twice (also as retry.instances.pg)',
    );
  });

  it('ignores the JVM-only sections of resilience4j and refuses a Timer, saying why', () => {
    expect(() => fromConfig({ resilience4j: { thread: { type: 'virtual' }, scheduled: { executor: { 'core-thread-pool-size': 4 } } } })).not.toThrow();
    expect(() => fromConfig({ resilience4j: { micrometer: { timer: { instances: { pg: {} } } } } })).toThrow(
      'fromConfig: resilience4j.micrometer: Breakwater has no Timer',
    );
  });

  it('maps interval-bi-function and consume-result-before-retry-attempt by name; the bi-function replaces an inherited wait', () => {
    const waits = (attempt: number) => attempt * 7;
    const consume = () => undefined;
    const r = fromConfig(
      {
        retry: {
          configs: { default: { 'wait-duration': '1s', 'enable-exponential-backoff': true } },
          instances: { pg: { 'interval-bi-function': 'linear', 'consume-result-before-retry-attempt': 'drain' } },
        },
      },
      { functions: { linear: waits, drain: consume } },
    );
    expect(r.retry.find('pg')!.config).toMatchObject({ intervalBiFunction: waits, intervalFunction: undefined, consumeResultBeforeRetryAttempt: consume });
    expect(() =>
      fromConfig({ retry: { instances: { pg: { 'interval-bi-function': 'linear', 'wait-duration': 5 } } } }, { functions: { linear: waits } }),
    ).toThrow('fromConfig: retry.instances.pg.interval-bi-function: and retry.instances.pg.wait-duration cannot be given together');
    expect(() => fromConfig({ retry: { instances: { pg: { 'interval-bi-function': 'nope' } } } })).toThrow(
      "fromConfig: retry.instances.pg.interval-bi-function: no function named 'nope': pass it in fromConfig(config, { functions: { 'nope': … } })",
    );
  });

  it('lets an instance’s constant wait replace the default config’s backoff (they clashed before)', () => {
    const r = fromConfig({
      circuitbreaker: {
        configs: { default: { 'wait-duration-in-open-state': '10s', 'enable-exponential-backoff': true }, fixed: { 'wait-duration-in-open-state': '5s' } },
        instances: { pg: { 'base-config': 'fixed' }, other: { 'enable-exponential-backoff': false } },
      },
      retry: { configs: { default: { 'wait-duration': 100, 'enable-randomized-wait': true } }, instances: { pg: { 'enable-randomized-wait': 'false' } } },
    });
    expect([1, 2].map((a) => r.circuitBreaker.find('pg')!.config.waitInOpenState(a))).toEqual([5000, 5000]);
    expect([1, 2].map((a) => r.circuitBreaker.find('other')!.config.waitInOpenState(a))).toEqual([10_000, 10_000]);
    expect(r.retry.find('pg')!.config).toMatchObject({ waitDuration: 100, intervalFunction: undefined });
  });

  it('refuses exponential and randomised waits together for a breaker, as Spring does', () => {
    expect(() => fromConfig({ circuitbreaker: { instances: { pg: { 'enable-exponential-backoff': true, 'enable-randomized-wait': true } } } })).toThrow(
      'fromConfig: circuitbreaker.instances.pg: enable-exponential-backoff (circuitbreaker.instances.pg.enable-exponential-backoff) and enable-randomized-wait (circuitbreaker.instances.pg.enable-randomized-wait) cannot both be true',
    );
  });

  it('names the wait key an interval function refuses', () => {
    expect(() => fromConfig({ retry: { instances: { pg: { 'enable-exponential-backoff': true, 'exponential-backoff-multiplier': 0.5 } } } })).toThrow(
      'fromConfig: retry.instances.pg.exponential-backoff-multiplier: IntervalFunction.ofExponentialBackoff: multiplier must be a finite number >= 1, got 0.5',
    );
  });

  it('skips unknown exception classes with one warning under ignore-class-binding-exceptions', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const r = fromConfig(
      {
        circuitbreaker: {
          configs: {
            default: { 'ignore-class-binding-exceptions': true, 'record-exceptions': 'com.acme.GatewayException, com.acme.Gone', 'minimum-number-of-calls': 1 },
          },
          instances: { a: {}, b: {} },
        },
      },
      { classes },
    );
    expect(r.circuitBreaker.find('a')!.config.isRecorded(new GatewayError())).toBe(true);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(
      "fromConfig: circuitbreaker.configs.default.record-exceptions: no error class named 'com.acme.Gone'; skipped (ignore-class-binding-exceptions is true)",
      { type: 'BreakwaterConfigWarning' },
    );
  });
});
