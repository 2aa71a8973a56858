import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fromConfig } from './from-config.js';
import { classes } from '../test/test-support.js';

// fromConfig on the Spring files services really have (issue 18, item 14): Resilience4j Spring
// Boot's metrics switches, placeholders, several unmapped names at once, the aspect orders, long
// base-config chains and cyclic objects.

/** The error `build` throws (fails the test when it throws none). */
function thrown(build: () => unknown): Error {
  try {
    build();
  } catch (error) {
    return error as Error;
  }
  return expect.fail('nothing was thrown');
}

describe('fromConfig: Resilience4j Spring Boot’s metrics switches', () => {
  it('reads metrics.enabled and metrics.legacy.enabled of every section, ignores them and says so in notes', () => {
    const r = fromConfig(
      parse(`
resilience4j:
  circuitbreaker:
    metrics:
      enabled: true
      legacy.enabled: false
    instances:
      pg: { sliding-window-size: 5, register-health-indicator: true }
  retry.metrics.enabled: false
  timelimiter.metrics: { enabled: "true" }
  bulkhead.metrics.legacy.enabled: true
  thread-pool-bulkhead.metrics.enabled: true
  ratelimiter.metrics.enabled: false
`),
    );
    expect(r.circuitBreaker.find('pg')!.config.slidingWindowSize).toBe(5);
    expect(r.notes.map((n) => n.path)).toEqual([
      'resilience4j.circuitbreaker.metrics.enabled',
      'resilience4j.circuitbreaker.metrics.legacy.enabled',
      'resilience4j.circuitbreaker.instances.pg.register-health-indicator',
      'resilience4j.retry.metrics.enabled',
      'resilience4j.timelimiter.metrics.enabled',
      'resilience4j.bulkhead.metrics.legacy.enabled',
      'resilience4j.thread-pool-bulkhead.metrics.enabled',
      'resilience4j.ratelimiter.metrics.enabled',
    ]);
    expect(r.notes[0]!.message).toMatch(/^ignored: Resilience4j’s Micrometer metrics/);
    expect(r.notes[2]!.message).toMatch(/^ignored: a Spring Boot Actuator health indicator/);
  });

  it('refuses a misspelt or ill-typed metrics key, naming its path', () => {
    expect(() => fromConfig({ retry: { metrics: { enable: true } } })).toThrow("fromConfig: retry.metrics.enable: unknown key, did you mean 'enabled'?");
    expect(() => fromConfig({ retry: { metrics: { enabled: 'maybe' } } })).toThrow("fromConfig: retry.metrics.enabled: must be true or false, got 'maybe'");
    expect(() => fromConfig({ retry: { metrics: { legacy: { enabled: 'sure' } } } })).toThrow(
      "fromConfig: retry.metrics.legacy.enabled: must be true or false, got 'sure'",
    );
  });

  it('lists the ignored keys of the JVM-only sections and the section tags in notes', () => {
    const r = fromConfig({ resilience4j: { thread: { type: 'virtual' }, retry: { tags: { app: 'payments' } } } });
    expect(r.notes.map((n) => n.path)).toEqual(['resilience4j.thread', 'resilience4j.retry.tags']);
    expect(fromConfig({ retry: { instances: { pg: { 'max-attempts': 2 } } } }).notes).toEqual([]);
  });
});

describe('fromConfig: Spring placeholders', () => {
  it('resolves ${NAME} and ${NAME:default} from the env option', () => {
    const yml = parse(`
resilience4j.circuitbreaker.instances.pg:
  wait-duration-in-open-state: \${CB_WAIT:5000}
  sliding-window-size: \${CB_SIZE}
  failure-rate-threshold: "\${CB_RATE:50}"
  record-exceptions: \${CB_RECORD:com.acme.GatewayException}
`);
    const pg = (env: Record<string, string>) => fromConfig(yml, { env, classes }).circuitBreaker.find('pg')!.config;
    expect(pg({ CB_SIZE: '7' })).toMatchObject({ slidingWindowSize: 7, failureRateThreshold: 50 });
    expect(pg({ CB_SIZE: '7' }).waitInOpenState(1)).toBe(5000);
    expect(pg({ CB_SIZE: '7', CB_WAIT: '2s', CB_RATE: '25' })).toMatchObject({ slidingWindowSize: 7, failureRateThreshold: 25 });
    expect(pg({ CB_SIZE: '7', CB_WAIT: '2s' }).waitInOpenState(1)).toBe(2000);
  });

  it('reads process.env by default', () => {
    process.env['BREAKWATER_TEST_ATTEMPTS'] = '4';
    try {
      expect(fromConfig({ retry: { instances: { pg: { 'max-attempts': '${BREAKWATER_TEST_ATTEMPTS}' } } } }).retry.find('pg')!.config.maxAttempts).toBe(4);
    } finally {
      delete process.env['BREAKWATER_TEST_ATTEMPTS'];
    }
  });

  it('refuses a placeholder with no value and no default, naming the path and the variable', () => {
    expect(() => fromConfig({ retry: { instances: { pg: { 'max-attempts': '${PG_ATTEMPTS}' } } } }, { env: {} })).toThrow(
      "fromConfig: retry.instances.pg.max-attempts: placeholder '${PG_ATTEMPTS}' has no value: 'PG_ATTEMPTS' is not in env nor a property of the file, and it has no default (write '${PG_ATTEMPTS:<default>}')",
    );
  });

  it('finds a dotted name in env as Spring does (pg.attempts → PG_ATTEMPTS), nests defaults, and keeps \\${ as text', () => {
    const attempts = (value: string, env: Record<string, string>) =>
      fromConfig({ retry: { instances: { pg: { 'max-attempts': value } } } }, { env }).retry.find('pg')!.config.maxAttempts;
    expect(attempts('${pg.attempts}', { PG_ATTEMPTS: '6' })).toBe(6);
    expect(attempts('${pg.max-attempts}', { PG_MAX_ATTEMPTS: '6' })).toBe(6);
    expect(attempts('${A:${B:5}}', {})).toBe(5);
    expect(attempts('${A:${B:5}}', { B: '8' })).toBe(8);
    expect(attempts('${${WHICH}}', { WHICH: 'N', N: '9' })).toBe(9);
    expect(attempts('${A:1}${B:2}', {})).toBe(12);
    expect(() => attempts('\\${A:1}', {})).toThrow("fromConfig: retry.instances.pg.max-attempts: must be a number, got '${A:1}'");
    expect(() => attempts('${A:1', {})).toThrow("fromConfig: retry.instances.pg.max-attempts: has a '${' without its '}' (write '\\${' for the text '${')");
  });

  it('resolves a placeholder to another property of the same file, env first, and refuses a loop', () => {
    const yml = parse(`
app.pg:
  wait: 10s
  attempts: \${PG_ATTEMPTS:\${app.pg.fallback-attempts}}
  fallback-attempts: 2
resilience4j:
  retry.instances.pg: { max-attempts: '\${app.pg.attempts}', wait-duration: '\${app.pg.wait}' }
  circuitbreaker.instances.pg.base-config: \${BASE:fast}
  circuitbreaker.configs.fast.wait-duration-in-open-state: \${app.pg.wait}
`);
    const r = fromConfig(yml, { env: {} });
    expect(r.retry.find('pg')!.config).toMatchObject({ maxAttempts: 2, waitDuration: 10_000 });
    expect(r.circuitBreaker.find('pg')!.config.waitInOpenState(1)).toBe(10_000);
    expect(fromConfig(yml, { env: { 'app.pg.wait': '3s', PG_ATTEMPTS: '5' } }).retry.find('pg')!.config).toMatchObject({ maxAttempts: 5, waitDuration: 3000 });
    expect(() => fromConfig({ a: '${b}', b: '${a}', resilience4j: { retry: { instances: { pg: { 'max-attempts': '${a}' } } } } }, { env: {} })).toThrow(
      "fromConfig: resilience4j.retry.instances.pg.max-attempts: placeholders loop: '${a}' → '${b}' → '${a}'",
    );
  });
});

describe('fromConfig: names it cannot map', () => {
  it('reports every unmapped class, predicate and function name at once, each with its path', () => {
    const error = thrown(() =>
      fromConfig({
        circuitbreaker: {
          configs: { default: { 'record-exceptions': ['java.io.IOException', 'com.acme.GatewayException'] } },
          instances: { a: { 'ignore-exceptions': 'com.acme.BusinessException' }, b: { 'record-failure-predicate': 'com.acme.IsBad' } },
        },
        retry: { instances: { pg: { 'retry-exceptions': ['java.io.IOException'], 'interval-bi-function': 'com.acme.Wait' } } },
      }),
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(
      [
        'fromConfig: 6 names are not mapped; pass them in the options of fromConfig(config, { classes, predicates, functions }):',
        "  circuitbreaker.configs.default.record-exceptions: no error class named 'java.io.IOException'",
        "  circuitbreaker.configs.default.record-exceptions: no error class named 'com.acme.GatewayException'",
        "  circuitbreaker.instances.a.ignore-exceptions: no error class named 'com.acme.BusinessException'",
        "  circuitbreaker.instances.b.record-failure-predicate: no predicate named 'com.acme.IsBad'",
        "  retry.instances.pg.retry-exceptions: no error class named 'java.io.IOException'",
        "  retry.instances.pg.interval-bi-function: no function named 'com.acme.Wait'",
      ].join('\n'),
    );
  });
});

describe('fromConfig: the aspect orders', () => {
  it('gives Resilience4j’s default aspect order, outermost first', () => {
    expect(fromConfig({}).aspectOrder).toEqual([
      { kind: 'retry', order: 2_147_483_642 },
      { kind: 'circuitBreaker', order: 2_147_483_643 },
      { kind: 'rateLimiter', order: 2_147_483_644 },
      { kind: 'timeLimiter', order: 2_147_483_645 },
      { kind: 'bulkhead', order: 2_147_483_646 },
    ]);
  });

  it('honours *-aspect-order (a lower order is further out) and says what to do with it in notes', () => {
    const r = fromConfig(
      parse(`
resilience4j:
  circuitbreaker.circuit-breaker-aspect-order: 1
  retry.retryAspectOrder: "2"
  bulkhead.bulkhead-aspect-order: -5
`),
    );
    expect(r.aspectOrder.map((a) => a.kind)).toEqual(['bulkhead', 'circuitBreaker', 'retry', 'rateLimiter', 'timeLimiter']);
    expect(r.aspectOrder[0]).toEqual({ kind: 'bulkhead', order: -5 });
    expect(r.notes).toEqual([
      {
        path: 'resilience4j.circuitbreaker.circuit-breaker-aspect-order',
        message: expect.stringMatching(/^read into aspectOrder: fromConfig\(…\)\.pipeline\(name\) builds its layers in this order/),
      },
      { path: 'resilience4j.retry.retryAspectOrder', message: expect.stringMatching(/^read into aspectOrder/) },
      { path: 'resilience4j.bulkhead.bulkhead-aspect-order', message: expect.stringMatching(/^read into aspectOrder/) },
    ]);
  });

  it('refuses an order that is not a Java int', () => {
    expect(() => fromConfig({ retry: { 'retry-aspect-order': 1.5 } })).toThrow(
      'fromConfig: retry.retry-aspect-order: must be an integer in [-2147483648, 2147483647] (a Java int), got 1.5',
    );
    expect(() => fromConfig({ retry: { 'retry-aspect-order': 2 ** 31 } })).toThrow(
      'fromConfig: retry.retry-aspect-order: must be an integer in [-2147483648, 2147483647] (a Java int), got 2147483648',
    );
  });

  it('says when two aspects share an order (Spring leaves their order undefined)', () => {
    const r = fromConfig({ retry: { 'retry-aspect-order': 7 }, circuitbreaker: { 'circuit-breaker-aspect-order': 7 } });
    expect(r.aspectOrder.slice(0, 2)).toEqual([
      { kind: 'retry', order: 7 },
      { kind: 'circuitBreaker', order: 7 },
    ]);
    expect(r.notes.at(-1)).toEqual({
      path: 'circuitbreaker.circuit-breaker-aspect-order',
      message:
        "retry and circuitBreaker have the same aspect order 7: Spring leaves their order undefined; aspectOrder keeps Resilience4j's default order between them",
    });
  });
});

describe('fromConfig: size and shape of the input', () => {
  it('resolves a base-config chain of 5,000 configs in linear time', () => {
    const n = 5000;
    const configs: Record<string, unknown> = { c0: { 'max-attempts': 7 } };
    for (let i = 1; i < n; i++) configs[`c${i}`] = { 'base-config': `c${i - 1}` };
    const started = performance.now();
    const r = fromConfig({ retry: { configs, instances: { pg: { 'base-config': `c${n - 1}` }, other: { 'base-config': `c${n - 2}` } } } });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(r.retry.find('pg')!.config.maxAttempts).toBe(7);
    expect(r.retry.configuration(`c${n - 1}`)!.maxAttempts).toBe(7);
  });

  it('still refuses a looping base-config chain, naming the loop', () => {
    expect(() => fromConfig({ retry: { configs: { a: { 'base-config': 'b' }, b: { 'base-config': 'c' }, c: { 'base-config': 'a' } } } })).toThrow(
      'fromConfig: retry.configs.c.base-config: base-config loops: a → b → c → a',
    );
  });

  it('refuses a cyclic object with a TypeError naming the path, not a stack overflow', () => {
    const pg: Record<string, unknown> = { 'max-attempts': 2 };
    pg['self'] = pg;
    const error = thrown(() => fromConfig({ resilience4j: { retry: { instances: { pg } } } }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(
      'fromConfig: resilience4j.retry.instances.pg.self: refers back to resilience4j.retry.instances.pg (a cyclic object cannot be a config)',
    );
    const top: Record<string, unknown> = {};
    top['retry'] = { configs: top };
    expect(() => fromConfig(top)).toThrow('fromConfig: retry.configs: refers back to (root) (a cyclic object cannot be a config)');
  });

  it('follows a placeholder into a cyclic object next to resilience4j only as far as its name goes', () => {
    const server: Record<string, unknown> = { port: 8 };
    server['self'] = server;
    const attempts = (value: string) =>
      fromConfig({ server, resilience4j: { retry: { instances: { pg: { 'max-attempts': value } } } } }, { env: {} }).retry.find('pg')!.config.maxAttempts;
    expect(attempts('${server.self.self.port}')).toBe(8);
    expect(attempts('${server.self.self.nothing:3}')).toBe(3);
  });
});
