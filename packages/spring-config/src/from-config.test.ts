import { VirtualClock } from '@breakwater/core';
import { health } from '@breakwater/observe';
import { describe, expect, it } from 'vitest';
import { fromConfig } from './from-config.js';
import { classes, GatewayError } from '../test/test-support.js';

// What `yaml.parse(application.yml)` gives for the documents' settings.
const applicationYml = {
  resilience4j: {
    circuitbreaker: {
      configs: {
        default: { 'sliding-window-size': 20, 'failure-rate-threshold': 60, 'wait-duration-in-open-state': '10s', 'register-health-indicator': true },
        slow: { 'base-config': 'default', 'slow-call-duration-threshold': 'PT0.1S', 'slow-call-rate-threshold': 50 },
      },
      instances: {
        'pg-simulator': { 'base-config': 'slow', 'permitted-number-of-calls-in-half-open-state': 5 },
        ledger: { minimumNumberOfCalls: 5 },
      },
    },
    retry: { instances: { pg: { 'max-attempts': 3, 'wait-duration': '500ms' } } },
    timelimiter: { instances: { pg: { 'timeout-duration': '600ms', 'cancel-running-future': true } } },
    bulkhead: { instances: { db: { 'max-concurrent-calls': 10, 'max-wait-duration': 0 } } },
    'thread-pool-bulkhead': {
      instances: { reports: { 'max-thread-pool-size': 4, 'core-thread-pool-size': 2, 'queue-capacity': 10, 'keep-alive-duration': '20ms' } },
    },
    ratelimiter: { instances: { partner: { 'limit-for-period': 10, 'limit-refresh-period': '1s', 'timeout-duration': 0 } } },
  },
};

describe('fromConfig', () => {
  it('builds every kind from Spring-style settings, with kebab-case keys and duration strings', () => {
    const r = fromConfig(applicationYml);
    const pg = r.circuitBreaker.find('pg-simulator')!;
    expect(pg.config).toMatchObject({
      slidingWindowSize: 20,
      failureRateThreshold: 60,
      slowCallDurationThreshold: 100,
      slowCallRateThreshold: 50,
      permittedNumberOfCallsInHalfOpenState: 5,
    });
    expect(pg.config.waitInOpenState(1)).toBe(10_000);
    expect(r.circuitBreaker.find('ledger')!.config).toMatchObject({ slidingWindowSize: 20, minimumNumberOfCalls: 5 });
    expect(r.retry.find('pg')!.config).toMatchObject({ maxAttempts: 3 });
    expect(r.timeLimiter.find('pg')!.config).toMatchObject({ timeoutDuration: 600, cancelRunningFuture: true });
    expect(r.bulkhead.find('db')!.metrics.maxAllowedConcurrentCalls).toBe(10);
    expect(r.poolBulkhead.find('reports')!.metrics).toMatchObject({ maximumThreadPoolSize: 4, coreThreadPoolSize: 2, queueCapacity: 10 });
    expect(r.rateLimiter.find('partner')!.metrics.availablePermissions).toBe(10);
  });

  it('gives a breaker not named in instances the default config (the OpenFeign naming trap)', () => {
    const r = fromConfig(applicationYml);
    const feign = r.circuitBreaker.get('PgPaymentClient#requestPayment(String,PaymentRequest)');
    expect(feign.config.slidingWindowSize).toBe(20);
    expect(feign.config.permittedNumberOfCallsInHalfOpenState).toBe(10); // not pg-simulator's 5
  });

  it("maps allow-health-indicator-to-fail to the breaker's allowHealthIndicatorToFail, which health() reads (contract: docs/observability.md)", () => {
    const r = fromConfig({ resilience4j: { circuitbreaker: { instances: { pg: { 'allow-health-indicator-to-fail': true }, cache: {} } } } });
    expect(r.circuitBreaker.find('pg')!.config.allowHealthIndicatorToFail).toBe(true);
    expect(r.circuitBreaker.find('cache')!.config.allowHealthIndicatorToFail).toBe(false);
    r.circuitBreaker.find('cache')!.transitionToOpenState();
    expect(health(r.circuitBreaker).status).toBe('DEGRADED');
    r.circuitBreaker.find('pg')!.transitionToOpenState();
    expect(health(r.circuitBreaker).status).toBe('DOWN');
  });

  it('accepts the sections without the resilience4j key, and every relaxed spelling', () => {
    const r = fromConfig({ CircuitBreaker: { instances: { a: { sliding_window_size: 7, slidingWindowType: 'TIME_BASED' } } } });
    expect(r.circuitBreaker.find('a')!.config).toMatchObject({ slidingWindowSize: 7, slidingWindowType: 'TIME_BASED' });
  });

  it('reads Spring durations: ms as numbers or digits, units, days and ISO-8601', () => {
    const wait = (v: unknown) =>
      fromConfig({ circuitbreaker: { instances: { x: { 'wait-duration-in-open-state': v } } } })
        .circuitBreaker.find('x')!
        .config.waitInOpenState(1);
    expect(wait(1500)).toBe(1500);
    expect(wait('1500')).toBe(1500);
    expect(wait('1.5m')).toBe(90_000);
    expect(wait('1d')).toBe(86_400_000);
    expect(wait('PT1M30S')).toBe(90_000);
    expect(() => wait('soon')).toThrow(
      "fromConfig: circuitbreaker.instances.x.wait-duration-in-open-state: must be a duration (ms, '500ms', '10s', '2S', '1d' or ISO-8601 like 'PT10S'), got 'soon'",
    );
  });

  it('refuses unknown keys, naming their path', () => {
    expect(() => fromConfig({ resilience4j: { circuitbreaker: { instances: { pg: { 'sliding-window-sise': 5 } } } } })).toThrow(
      /^fromConfig: resilience4j\.circuitbreaker\.instances\.pg\.sliding-window-sise: unknown property/,
    );
    expect(() => fromConfig({ resilience4j: { circuitbreakers: {} } })).toThrow('fromConfig: resilience4j.circuitbreakers: unknown section');
    expect(() => fromConfig({ retry: { instance: {} } })).toThrow('fromConfig: retry.instance: unknown key');
    expect(() => fromConfig({ resilience4j: { retry: { instances: { pg: { 'max-attempts': 3, colour: 'blue' } } } } })).toThrow(
      /^fromConfig: resilience4j\.retry\.instances\.pg\.colour: unknown property \(known: base-config, max-attempts, wait-duration, /,
    );
  });

  it('refuses a bad value with its path and the component’s own message', () => {
    const bad = () => fromConfig({ circuitbreaker: { instances: { pg: { 'failure-rate-threshold': 0 } } } });
    expect(bad).toThrow(RangeError);
    expect(bad).toThrow("fromConfig: circuitbreaker.instances.pg: CircuitBreaker 'pg': failureRateThreshold must be in (0, 100], got 0");
    // A bad named config is named too, when the registry checks configs (or else at its first use).
    expect(() => fromConfig({ retry: { configs: { default: { 'max-attempts': 2 }, patient: { 'max-attempts': 0 } } } })).toThrow(
      /^fromConfig: retry\.configs\.patient: /,
    );
    expect(() => fromConfig({ retry: { configs: { default: { 'max-attempts': 0 } } } })).toThrow(/^fromConfig: retry\.configs\.default: /);
  });

  it('refuses an unknown or looping base-config', () => {
    expect(() => fromConfig({ retry: { instances: { pg: { 'base-config': 'fast' } } } })).toThrow(
      "fromConfig: retry.instances.pg.base-config: no config named 'fast'",
    );
    expect(() => fromConfig({ retry: { configs: { a: { 'base-config': 'b' }, b: { 'base-config': 'a' } } } })).toThrow('base-config loops: a → b → a');
  });

  it('maps exception class names through options.classes, and refuses names it cannot map', () => {
    const r = fromConfig(
      { circuitbreaker: { instances: { pg: { 'record-exceptions': ['com.acme.GatewayException'], 'minimum-number-of-calls': 1 } } } },
      { classes },
    );
    const pg = r.circuitBreaker.find('pg')!;
    pg.onError(0, new Error('not recorded'));
    expect(pg.state).toBe('CLOSED');
    pg.onError(0, new GatewayError());
    expect(pg.state).toBe('OPEN');
    expect(() => fromConfig({ retry: { instances: { pg: { 'retry-exceptions': ['java.io.IOException'] } } } })).toThrow(
      "fromConfig: retry.instances.pg.retry-exceptions: no error class named 'java.io.IOException'",
    );
  });

  it('maps predicates by name through options.predicates', () => {
    const r = fromConfig({ retry: { instances: { pg: { 'result-predicate': 'is503' } } } }, { predicates: { is503: (v) => v === 503 } });
    expect(r.retry.find('pg')!.config.retryOnResult?.(503)).toBe(true);
  });

  it('folds Spring’s exponential and randomised waits into interval functions', () => {
    const r = fromConfig({
      circuitbreaker: {
        instances: {
          pg: {
            'wait-duration-in-open-state': '10s',
            'enable-exponential-backoff': true,
            'exponential-backoff-multiplier': 2,
            'exponential-max-wait-duration-in-open-state': '30s',
          },
        },
      },
      retry: { instances: { pg: { 'wait-duration': 100, 'enable-exponential-backoff': true, 'exponential-backoff-multiplier': 3 } } },
    });
    const breaker = r.circuitBreaker.find('pg')!;
    expect([1, 2, 3, 4].map((a) => breaker.config.waitInOpenState(a))).toEqual([10_000, 20_000, 30_000, 30_000]);
    const retry = r.retry.find('pg')!;
    expect([1, 2, 3].map((a) => retry.config.intervalFunction!(a))).toEqual([100, 300, 900]);
  });

  it('puts the given clock into every instance', async () => {
    const clock = new VirtualClock();
    const r = fromConfig({ circuitbreaker: { instances: { pg: { 'minimum-number-of-calls': 1, 'wait-duration-in-open-state': '1s' } } } }, { clock });
    const pg = r.circuitBreaker.find('pg')!;
    pg.onError(0, new Error('x'));
    expect(pg.tryAcquirePermission()).toBe(false);
    await clock.advance(1001);
    expect(pg.tryAcquirePermission()).toBe(true);
    expect(r.retry.get('any').config.clock).toBe(clock);
  });
});
