import { BULKHEAD_OPTIONS, POOL_BULKHEAD_OPTIONS } from '@breakwater/bulkhead';
import { CIRCUIT_BREAKER_OPTIONS } from '@breakwater/circuit-breaker';
import { BulkheadFullError, RequestNotPermittedError, VirtualClock } from '@breakwater/core';
import { RATE_LIMITER_OPTIONS } from '@breakwater/rate-limiter';
import { RETRY_OPTIONS } from '@breakwater/retry';
import { TIME_LIMITER_OPTIONS } from '@breakwater/time-limiter';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { fromConfig } from './from-config.js';
import { fromConfigKeyTable } from './key-table.js';

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
    'thread-pool-bulkhead': { instances: { reports: { 'max-thread-pool-size': 4, 'core-thread-pool-size': 2, 'queue-capacity': 10, 'keep-alive-duration': '20ms' } } },
    ratelimiter: { instances: { partner: { 'limit-for-period': 10, 'limit-refresh-period': '1s', 'timeout-duration': 0 } } },
  },
};

/** Whether an error carries stack frames (writableStackTraceEnabled: false leaves the header alone). */
const hasFrames = (error: unknown) => /\n\s+at /.test(String((error as Error).stack));

class GatewayError extends Error {}
class BusinessError extends Error {}
class TimeoutException extends Error {}
const classes = {
  'com.acme.GatewayException': GatewayError,
  'com.acme.BusinessException': BusinessError,
  'java.util.concurrent.TimeoutException': TimeoutException,
};

afterEach(() => {
  vi.restoreAllMocks();
});

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

  it('accepts the sections without the resilience4j key, and every relaxed spelling', () => {
    const r = fromConfig({ CircuitBreaker: { instances: { a: { sliding_window_size: 7, slidingWindowType: 'TIME_BASED' } } } });
    expect(r.circuitBreaker.find('a')!.config).toMatchObject({ slidingWindowSize: 7, slidingWindowType: 'TIME_BASED' });
  });

  it('reads Spring durations: ms as numbers or digits, units, days and ISO-8601', () => {
    const wait = (v: unknown) => fromConfig({ circuitbreaker: { instances: { x: { 'wait-duration-in-open-state': v } } } }).circuitBreaker.find('x')!.config.waitInOpenState(1);
    expect(wait(1500)).toBe(1500);
    expect(wait('1500')).toBe(1500);
    expect(wait('1.5m')).toBe(90_000);
    expect(wait('1d')).toBe(86_400_000);
    expect(wait('PT1M30S')).toBe(90_000);
    expect(() => wait('soon')).toThrow("fromConfig: circuitbreaker.instances.x.wait-duration-in-open-state: must be a duration (ms, '500ms', '10s', '2S', '1d' or ISO-8601 like 'PT10S'), got 'soon'");
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
    expect(() => fromConfig({ retry: { configs: { default: { 'max-attempts': 2 }, patient: { 'max-attempts': 0 } } } })).toThrow(/^fromConfig: retry\.configs\.patient: /);
    expect(() => fromConfig({ retry: { configs: { default: { 'max-attempts': 0 } } } })).toThrow(/^fromConfig: retry\.configs\.default: /);
  });

  it('refuses an unknown or looping base-config', () => {
    expect(() => fromConfig({ retry: { instances: { pg: { 'base-config': 'fast' } } } })).toThrow("fromConfig: retry.instances.pg.base-config: no config named 'fast'");
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
      circuitbreaker: { instances: { pg: { 'wait-duration-in-open-state': '10s', 'enable-exponential-backoff': true, 'exponential-backoff-multiplier': 2, 'exponential-max-wait-duration-in-open-state': '30s' } } },
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

// A whole Spring Boot application.yml, as a Java service would carry it: Spring's own sections next
// to resilience4j, dotted keys, configs.default and instances with base-config, every spelling.
const WHOLE_APPLICATION_YML = `
server:
  port: 8080
  shutdown: graceful
spring:
  application:
    name: payments
  datasource:
    url: jdbc:postgresql://localhost:5432/payments
    hikari:
      maximum-pool-size: 10
  cloud.openfeign.circuitbreaker.enabled: true
management:
  endpoints.web.exposure.include: health,metrics,circuitbreakers
  health.circuitbreakers.enabled: true
logging.level.io.github.resilience4j: DEBUG

resilience4j.circuitbreaker:
  circuit-breaker-aspect-order: 1
  tags:
    service: payments
  configs:
    default:
      register-health-indicator: true
      sliding-window-type: count_based
      sliding-window-size: 20
      minimum-number-of-calls: "10"
      failure-rate-threshold: 60
      wait-duration-in-open-state: 10S
      permitted-number-of-calls-in-half-open-state: 5
      automatic-transition-from-open-to-half-open-enabled: "true"
      event-consumer-buffer-size: 10
      record-exceptions:
        - com.acme.GatewayException
        - java.util.concurrent.TimeoutException
    slow:
      base-config: default
      slowCallDurationThreshold: PT0.1S
      slow_call_rate_threshold: 50
  instances:
    pg-simulator:
      base-config: slow
    "[PgPaymentClient#requestPayment(String,PaymentRequest)]":
      base-config: slow
      sliding-window-type: time_based
      sliding-window-size: 30
resilience4j.circuitbreaker.instances.ledger.minimumNumberOfCalls: 5

resilience4j:
  retry:
    retry-aspect-order: 2
    configs:
      default:
        max-attempts: 3
        wait-duration: 500ms
        enable-exponential-backoff: true
        exponential-backoff-multiplier: 2
        retry-exceptions: com.acme.GatewayException, java.util.concurrent.TimeoutException
        ignore-exceptions:
          - com.acme.BusinessException
    instances:
      pg:
        base-config: default
        max-attempts: 4
  timelimiter:
    configs:
      default:
        timeout-duration: 2s
        cancel-running-future: true
    instances:
      pg:
        timeout-duration: 600ms
  bulkhead:
    instances:
      db:
        max-concurrent-calls: 10
        max-wait-duration: 0
        writable-stack-trace-enabled: false
  thread-pool-bulkhead:
    instances:
      reports:
        max-thread-pool-size: 4
        core-thread-pool-size: 2
        queue-capacity: 10
        keep-alive-duration: 20ms
        writable-stack-trace-enabled: false
  ratelimiter:
    instances:
      partner:
        limit-for-period: 10
        limit-refresh-period: 1s
        timeout-duration: 0
        register-health-indicator: true
        writable-stack-trace-enabled: false
`;

describe('fromConfig on a whole application.yml', () => {
  it('reads a real application.yml parsed by yaml: siblings ignored, dotted keys, relaxed binding, base-config', () => {
    const r = fromConfig(parse(WHOLE_APPLICATION_YML), { classes });
    const pg = r.circuitBreaker.find('pg-simulator')!;
    expect(pg.config).toMatchObject({
      slidingWindowType: 'COUNT_BASED',
      slidingWindowSize: 20,
      minimumNumberOfCalls: 10,
      failureRateThreshold: 60,
      permittedNumberOfCallsInHalfOpenState: 5,
      automaticTransitionFromOpenToHalfOpenEnabled: true,
      slowCallDurationThreshold: 100,
      slowCallRateThreshold: 50,
    });
    expect(pg.config.waitInOpenState(1)).toBe(10_000);
    expect(pg.config.isRecorded(new GatewayError())).toBe(true);
    expect(pg.config.isRecorded(new TimeoutException())).toBe(true);
    expect(pg.config.isRecorded(new Error('other'))).toBe(false);
    // Spring's bracket notation keeps the OpenFeign name whole.
    expect(r.circuitBreaker.find('PgPaymentClient#requestPayment(String,PaymentRequest)')!.config).toMatchObject({ slidingWindowType: 'TIME_BASED', slidingWindowSize: 30, slowCallRateThreshold: 50 });
    // A dotted key at the top level adds an instance to the nested section.
    expect(r.circuitBreaker.find('ledger')!.config).toMatchObject({ minimumNumberOfCalls: 5, slidingWindowSize: 20 });

    const retry = r.retry.find('pg')!;
    expect(retry.config.maxAttempts).toBe(4);
    expect([1, 2, 3].map((a) => retry.config.intervalFunction!(a))).toEqual([500, 1000, 2000]);
    expect(retry.config.isRetryable(new GatewayError())).toBe(true);
    expect(retry.config.isRetryable(new TimeoutException())).toBe(true);
    expect(retry.config.isRetryable(new BusinessError())).toBe(false);
    expect(r.timeLimiter.find('pg')!.config).toMatchObject({ timeoutDuration: 600, cancelRunningFuture: true });
    expect(r.bulkhead.find('db')!.metrics.maxAllowedConcurrentCalls).toBe(10);
    expect(r.poolBulkhead.find('reports')!.metrics).toMatchObject({ maximumThreadPoolSize: 4, coreThreadPoolSize: 2, queueCapacity: 10 });
    expect(r.rateLimiter.find('partner')!.metrics.availablePermissions).toBe(10);
  });

  it('ignores the keys next to resilience4j instead of refusing them', () => {
    const r = fromConfig({
      server: { port: 8080 },
      spring: { application: { name: 'payments' }, profiles: { active: 'prod' } },
      management: { endpoints: { web: { exposure: { include: 'health' } } } },
      resilience4j: { retry: { instances: { pg: { 'max-attempts': 2 } } } },
    });
    expect(r.retry.find('pg')!.config.maxAttempts).toBe(2);
    // An application.yml with no Resilience4j settings at all configures nothing.
    expect(fromConfig({ server: { port: 8080 }, spring: {} }).circuitBreaker.all()).toEqual([]);
    // The keys of others are not checked, even where they would clash or not parse as ours.
    expect(() => fromConfig({ 'spring.a': 1, spring: { a: 2 }, '[odd': 1, 'x..y': 2, resilience4j: {} })).not.toThrow();
  });

  it('reads dotted keys as nesting, everywhere, and [bracketed] names whole', () => {
    const r = fromConfig({
      'resilience4j.circuitbreaker': { instances: { pg: { failureRateThreshold: 40 } } },
      'resilience4j.circuitbreaker.instances.pg.slidingWindowSize': 7,
      resilience4j: { circuitbreaker: { 'instances.pg.minimum-number-of-calls': 3, instances: { '[pg.v2]': { 'sliding-window-size': 9 } } } },
    });
    expect(r.circuitBreaker.find('pg')!.config).toMatchObject({ failureRateThreshold: 40, slidingWindowSize: 7, minimumNumberOfCalls: 3 });
    expect(r.circuitBreaker.find('pg.v2')!.config.slidingWindowSize).toBe(9);
    expect(() => fromConfig({ resilience4j: { 'retry..instances': {} } })).toThrow('fromConfig: resilience4j.retry..instances: has an empty name (two dots, or a dot at an end)');
    expect(() => fromConfig({ resilience4j: { retry: { instances: { '[pg.v2': {} } } } })).toThrow("fromConfig: resilience4j.retry.instances.[pg.v2: has a '[' without its ']'");
  });

  it('refuses a value given twice, whether by dotted keys or two spellings of one property', () => {
    expect(() => fromConfig({ 'resilience4j.retry.instances.pg.max-attempts': 2, resilience4j: { retry: { instances: { pg: { 'max-attempts': 3 } } } } })).toThrow(
      'fromConfig: resilience4j.retry.instances.pg.max-attempts: is given twice',
    );
    expect(() => fromConfig({ retry: { instances: { pg: { 'max-attempts': 2, maxAttempts: 3 } } } })).toThrow(
      'fromConfig: retry.instances.pg.maxAttempts: is given twice (also as retry.instances.pg.max-attempts)',
    );
    expect(() => fromConfig({ resilience4j: { retry: {}, Retry: {} } })).toThrow("fromConfig: resilience4j.Retry: is given twice (also as 'retry')");
  });

  it('holds Spring’s relaxed binding of values: enums in any case, 2S and PT2S, quoted numbers and booleans', () => {
    const cb = (props: Record<string, unknown>) => fromConfig({ circuitbreaker: { instances: { x: props } } }).circuitBreaker.find('x')!.config;
    for (const type of ['time_based', 'time-based', 'TimeBased', 'TIME_BASED', ' time_based ']) expect(cb({ 'sliding-window-type': type }).slidingWindowType).toBe('TIME_BASED');
    expect(cb({ 'initial-state': 'forced_open' }).initialState).toBe('FORCED_OPEN');
    expect(cb({ 'transition-to-state-after-wait-duration': 'closed' }).transitionToStateAfterWaitDuration).toBe('CLOSED');
    for (const [text, ms] of [['2S', 2000], ['2s', 2000], ['PT2S', 2000], ['pt2s', 2000], ['500MS', 500], ['1d', 86_400_000], ['2000', 2000], ['P1DT1H', 90_000_000], ['PT0,5S', 500], ['1.5m', 90_000]] as const) {
      expect(cb({ 'wait-duration-in-open-state': text }).waitInOpenState(1), text).toBe(ms);
    }
    expect(cb({ 'failure-rate-threshold': '50', 'minimum-number-of-calls': ' 5 ', 'slow-call-rate-threshold': '12.5' })).toMatchObject({ failureRateThreshold: 50, minimumNumberOfCalls: 5, slowCallRateThreshold: 12.5 });
    for (const [text, value] of [['true', true], ['TRUE', true], ['on', true], ['yes', true], ['false', false], ['off', false], ['no', false]] as const) {
      expect(cb({ 'automatic-transition-from-open-to-half-open-enabled': text }).automaticTransitionFromOpenToHalfOpenEnabled, text).toBe(value);
    }
    // kebab, camel and snake case, and upper case, are one key.
    expect(cb({ 'sliding-window-size': 3, minimumNumberOfCalls: 4, permitted_number_of_calls_in_half_open_state: 2, FAILURE_RATE_THRESHOLD: 30 })).toMatchObject({
      slidingWindowSize: 3,
      minimumNumberOfCalls: 4,
      permittedNumberOfCallsInHalfOpenState: 2,
      failureRateThreshold: 30,
    });
  });

  it('refuses values that do not bind, naming the path of the value', () => {
    const cb = (props: Record<string, unknown>) => () => fromConfig({ resilience4j: { circuitbreaker: { instances: { x: props } } } });
    expect(cb({ 'sliding-window-type': 'hourly' })).toThrow("fromConfig: resilience4j.circuitbreaker.instances.x.sliding-window-type: must be one of 'COUNT_BASED', 'TIME_BASED', got 'hourly'");
    expect(cb({ 'sliding-window-type': 'time_basd' })).toThrow("got 'time_basd'; did you mean 'TIME_BASED'?");
    expect(cb({ 'failure-rate-threshold': 'fifty' })).toThrow("fromConfig: resilience4j.circuitbreaker.instances.x.failure-rate-threshold: must be a number, got 'fifty'");
    expect(cb({ 'automatic-transition-from-open-to-half-open-enabled': 'maybe' })).toThrow(
      "fromConfig: resilience4j.circuitbreaker.instances.x.automatic-transition-from-open-to-half-open-enabled: must be true or false, got 'maybe'",
    );
    expect(cb({ 'sliding-window-size': null })).toThrow('fromConfig: resilience4j.circuitbreaker.instances.x.sliding-window-size: has no value (give one, or remove the key)');
    expect(cb({ 'wait-duration-in-open-state': '2 weeks' })).toThrow("resilience4j.circuitbreaker.instances.x.wait-duration-in-open-state: must be a duration");
    expect(cb({ 'record-failure-predicate': 42 })).toThrow('fromConfig: resilience4j.circuitbreaker.instances.x.record-failure-predicate: must be the name of a predicate, got 42');
    expect(() => fromConfig({ resilience4j: { circuitbreaker: { instances: new Map() } } })).toThrow('fromConfig: resilience4j.circuitbreaker.instances: must be a mapping, got a Map');
  });

  it('says "did you mean" for a misspelt property, section, section key or top-level key', () => {
    expect(() => fromConfig({ resilience4j: { circuitbreaker: { instances: { pg: { 'sliding-window-sise': 5 } } } } })).toThrow(
      "fromConfig: resilience4j.circuitbreaker.instances.pg.sliding-window-sise: unknown property, did you mean 'sliding-window-size'?",
    );
    expect(() => fromConfig({ resilience4j: { retry: { configs: { default: { maxAttemps: 5 } } } } })).toThrow(
      "fromConfig: resilience4j.retry.configs.default.maxAttemps: unknown property, did you mean 'max-attempts'?",
    );
    expect(() => fromConfig({ resilience4j: { circuitbreakers: {} } })).toThrow("fromConfig: resilience4j.circuitbreakers: unknown section, did you mean 'circuitbreaker'?");
    expect(() => fromConfig({ resilience4j: { 'rate-limiter': {}, ratelimitter: {} } })).toThrow("fromConfig: resilience4j.ratelimitter: unknown section, did you mean 'ratelimiter'?");
    expect(() => fromConfig({ retry: { instance: {} } })).toThrow("fromConfig: retry.instance: unknown key, did you mean 'instances'?");
    expect(() => fromConfig({ server: {}, resilence4j: { retry: {} } })).toThrow("fromConfig: resilence4j: unknown key, did you mean 'resilience4j'?");
    // Breakwater's own option names are pointed at their Spring names.
    expect(() => fromConfig({ circuitbreaker: { instances: { pg: { 'record-exception': 'isBad' } } } })).toThrow(
      "fromConfig: circuitbreaker.instances.pg.record-exception: is Breakwater’s name of this option; a Spring config calls it 'record-failure-predicate'",
    );
  });

  it('maps writable-stack-trace-enabled for the bulkhead, the thread-pool bulkhead and the rate limiter (dropped before)', async () => {
    const clock = new VirtualClock();
    const r = fromConfig(
      {
        resilience4j: {
          bulkhead: { instances: { quiet: { 'max-concurrent-calls': 0, 'writable-stack-trace-enabled': false }, loud: { 'max-concurrent-calls': 0 } } },
          'thread-pool-bulkhead': { instances: { quiet: { 'max-thread-pool-size': 1, 'core-thread-pool-size': 1, 'queue-capacity': 0, 'writable-stack-trace-enabled': 'false' } } },
          ratelimiter: { instances: { quiet: { 'limit-for-period': 1, 'timeout-duration': 0, writableStackTraceEnabled: false } } },
          circuitbreaker: { instances: { quiet: { 'initial-state': 'FORCED_OPEN', 'writable-stack-trace-enabled': false } } },
        },
      },
      { clock },
    );
    const rejection = (p: Promise<unknown>) => p.then(() => expect.fail('the call ran'), (e: unknown) => e);

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
    const r = fromConfig({ resilience4j: { retry: { backends: { pg: { 'max-attempts': 2 } } }, ratelimiter: { limiters: { partner: { 'limit-for-period': 3 } } } } });
    expect(r.retry.find('pg')!.config.maxAttempts).toBe(2);
    expect(r.rateLimiter.find('partner')!.metrics.availablePermissions).toBe(3);
    expect(() => fromConfig({ retry: { instances: { pg: {} }, backends: { pg: {} } } })).toThrow('fromConfig: retry.backends.pg: is given twice (also as retry.instances.pg)');
  });

  it('ignores the JVM-only sections of resilience4j and refuses a Timer, saying why', () => {
    expect(() => fromConfig({ resilience4j: { thread: { type: 'virtual' }, scheduled: { executor: { 'core-thread-pool-size': 4 } } } })).not.toThrow();
    expect(() => fromConfig({ resilience4j: { micrometer: { timer: { instances: { pg: {} } } } } })).toThrow('fromConfig: resilience4j.micrometer: Breakwater has no Timer');
  });

  it('maps interval-bi-function and consume-result-before-retry-attempt by name; the bi-function replaces an inherited wait', () => {
    const waits = (attempt: number) => attempt * 7;
    const consume = () => undefined;
    const r = fromConfig(
      { retry: { configs: { default: { 'wait-duration': '1s', 'enable-exponential-backoff': true } }, instances: { pg: { 'interval-bi-function': 'linear', 'consume-result-before-retry-attempt': 'drain' } } } },
      { functions: { linear: waits, drain: consume } },
    );
    expect(r.retry.find('pg')!.config).toMatchObject({ intervalBiFunction: waits, intervalFunction: undefined, consumeResultBeforeRetryAttempt: consume });
    expect(() => fromConfig({ retry: { instances: { pg: { 'interval-bi-function': 'linear', 'wait-duration': 5 } } } }, { functions: { linear: waits } })).toThrow(
      'fromConfig: retry.instances.pg.interval-bi-function: and retry.instances.pg.wait-duration cannot be given together',
    );
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
          configs: { default: { 'ignore-class-binding-exceptions': true, 'record-exceptions': 'com.acme.GatewayException, com.acme.Gone', 'minimum-number-of-calls': 1 } },
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

describe('the key table of fromConfig', () => {
  const packages = {
    circuitbreaker: CIRCUIT_BREAKER_OPTIONS,
    retry: RETRY_OPTIONS,
    timelimiter: TIME_LIMITER_OPTIONS,
    bulkhead: BULKHEAD_OPTIONS,
    'thread-pool-bulkhead': POOL_BULKHEAD_OPTIONS,
    ratelimiter: RATE_LIMITER_OPTIONS,
  } as const;
  const { sections } = fromConfigKeyTable();

  it('has every option of every package, each mapped or refused with a reason', () => {
    expect(Object.keys(sections)).toEqual(Object.keys(packages));
    for (const [section, options] of Object.entries(packages)) {
      expect(Object.keys(sections[section]!.options), section).toEqual([...options]);
      for (const option of options) {
        const entry = sections[section]!.options[option]!;
        if ('refused' in entry) expect(entry.refused.length, `${section}.${option}`).toBeGreaterThan(20);
        else expect(entry.mapped, `${section}.${option}`).toMatch(/^[a-z-]+$/);
      }
    }
    expect(sections['bulkhead']!.options['writableStackTraceEnabled']).toEqual({ mapped: 'writable-stack-trace-enabled', kind: 'boolean' });
    expect(sections['thread-pool-bulkhead']!.options['writableStackTraceEnabled']).toEqual({ mapped: 'writable-stack-trace-enabled', kind: 'boolean' });
    expect(sections['ratelimiter']!.options['writableStackTraceEnabled']).toEqual({ mapped: 'writable-stack-trace-enabled', kind: 'boolean' });
  });

  it('accepts every mapped key with a value of its kind, and refuses every other option with its reason', () => {
    const sample = { number: '1', boolean: 'true', duration: '1s', classes: ['com.acme.GatewayException'], predicate: 'p', function: 'f' } as const;
    const names = { classes, predicates: { p: () => true }, functions: { f: () => 1 } };
    expect(Object.keys(sections)).toEqual(Object.keys(packages));
    for (const [section, { options }] of Object.entries(sections)) {
      for (const [option, entry] of Object.entries(options)) {
        const key = 'mapped' in entry ? entry.mapped : option;
        const value = 'mapped' in entry ? (entry.kind === 'enum' ? entry.values![0]!.toLowerCase() : sample[entry.kind]) : 1;
        const build = () => fromConfig({ resilience4j: { [section]: { instances: { x: { [key]: value } } } } }, names);
        if ('refused' in entry) expect(build, `${section}.${option}`).toThrow(entry.refused);
        else expect(build, `${section}.${key} = ${String(value)}`).not.toThrow();
      }
    }
  });

  it('knows every property of Resilience4j’s Spring Boot InstanceProperties', () => {
    // From resilience4j-framework-common's Common*ConfigurationProperties.InstanceProperties (2.x).
    const spring: Record<string, readonly string[]> = {
      circuitbreaker: [
        'waitDurationInOpenState', 'slowCallDurationThreshold', 'maxWaitDurationInHalfOpenState', 'transitionToStateAfterWaitDuration', 'failureRateThreshold',
        'slowCallRateThreshold', 'slidingWindowType', 'slidingWindowSize', 'minimumNumberOfCalls', 'permittedNumberOfCallsInHalfOpenState',
        'automaticTransitionFromOpenToHalfOpenEnabled', 'initialState', 'writableStackTraceEnabled', 'allowHealthIndicatorToFail', 'eventConsumerBufferSize',
        'registerHealthIndicator', 'recordFailurePredicate', 'recordExceptions', 'recordResultPredicate', 'ignoreExceptionPredicate', 'ignoreExceptions',
        'enableExponentialBackoff', 'exponentialBackoffMultiplier', 'exponentialMaxWaitDurationInOpenState', 'enableRandomizedWait', 'randomizedWaitFactor',
        'ignoreClassBindingExceptions',
      ],
      retry: [
        'waitDuration', 'intervalBiFunction', 'maxAttempts', 'retryExceptionPredicate', 'resultPredicate', 'consumeResultBeforeRetryAttempt', 'retryExceptions',
        'ignoreExceptions', 'eventConsumerBufferSize', 'enableExponentialBackoff', 'exponentialBackoffMultiplier', 'exponentialMaxWaitDuration',
        'enableRandomizedWait', 'randomizedWaitFactor', 'failAfterMaxAttempts',
      ],
      timelimiter: ['timeoutDuration', 'cancelRunningFuture', 'eventConsumerBufferSize'],
      bulkhead: ['maxConcurrentCalls', 'maxWaitDuration', 'writableStackTraceEnabled', 'eventConsumerBufferSize'],
      'thread-pool-bulkhead': ['eventConsumerBufferSize', 'writableStackTraceEnabled', 'maxThreadPoolSize', 'coreThreadPoolSize', 'queueCapacity', 'keepAliveDuration', 'contextPropagators'],
      ratelimiter: ['limitForPeriod', 'limitRefreshPeriod', 'timeoutDuration', 'subscribeForEvents', 'allowHealthIndicatorToFail', 'registerHealthIndicator', 'eventConsumerBufferSize', 'writableStackTraceEnabled'],
    };
    for (const [section, properties] of Object.entries(spring)) {
      const mapped = new Set(Object.values(sections[section]!.options).flatMap((e) => ('mapped' in e ? [e.mapped] : [])));
      for (const property of properties) {
        const kebab = property.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
        expect(mapped.has(kebab) || kebab in sections[section]!.springOnly, `${section}.${kebab}`).toBe(true);
      }
    }
  });
});

describe('the fromConfig section of the README', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## `fromConfig`'));

  it('has a YAML example that fromConfig reads as it says', () => {
    const example = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
    const r = fromConfig(parse(example));
    expect(r.circuitBreaker.find('pg-simulator')!.config).toMatchObject({ slidingWindowType: 'COUNT_BASED', failureRateThreshold: 60, slowCallDurationThreshold: 100 });
    expect(r.circuitBreaker.find('PgPaymentClient#requestPayment(String,PaymentRequest)')!.config.waitInOpenState(1)).toBe(10_000);
    expect(r.retry.find('pg')!.config.intervalFunction!(2)).toBe(750);
    expect(r.timeLimiter.find('pg')!.config.timeoutDuration).toBe(600);
    expect(r.bulkhead.find('db')!.metrics.maxAllowedConcurrentCalls).toBe(10);
  });

  it('names every key fromConfig ignores and every option it refuses', () => {
    const { sections, otherSections } = fromConfigKeyTable();
    for (const { options, springOnly } of Object.values(sections)) {
      for (const [key, what] of Object.entries(springOnly)) if (what.startsWith('ignored')) expect(section, key).toContain(`\`${key}\``);
      for (const [option, entry] of Object.entries(options)) {
        if ('refused' in entry) expect(section, option).toContain(`\`${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}\``);
        else if ('mapped' in entry && entry.mapped !== option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)) expect(section, option).toContain(`\`${entry.mapped}\` → \`${option}\``);
      }
    }
    for (const name of Object.keys(otherSections)) expect(section, name).toContain(`\`resilience4j.${name}\``);
  });
});
