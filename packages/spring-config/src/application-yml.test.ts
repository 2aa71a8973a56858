import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fromConfig } from './from-config.js';
import { BusinessError, classes, GatewayError, TimeoutException } from '../test/test-support.js';

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
    expect(r.circuitBreaker.find('PgPaymentClient#requestPayment(String,PaymentRequest)')!.config).toMatchObject({
      slidingWindowType: 'TIME_BASED',
      slidingWindowSize: 30,
      slowCallRateThreshold: 50,
    });
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
    expect(() => fromConfig({ resilience4j: { 'retry..instances': {} } })).toThrow(
      'fromConfig: resilience4j.retry..instances: has an empty name (two dots, or a dot at an end)',
    );
    expect(() => fromConfig({ resilience4j: { retry: { instances: { '[pg.v2': {} } } } })).toThrow(
      "fromConfig: resilience4j.retry.instances.[pg.v2: has a '[' without its ']'",
    );
  });

  it('refuses a value given twice, whether by dotted keys or two spellings of one property', () => {
    expect(() =>
      fromConfig({ 'resilience4j.retry.instances.pg.max-attempts': 2, resilience4j: { retry: { instances: { pg: { 'max-attempts': 3 } } } } }),
    ).toThrow('fromConfig: resilience4j.retry.instances.pg.max-attempts: is given twice');
    expect(() => fromConfig({ retry: { instances: { pg: { 'max-attempts': 2, maxAttempts: 3 } } } })).toThrow(
      'fromConfig: retry.instances.pg.maxAttempts: is given twice (also as retry.instances.pg.max-attempts)',
    );
    expect(() => fromConfig({ resilience4j: { retry: {}, Retry: {} } })).toThrow("fromConfig: resilience4j.Retry: is given twice (also as 'retry')");
  });

  it('holds Spring’s relaxed binding of values: enums in any case, 2S and PT2S, quoted numbers and booleans', () => {
    const cb = (props: Record<string, unknown>) => fromConfig({ circuitbreaker: { instances: { x: props } } }).circuitBreaker.find('x')!.config;
    for (const type of ['time_based', 'time-based', 'TimeBased', 'TIME_BASED', ' time_based '])
      expect(cb({ 'sliding-window-type': type }).slidingWindowType).toBe('TIME_BASED');
    expect(cb({ 'initial-state': 'forced_open' }).initialState).toBe('FORCED_OPEN');
    expect(cb({ 'transition-to-state-after-wait-duration': 'closed' }).transitionToStateAfterWaitDuration).toBe('CLOSED');
    for (const [text, ms] of [
      ['2S', 2000],
      ['2s', 2000],
      ['PT2S', 2000],
      ['pt2s', 2000],
      ['500MS', 500],
      ['1d', 86_400_000],
      ['2000', 2000],
      ['P1DT1H', 90_000_000],
      ['PT0,5S', 500],
      ['1.5m', 90_000],
    ] as const) {
      expect(cb({ 'wait-duration-in-open-state': text }).waitInOpenState(1), text).toBe(ms);
    }
    expect(cb({ 'failure-rate-threshold': '50', 'minimum-number-of-calls': ' 5 ', 'slow-call-rate-threshold': '12.5' })).toMatchObject({
      failureRateThreshold: 50,
      minimumNumberOfCalls: 5,
      slowCallRateThreshold: 12.5,
    });
    for (const [text, value] of [
      ['true', true],
      ['TRUE', true],
      ['on', true],
      ['yes', true],
      ['false', false],
      ['off', false],
      ['no', false],
    ] as const) {
      expect(cb({ 'automatic-transition-from-open-to-half-open-enabled': text }).automaticTransitionFromOpenToHalfOpenEnabled, text).toBe(value);
    }
    // kebab, camel and snake case, and upper case, are one key.
    expect(
      cb({ 'sliding-window-size': 3, minimumNumberOfCalls: 4, permitted_number_of_calls_in_half_open_state: 2, FAILURE_RATE_THRESHOLD: 30 }),
    ).toMatchObject({
      slidingWindowSize: 3,
      minimumNumberOfCalls: 4,
      permittedNumberOfCallsInHalfOpenState: 2,
      failureRateThreshold: 30,
    });
  });

  it('refuses values that do not bind, naming the path of the value', () => {
    const cb = (props: Record<string, unknown>) => () => fromConfig({ resilience4j: { circuitbreaker: { instances: { x: props } } } });
    expect(cb({ 'sliding-window-type': 'hourly' })).toThrow(
      "fromConfig: resilience4j.circuitbreaker.instances.x.sliding-window-type: must be one of 'COUNT_BASED', 'TIME_BASED', got 'hourly'",
    );
    expect(cb({ 'sliding-window-type': 'time_basd' })).toThrow("got 'time_basd'; did you mean 'TIME_BASED'?");
    expect(cb({ 'failure-rate-threshold': 'fifty' })).toThrow(
      "fromConfig: resilience4j.circuitbreaker.instances.x.failure-rate-threshold: must be a number, got 'fifty'",
    );
    expect(cb({ 'automatic-transition-from-open-to-half-open-enabled': 'maybe' })).toThrow(
      "fromConfig: resilience4j.circuitbreaker.instances.x.automatic-transition-from-open-to-half-open-enabled: must be true or false, got 'maybe'",
    );
    expect(cb({ 'sliding-window-size': null })).toThrow(
      'fromConfig: resilience4j.circuitbreaker.instances.x.sliding-window-size: has no value (give one, or remove the key)',
    );
    expect(cb({ 'wait-duration-in-open-state': '2 weeks' })).toThrow('resilience4j.circuitbreaker.instances.x.wait-duration-in-open-state: must be a duration');
    expect(cb({ 'record-failure-predicate': 42 })).toThrow(
      'fromConfig: resilience4j.circuitbreaker.instances.x.record-failure-predicate: must be the name of a predicate, got 42',
    );
    expect(() => fromConfig({ resilience4j: { circuitbreaker: { instances: new Map() } } })).toThrow(
      'fromConfig: resilience4j.circuitbreaker.instances: must be a mapping, got a Map',
    );
  });

  it('says "did you mean" for a misspelt property, section, section key or top-level key', () => {
    expect(() => fromConfig({ resilience4j: { circuitbreaker: { instances: { pg: { 'sliding-window-sise': 5 } } } } })).toThrow(
      "fromConfig: resilience4j.circuitbreaker.instances.pg.sliding-window-sise: unknown property, did you mean 'sliding-window-size'?",
    );
    expect(() => fromConfig({ resilience4j: { retry: { configs: { default: { maxAttemps: 5 } } } } })).toThrow(
      "fromConfig: resilience4j.retry.configs.default.maxAttemps: unknown property, did you mean 'max-attempts'?",
    );
    expect(() => fromConfig({ resilience4j: { circuitbreakers: {} } })).toThrow(
      "fromConfig: resilience4j.circuitbreakers: unknown section, did you mean 'circuitbreaker'?",
    );
    expect(() => fromConfig({ resilience4j: { 'rate-limiter': {}, ratelimitter: {} } })).toThrow(
      "fromConfig: resilience4j.ratelimitter: unknown section, did you mean 'ratelimiter'?",
    );
    expect(() => fromConfig({ retry: { instance: {} } })).toThrow("fromConfig: retry.instance: unknown key, did you mean 'instances'?");
    expect(() => fromConfig({ server: {}, resilence4j: { retry: {} } })).toThrow("fromConfig: resilence4j: unknown key, did you mean 'resilience4j'?");
    // Breakwater's own option names are pointed at their Spring names.
    expect(() => fromConfig({ circuitbreaker: { instances: { pg: { 'record-exception': 'isBad' } } } })).toThrow(
      "fromConfig: circuitbreaker.instances.pg.record-exception: is Breakwater’s name of this option; a Spring config calls it 'record-failure-predicate'",
    );
  });
});
