import { BULKHEAD_OPTIONS, POOL_BULKHEAD_OPTIONS } from '@breakwater/bulkhead';
import { CIRCUIT_BREAKER_OPTIONS } from '@breakwater/circuit-breaker';
import { RATE_LIMITER_OPTIONS } from '@breakwater/rate-limiter';
import { RETRY_OPTIONS } from '@breakwater/retry';
import { TIME_LIMITER_OPTIONS } from '@breakwater/time-limiter';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fromConfig } from './from-config.js';
import { fromConfigKeyTable } from '../test/key-table.js';
import { classes } from '../test/test-support.js';

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
        'waitDurationInOpenState',
        'slowCallDurationThreshold',
        'maxWaitDurationInHalfOpenState',
        'transitionToStateAfterWaitDuration',
        'failureRateThreshold',
        'slowCallRateThreshold',
        'slidingWindowType',
        'slidingWindowSize',
        'minimumNumberOfCalls',
        'permittedNumberOfCallsInHalfOpenState',
        'automaticTransitionFromOpenToHalfOpenEnabled',
        'initialState',
        'writableStackTraceEnabled',
        'allowHealthIndicatorToFail',
        'eventConsumerBufferSize',
        'registerHealthIndicator',
        'recordFailurePredicate',
        'recordExceptions',
        'recordResultPredicate',
        'ignoreExceptionPredicate',
        'ignoreExceptions',
        'enableExponentialBackoff',
        'exponentialBackoffMultiplier',
        'exponentialMaxWaitDurationInOpenState',
        'enableRandomizedWait',
        'randomizedWaitFactor',
        'ignoreClassBindingExceptions',
      ],
      retry: [
        'waitDuration',
        'intervalBiFunction',
        'maxAttempts',
        'retryExceptionPredicate',
        'resultPredicate',
        'consumeResultBeforeRetryAttempt',
        'retryExceptions',
        'ignoreExceptions',
        'eventConsumerBufferSize',
        'enableExponentialBackoff',
        'exponentialBackoffMultiplier',
        'exponentialMaxWaitDuration',
        'enableRandomizedWait',
        'randomizedWaitFactor',
        'failAfterMaxAttempts',
      ],
      timelimiter: ['timeoutDuration', 'cancelRunningFuture', 'eventConsumerBufferSize'],
      bulkhead: ['maxConcurrentCalls', 'maxWaitDuration', 'writableStackTraceEnabled', 'eventConsumerBufferSize'],
      'thread-pool-bulkhead': [
        'eventConsumerBufferSize',
        'writableStackTraceEnabled',
        'maxThreadPoolSize',
        'coreThreadPoolSize',
        'queueCapacity',
        'keepAliveDuration',
        'contextPropagators',
      ],
      ratelimiter: [
        'limitForPeriod',
        'limitRefreshPeriod',
        'timeoutDuration',
        'subscribeForEvents',
        'allowHealthIndicatorToFail',
        'registerHealthIndicator',
        'eventConsumerBufferSize',
        'writableStackTraceEnabled',
      ],
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
    expect(r.circuitBreaker.find('pg-simulator')!.config).toMatchObject({
      slidingWindowType: 'COUNT_BASED',
      failureRateThreshold: 60,
      slowCallDurationThreshold: 100,
    });
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
        else if ('mapped' in entry && entry.mapped !== option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`))
          expect(section, option).toContain(`\`${entry.mapped}\` → \`${option}\``);
      }
    }
    for (const name of Object.keys(otherSections)) expect(section, name).toContain(`\`resilience4j.${name}\``);
  });
});
