import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { health } from './health.js';
import { Registry } from '@breakwater/core';

// Structural fakes: core may not depend on the policy packages (the real ones are held in
// packages/decorators/src/health.integration.test.ts).

const BREAKER_METRICS = {
  failureRate: 60,
  slowCallRate: 0,
  numberOfBufferedCalls: 5,
  numberOfFailedCalls: 3,
  numberOfSuccessfulCalls: 2,
  numberOfSlowCalls: 0,
  numberOfSlowSuccessfulCalls: 0,
  numberOfSlowFailedCalls: 0,
  numberOfNotPermittedCalls: 1,
};

function breaker(name: string, state: string, config: object | null = { failureRateThreshold: 50, slowCallRateThreshold: 100 }) {
  return {
    kind: 'circuitBreaker',
    name,
    state,
    config,
    get metrics() {
      return { ...BREAKER_METRICS };
    },
  };
}
function bulkhead(name: string, available: number) {
  return { kind: 'bulkhead', name, metrics: { availableConcurrentCalls: available, maxAllowedConcurrentCalls: 2, waitingCalls: 0 } };
}
function limiter(name: string, available: number, waiting: number) {
  return { kind: 'rateLimiter', name, metrics: { availablePermissions: available, numberOfWaitingCalls: waiting, waitMs: 0, cycle: 3 } };
}
function pool(name: string, active: number, remaining: number) {
  return {
    kind: 'poolBulkhead',
    name,
    metrics: {
      coreThreadPoolSize: 1,
      threadPoolSize: 2,
      maximumThreadPoolSize: 2,
      queueDepth: 1 - remaining,
      queueCapacity: 1,
      remainingQueueCapacity: remaining,
      activeCount: active,
    },
  };
}
const EMPTY = { circuitBreakers: {}, bulkheads: {}, threadPoolBulkheads: {}, rateLimiters: {}, retries: {}, timeLimiters: {}, others: {} };

describe('health', () => {
  it('is UP with nothing to judge', () => {
    expect(health()).toEqual({ status: 'UP', components: EMPTY });
  });

  it("maps a breaker's state to its status (Resilience4j's CIRCUIT_OPEN / CIRCUIT_HALF_OPEN)", () => {
    const states = ['CLOSED', 'METRICS_ONLY', 'DISABLED', 'HALF_OPEN', 'OPEN', 'FORCED_OPEN', 'SOMETHING_NEW'];
    const snapshot = health(...states.map((s) => breaker(s, s)));
    expect(Object.fromEntries(Object.entries(snapshot.components.circuitBreakers).map(([n, b]) => [n, b.status]))).toEqual({
      CLOSED: 'UP',
      METRICS_ONLY: 'UP',
      DISABLED: 'UP',
      HALF_OPEN: 'CIRCUIT_HALF_OPEN',
      OPEN: 'CIRCUIT_OPEN',
      FORCED_OPEN: 'CIRCUIT_OPEN',
      SOMETHING_NEW: 'UNKNOWN',
    });
    expect(snapshot.components.circuitBreakers['SOMETHING_NEW']!.reason).toBe("state 'SOMETHING_NEW' is not one health() knows");
    expect(snapshot.components.circuitBreakers['OPEN']).toEqual({
      status: 'CIRCUIT_OPEN',
      state: 'OPEN',
      failureRate: 60,
      slowCallRate: 0,
      bufferedCalls: 5,
      failedCalls: 3,
      slowCalls: 0,
      slowFailedCalls: 0,
      notPermittedCalls: 1,
      failureRateThreshold: 50,
      slowCallRateThreshold: 100,
    });
    expect(snapshot.status).toBe('DEGRADED');
  });

  it('shows an opted-in breaker (config.allowHealthIndicatorToFail: true) OPEN or FORCED_OPEN as DOWN, HALF_OPEN as CIRCUIT_HALF_OPEN', () => {
    const failing = { failureRateThreshold: 50, slowCallRateThreshold: 100, allowHealthIndicatorToFail: true };
    const snapshot = health(
      breaker('a', 'OPEN', failing),
      breaker('b', 'FORCED_OPEN', failing),
      breaker('c', 'HALF_OPEN', failing),
      breaker('d', 'CLOSED', failing),
    );
    expect(Object.values(snapshot.components.circuitBreakers).map((b) => b.status)).toEqual(['DOWN', 'DOWN', 'CIRCUIT_HALF_OPEN', 'UP']);
    expect(snapshot.components.circuitBreakers['a']).not.toHaveProperty('allowHealthIndicatorToFail');
    // Only `true` opts in (Resilience4j's default is false).
    for (const allow of [false, 'true', 1, undefined]) {
      expect(health(breaker('a', 'OPEN', { allowHealthIndicatorToFail: allow })).components.circuitBreakers['a']!.status, String(allow)).toBe('CIRCUIT_OPEN');
    }
  });

  it('leaves the thresholds out when the breaker has no config', () => {
    const entry = health(breaker('pg', 'CLOSED', null)).components.circuitBreakers['pg']!;
    expect('failureRateThreshold' in entry || 'slowCallRateThreshold' in entry).toBe(false);
  });

  describe('the overall status', () => {
    it("is DEGRADED, never DOWN, when a service's only breaker opens, or every breaker is open", () => {
      expect(health(breaker('pg', 'OPEN')).status).toBe('DEGRADED');
      expect(health(breaker('pg', 'FORCED_OPEN')).status).toBe('DEGRADED');
      expect(health(breaker('a', 'OPEN'), breaker('b', 'FORCED_OPEN'), bulkhead('db', 1)).status).toBe('DEGRADED');
      expect(health(breaker('a', 'OPEN'), breaker('b', 'CLOSED')).status).toBe('DEGRADED');
      expect(health(breaker('a', 'OPEN'), breaker('b', 'DISABLED')).status).toBe('DEGRADED');
    });

    it('is DOWN when a breaker that opted in with allowHealthIndicatorToFail is OPEN or FORCED_OPEN, whatever the others', () => {
      const failing = { allowHealthIndicatorToFail: true };
      expect(health(breaker('pg', 'OPEN', failing)).status).toBe('DOWN');
      expect(health(breaker('pg', 'FORCED_OPEN', failing), breaker('redis', 'CLOSED'), bulkhead('db', 1)).status).toBe('DOWN');
      expect(health(breaker('pg', 'HALF_OPEN', failing)).status).toBe('DEGRADED');
      expect(health(breaker('pg', 'CLOSED', failing), breaker('redis', 'OPEN')).status).toBe('DEGRADED');
    });

    it('is DEGRADED when a breaker is half-open or a bulkhead, pool or limiter has no room', () => {
      expect(health(breaker('a', 'HALF_OPEN')).status).toBe('DEGRADED');
      expect(health(breaker('a', 'CLOSED'), bulkhead('db', 0)).status).toBe('DEGRADED');
      expect(health(pool('cpu', 2, 0)).status).toBe('DEGRADED');
      expect(health(limiter('api', 0, 2)).status).toBe('DEGRADED');
    });

    it('is UP when every judged component is UP; a full bulkhead alone is never DOWN', () => {
      expect(health(breaker('a', 'CLOSED'), bulkhead('db', 1), pool('cpu', 2, 1), pool('io', 1, 0), limiter('api', 0, 0), limiter('b', 3, 2)).status).toBe(
        'UP',
      );
      expect(health(bulkhead('db', 0)).status).toBe('DEGRADED');
    });
  });

  it('reads bulkheads, pools and limiters', () => {
    const { components } = health(bulkhead('db', 0), pool('cpu', 2, 0), limiter('api', -2, 1));
    expect(components.bulkheads).toEqual({ db: { status: 'UNKNOWN', availableConcurrentCalls: 0, maxAllowedConcurrentCalls: 2, waitingCalls: 0 } });
    expect(components.threadPoolBulkheads).toEqual({
      cpu: {
        status: 'UNKNOWN',
        coreThreadPoolSize: 1,
        threadPoolSize: 2,
        maximumThreadPoolSize: 2,
        activeCount: 2,
        queueDepth: 1,
        queueCapacity: 1,
        remainingQueueCapacity: 0,
      },
    });
    expect(components.rateLimiters).toEqual({ api: { status: 'UNKNOWN', availablePermissions: -2, numberOfWaitingCalls: 1 } });
  });

  it('lists retries and time limiters with their numeric counters, always UP', () => {
    const retry = {
      kind: 'retry',
      name: 'pg',
      metrics: { numberOfSuccessfulCallsWithoutRetryAttempt: 4, numberOfFailedCallsWithRetryAttempt: 1, status: 7, note: 'x' },
    };
    const limiter = { kind: 'timeLimiter', name: 'pg', metrics: { numberOfSuccessfulCalls: 1, numberOfFailedCalls: 0, numberOfTimeouts: 2 } };
    const snapshot = health(retry, limiter);
    expect(snapshot.components.retries).toEqual({
      pg: { status: 'UP', numberOfSuccessfulCallsWithoutRetryAttempt: 4, numberOfFailedCallsWithRetryAttempt: 1 },
    });
    expect(snapshot.components.timeLimiters).toEqual({ pg: { status: 'UP', numberOfSuccessfulCalls: 1, numberOfFailedCalls: 0, numberOfTimeouts: 2 } });
    expect(snapshot.status).toBe('UP');
  });

  it('lists components of unknown kinds under others, unjudged, with their JSON-safe plain metrics', () => {
    const fallback = { kind: 'fallback', name: 'fb', execute: () => Promise.resolve() };
    const delay = { kind: 'delay', name: 'pace', metrics: { waits: 3, last: Infinity, label: 'x', ok: true, none: null, nested: { a: 1 }, fn: () => 1 } };
    const classy = { kind: 'mine', name: 'm', metrics: new Map([['a', 1]]) };
    const snapshot = health(fallback, delay, classy, { name: 'noKind' }, 42, null, undefined, 'text');
    expect(snapshot).toEqual({
      status: 'UP',
      components: {
        ...EMPTY,
        others: {
          fb: { kind: 'fallback' },
          pace: { kind: 'delay', metrics: { waits: 3, last: null, label: 'x', ok: true, none: null } },
          m: { kind: 'mine' },
          noKind: { kind: 'unknown' },
        },
      },
    });
  });

  it('opens registries (core Registry or anything with all()) and arrays; the same instance appears once', () => {
    const pg = breaker('pg', 'OPEN');
    const registry = new Registry<{ name: string }, object>('FakeRegistry', (name) => (name === 'pg' ? pg : breaker(name, 'CLOSED')));
    registry.get('pg');
    registry.get('redis');
    const structural = { all: () => [bulkhead('db', 1)] };
    const snapshot = health(registry, pg, [structural, [limiter('api', 1, 0)]]);
    expect(Object.keys(snapshot.components.circuitBreakers)).toEqual(['pg', 'redis']);
    expect(Object.keys(snapshot.components.bulkheads)).toEqual(['db']);
    expect(Object.keys(snapshot.components.rateLimiters)).toEqual(['api']);
    expect(snapshot.status).toBe('DEGRADED');
  });

  it('keys two instances with one name as name, name#2, … (nothing hidden), __proto__ included', () => {
    const snapshot = health(breaker('pg', 'CLOSED'), breaker('pg', 'OPEN'), breaker('pg', 'HALF_OPEN'), bulkhead('pg', 1), breaker('__proto__', 'CLOSED'));
    expect(Object.keys(snapshot.components.circuitBreakers)).toEqual(['pg', 'pg#2', 'pg#3', '__proto__']);
    expect(snapshot.components.circuitBreakers['pg#2']!.state).toBe('OPEN');
    expect(Object.keys(snapshot.components.bulkheads)).toEqual(['pg']);
    expect(Object.getPrototypeOf(snapshot.components.circuitBreakers)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
  });

  it('never throws: throwing getters, hostile registries and metrics are UNKNOWN with the reason', () => {
    const throwingMetrics = {
      kind: 'circuitBreaker',
      name: 'a',
      state: 'CLOSED',
      get metrics(): never {
        throw new Error('boom');
      },
    };
    const noMetrics = { kind: 'bulkhead', name: 'b', metrics: undefined };
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('no');
        },
        get: () => {
          throw new Error('no');
        },
      },
    );
    const proxyMetrics = { kind: 'retry', name: 'r', metrics: hostile };
    const otherProxy = { kind: 'x', name: 'x', metrics: hostile };
    const badRegistry = {
      name: 'breakers',
      all: () => {
        throw new Error('nope');
      },
    };
    const oddRegistry = { name: 'limiters', all: () => 'not a list' };
    const throwingName = {
      kind: 'timeLimiter',
      get name(): never {
        throw new Error('n');
      },
      metrics: { numberOfTimeouts: 1 },
    };
    const badName = {
      kind: 'timeLimiter',
      name: {
        toString: () => {
          throw new Error('n');
        },
      },
      metrics: { numberOfTimeouts: 2 },
    };
    const snapshot = health(throwingMetrics, noMetrics, proxyMetrics, otherProxy, badRegistry, oddRegistry, throwingName, badName, hostile);
    expect(snapshot.components.circuitBreakers['a']).toMatchObject({
      status: 'UNKNOWN',
      reason: 'metrics could not be read: Error: boom',
      state: 'CLOSED',
      failureRate: null,
    });
    expect(snapshot.components.bulkheads['b']).toEqual({
      status: 'UNKNOWN',
      reason: 'metrics are not a plain object (got undefined)',
      availableConcurrentCalls: null,
      maxAllowedConcurrentCalls: null,
      waitingCalls: null,
    });
    expect(snapshot.components.timeLimiters).toEqual({
      '?': { status: 'UNKNOWN', reason: 'name could not be read: Error: n', numberOfTimeouts: 1 },
      '?#2': { status: 'UNKNOWN', reason: 'name could not be read: Error: n', numberOfTimeouts: 2 },
    });
    expect(snapshot.components.retries['r']).toEqual({ status: 'UNKNOWN', reason: 'metrics could not be read: Error: no' });
    expect(snapshot.components.others).toEqual({
      x: { kind: 'x', status: 'UNKNOWN', reason: 'metrics could not be read: Error: no' },
      breakers: { kind: 'registry', status: 'UNKNOWN', reason: 'all() threw: Error: nope' },
      limiters: { kind: 'registry', status: 'UNKNOWN', reason: "all() did not return an array (got 'not a list')" },
      '?': { kind: 'unknown', status: 'UNKNOWN', reason: 'it could not be read: Error: no' },
    });
    expect(snapshot.status).toBe('DEGRADED');
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
  });

  it('never throws on a revoked Proxy, a prototype that cannot be read, a hostile kind or state', () => {
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const noPrototype = new Proxy(
      { kind: 'bulkhead', name: 'p' },
      {
        getPrototypeOf: () => {
          throw new Error('no prototype');
        },
      },
    );
    const metricsWithoutPrototype = new Proxy(
      { availableConcurrentCalls: 1 },
      {
        getPrototypeOf: () => {
          throw new Error('no prototype');
        },
      },
    );
    const revokedMetrics = Proxy.revocable({}, {});
    revokedMetrics.revoke();
    const components = [
      revoked.proxy,
      noPrototype,
      { kind: 'bulkhead', name: 'm', metrics: metricsWithoutPrototype },
      { kind: 'circuitBreaker', name: 'rm', state: 'CLOSED', metrics: revokedMetrics.proxy },
      {
        get kind(): never {
          throw new TypeError('no kind');
        },
        name: 'k1',
      },
      { kind: Symbol('circuitBreaker'), name: 'k2' },
      {
        kind: {
          toString: () => {
            throw new Error('x');
          },
        },
        name: 'k3',
      },
      { kind: '__proto__', name: 'k4' },
      { kind: 'constructor', name: 'k5' },
      {
        kind: 'circuitBreaker',
        name: 's1',
        get state(): never {
          throw new Error('no state');
        },
        metrics: {},
      },
      { kind: 'circuitBreaker', name: 's2', state: 42, metrics: {} },
      {
        kind: 'circuitBreaker',
        name: 's3',
        state: 'OPEN',
        get config(): never {
          throw new Error('no config');
        },
        metrics: {},
      },
      { kind: 'circuitBreaker', name: 's4', state: 'OPEN', config: revoked.proxy, metrics: {} },
      {
        kind: 'rateLimiter',
        name: 'l',
        metrics: {
          get availablePermissions(): never {
            throw new RangeError('gone');
          },
          numberOfWaitingCalls: 0,
        },
      },
    ];
    const snapshot = health(...components);
    const { circuitBreakers, bulkheads, rateLimiters, others } = snapshot.components;
    const revokedReason = "Cannot perform 'IsArray' on a proxy that has been revoked";
    expect(others['?']).toEqual({ kind: 'unknown', status: 'UNKNOWN', reason: `it could not be read: TypeError: ${revokedReason}` });
    expect(others['p']).toEqual({ kind: 'unknown', status: 'UNKNOWN', reason: 'it could not be read: Error: no prototype' });
    expect(bulkheads['m']).toMatchObject({ status: 'UNKNOWN', reason: 'metrics could not be read: Error: no prototype', availableConcurrentCalls: null });
    expect(circuitBreakers['rm']).toMatchObject({ status: 'UNKNOWN', reason: expect.stringMatching(/^metrics could not be read: TypeError: .*revoked/) });
    expect(others['k1']).toEqual({ kind: 'unknown', status: 'UNKNOWN', reason: 'kind could not be read: TypeError: no kind' });
    expect(others['k2']).toEqual({ kind: 'unknown', status: 'UNKNOWN', reason: 'kind is not a string (got Symbol(circuitBreaker))' });
    expect(others['k3']).toEqual({ kind: 'unknown', status: 'UNKNOWN', reason: 'kind is not a string (got an object)' });
    expect(others['k4']).toEqual({ kind: '__proto__' });
    expect(others['k5']).toEqual({ kind: 'constructor' });
    expect(circuitBreakers['s1']).toMatchObject({ status: 'UNKNOWN', reason: 'state could not be read: Error: no state', state: 'UNKNOWN' });
    expect(circuitBreakers['s2']).toMatchObject({ status: 'UNKNOWN', reason: 'state is not a string (got 42)', state: 'UNKNOWN' });
    expect(circuitBreakers['s3']).toMatchObject({ status: 'UNKNOWN', reason: 'config could not be read: Error: no config', state: 'OPEN' });
    expect(circuitBreakers['s4']).toMatchObject({
      status: 'UNKNOWN',
      reason: expect.stringMatching(/^config\.failureRateThreshold could not be read: TypeError: .*revoked/),
    });
    expect(rateLimiters['l']).toEqual({
      status: 'UNKNOWN',
      reason: 'metrics.availablePermissions could not be read: RangeError: gone',
      availablePermissions: null,
      numberOfWaitingCalls: 0,
    });
    expect(snapshot.status).toBe('DEGRADED');
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
  });

  it('is linear: 30 000 components with one name are all kept, each read once', () => {
    const n = 30_000;
    let reads = 0;
    const counted = (i: number) => ({
      kind: 'circuitBreaker',
      get name() {
        reads += 1;
        return 'pg';
      },
      state: i % 2 === 0 ? 'CLOSED' : 'OPEN',
      metrics: { failureRate: i },
    });
    // A name that looks like a generated key is kept too, and the generated keys go around it.
    const snapshot = health([...Array.from({ length: n }, (_, i) => counted(i)), breaker('pg#2', 'CLOSED')]);
    const keys = Object.keys(snapshot.components.circuitBreakers);
    expect(keys.length).toBe(n + 1);
    expect(new Set(keys).size).toBe(n + 1);
    expect(keys.slice(0, 3)).toEqual(['pg', 'pg#2', 'pg#3']);
    expect(keys.at(-2)).toBe(`pg#${n}`);
    expect(keys.at(-1)).toBe(`pg#2#2`);
    expect(snapshot.components.circuitBreakers[`pg#${n}`]).toMatchObject({ state: 'OPEN', failureRate: n - 1 });
    expect(reads).toBe(n);
    expect(snapshot.status).toBe('DEGRADED');

    // Names that collide with generated keys in every way still give one entry each.
    const tricky = ['a', 'a', 'a#2', 'a#3', 'a', 'a#2', 'a#2#2', 'a'].map((name) => breaker(name, 'CLOSED'));
    expect(Object.keys(health(...tricky).components.circuitBreakers)).toEqual(['a', 'a#2', 'a#2#2', 'a#3', 'a#4', 'a#2#3', 'a#2#2#2', 'a#5']);
  });

  it('is JSON-safe: non-finite numbers are null, the round trip is equal', () => {
    const odd = { kind: 'bulkhead', name: 'db', metrics: { availableConcurrentCalls: Infinity, maxAllowedConcurrentCalls: Infinity, waitingCalls: NaN } };
    const nan = { kind: 'bulkhead', name: 'nan', metrics: { availableConcurrentCalls: NaN, maxAllowedConcurrentCalls: 1, waitingCalls: 0 } };
    const snapshot = health(odd, nan, breaker('pg', 'HALF_OPEN'), limiter('api', 1, 0));
    expect(snapshot.components.bulkheads['db']).toEqual({ status: 'UP', availableConcurrentCalls: null, maxAllowedConcurrentCalls: null, waitingCalls: null });
    expect(snapshot.components.bulkheads['nan']!.status).toBe('UNKNOWN');
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
  });

  it('returns a fresh object on every call', () => {
    const pg = breaker('pg', 'CLOSED');
    expect(health(pg)).not.toBe(health(pg));
    expect(health(pg).components.circuitBreakers).not.toBe(health(pg).components.circuitBreakers);
  });
});

describe('README: health served over node:http', () => {
  it('answers 200 while DEGRADED (a breaker open), 503 only when DOWN (an opted-in breaker open), with the snapshot as JSON', async () => {
    const pg = breaker('pg', 'OPEN');
    const redis = breaker('redis', 'CLOSED', { failureRateThreshold: 50, slowCallRateThreshold: 100, allowHealthIndicatorToFail: true });
    const server = createServer((_req, res) => {
      const snapshot = health([pg, redis], bulkhead('db', 1));
      res.writeHead(snapshot.status === 'DOWN' ? 503 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(snapshot));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
      const first = await fetch(url);
      expect(first.status).toBe(200);
      expect(await first.json()).toEqual(health([pg, redis], bulkhead('db', 1)));
      // The only breaker a service has, open: still 200, the probe keeps the instance.
      redis.state = 'CLOSED';
      pg.state = 'FORCED_OPEN';
      expect((await fetch(url)).status).toBe(200);
      redis.state = 'OPEN';
      const second = await fetch(url);
      expect(second.status).toBe(503);
      expect(await second.json()).toMatchObject({
        status: 'DOWN',
        components: { circuitBreakers: { pg: { status: 'CIRCUIT_OPEN' }, redis: { status: 'DOWN' } } },
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
