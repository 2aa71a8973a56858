'use strict';
// Behaviour through a built entry point, as a user's program gets it: `node dist-behaviour.cjs
// <package> <import|require>` loads <package> (and the @breakwater packages it needs for what it
// does not export itself) with `import()` or with `require()` — plain node, no `@breakwater/source`
// condition, so every `exports` map leads to dist/ — then runs, for each policy the package
// exports, one real call: a retried call, a breaker opening, a time-out, a bulkhead wait, a
// rate-limiter wait, an adaptive limit and a throttle, a pipeline, a resilient fetch (a real local HTTP
// server), a worker task, the test helpers, fromConfig. Time is a
// VirtualClock everywhere except the worker task (a real thread). Prints two JSON lines,
// { exports: [the entry point's export names] } and { ran: [the checks that passed] }, or exits 1
// with the error.
const assert = require('node:assert/strict');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const [name, how] = process.argv.slice(2);
if (!name || (how !== 'import' && how !== 'require')) {
  console.error('usage: node dist-behaviour.cjs <package> <import|require>');
  process.exit(2);
}
const load = how === 'import' ? (id) => import(id) : async (id) => require(id);

// The package each check's main export comes from when the package under test lacks it.
const owners = [
  '@breakwater/core',
  '@breakwater/circuit-breaker',
  '@breakwater/time-limiter',
  '@breakwater/retry',
  '@breakwater/bulkhead',
  '@breakwater/rate-limiter',
  '@breakwater/chaos',
  '@breakwater/decorators',
  '@breakwater/spring-config',
];

/** A connected node-redis client to REDIS_URL, with `redis` resolved as @breakwater/redis resolves its peer. */
async function redisClient() {
  const here = path.dirname(require.resolve('@breakwater/redis/package.json'));
  const { createClient } = require(require.resolve('redis', { paths: [here] }));
  const client = createClient({ url: process.env.REDIS_URL });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** Rejects if `promise` has not settled by the time the clock's timers have all run. */
async function settled(promise, clock) {
  let done = false;
  const p = Promise.resolve(promise).finally(() => (done = true));
  p.catch(() => {});
  for (let i = 0; i < 50 && !done; i++) await clock.advance(1000);
  assert.ok(done, 'the call did not settle on the virtual clock');
  return p;
}

const checks = {
  // @breakwater/core: timers on the VirtualClock, durations, the error classes.
  parseDuration: async ({ VirtualClock, parseDuration, TimeoutError, BreakwaterError }) => {
    const clock = new VirtualClock();
    const fired = [];
    clock.setTimeout(() => fired.push(clock.now()), 250);
    await clock.advance(parseDuration('1s'));
    assert.deepEqual(fired, [250]);
    assert.ok(new TimeoutError('t', 5) instanceof BreakwaterError);
  },

  // @breakwater/core/internal: the call protocol; the caller's abort rejects the call at once, and
  // the main entry's onAbort hears the same signal.
  enterCall: async ({ enterCall, invoke, raceAbort, onAbort }) => {
    const controller = new AbortController();
    const ctx = enterCall({ signal: controller.signal });
    assert.equal(ctx.signal, controller.signal);
    const call = raceAbort(
      invoke(() => new Promise(() => {}), ctx),
      ctx.signal,
    );
    let heard = false;
    onAbort(controller.signal, () => (heard = true));
    controller.abort(new Error('left'));
    await assert.rejects(call, /left/);
    assert.equal(heard, true);
    assert.ok((await enterCall({ signal: controller.signal }).catch((e) => e)).message === 'left');
  },

  // A retried call: two failures, then success, waiting 100 ms then 200 ms on the clock.
  Retry: async ({ Retry, IntervalFunction, VirtualClock }) => {
    const clock = new VirtualClock();
    const retry = new Retry('dist', { maxAttempts: 3, intervalFunction: IntervalFunction.ofExponentialBackoff(100, 2), clock });
    const waits = [];
    retry.on('retry', (e) => waits.push(e.waitMs));
    let calls = 0;
    const result = retry.execute(async (ctx) => {
      calls++;
      if (ctx.attempt < 3) throw new Error(`attempt ${ctx.attempt} failed`);
      return `ok after ${ctx.attempt}`;
    });
    let failure; // the call's error as soon as it has one (awaited below, after the clock has moved)
    result.catch((e) => (failure = e));
    await clock.advance(99);
    assert.equal(calls, 1);
    await clock.advance(1);
    if (failure) throw failure;
    assert.equal(calls, 2);
    await clock.advance(200);
    assert.equal(await result, 'ok after 3');
    assert.equal(calls, 3);
    assert.deepEqual(waits, [100, 200]);
    // Exhausted: the last error, as thrown.
    const exhausted = settled(
      retry.execute(() => Promise.reject(new Error('down'))),
      clock,
    );
    await assert.rejects(exhausted, { message: 'down' });
  },

  // A breaker opening on its failure rate, refusing, then half-open after its wait on the clock.
  CircuitBreaker: async ({ CircuitBreaker, CallNotPermittedError, VirtualClock }) => {
    const clock = new VirtualClock();
    const breaker = new CircuitBreaker('dist', {
      slidingWindowSize: 4,
      minimumNumberOfCalls: 4,
      failureRateThreshold: 50,
      waitDurationInOpenState: '10s',
      clock,
    });
    const transitions = [];
    breaker.on('stateTransition', (e) => transitions.push(`${e.from}>${e.to}`));
    for (const ok of [true, false, true, false])
      await breaker
        .execute(async () => {
          if (!ok) throw new Error('x');
        })
        .catch(() => {});
    assert.equal(breaker.state, 'OPEN');
    await assert.rejects(
      breaker.execute(async () => 1),
      (e) => e instanceof CallNotPermittedError && e.circuitBreakerName === 'dist',
    );
    await clock.advance(10_000); // the wait is over once it has passed (as in Resilience4j)
    await assert.rejects(
      breaker.execute(async () => 1),
      CallNotPermittedError,
    );
    await clock.advance(1);
    assert.equal(await breaker.execute(async () => 'trial'), 'trial');
    assert.equal(breaker.state, 'HALF_OPEN');
    assert.deepEqual(transitions, ['CLOSED>OPEN', 'OPEN>HALF_OPEN']);
  },

  // A time-out at 600 ms on the clock: TimeoutError, and the call's signal aborted.
  TimeLimiter: async ({ TimeLimiter, TimeoutError, VirtualClock }) => {
    const clock = new VirtualClock();
    const limiter = new TimeLimiter('dist', { timeoutDuration: '600ms', clock });
    let signal;
    const call = limiter.execute((ctx) => {
      signal = ctx.signal;
      return new Promise(() => {});
    });
    call.catch(() => {});
    await clock.advance(599);
    assert.equal(signal.aborted, false);
    await clock.advance(1);
    await assert.rejects(call, (e) => e instanceof TimeoutError && e.timeLimiterName === 'dist' && e.name === 'TimeoutError');
    assert.equal(signal.aborted, true);
  },

  // A bulkhead wait: the second call waits for the first one's slot; a third gives up after 50 ms.
  Bulkhead: async ({ Bulkhead, BulkheadFullError, VirtualClock }) => {
    const clock = new VirtualClock();
    const bulkhead = new Bulkhead('dist', { maxConcurrentCalls: 1, maxWaitDuration: 100, clock });
    let release;
    const first = bulkhead.execute(() => new Promise((resolve) => (release = resolve)));
    const order = [];
    const second = bulkhead.execute(async () => order.push('second'));
    await clock.advance(50);
    assert.deepEqual(order, []);
    release('first');
    assert.equal(await first, 'first');
    await second;
    assert.deepEqual(order, ['second']);
    let hold;
    const busy = bulkhead.execute(() => new Promise((resolve) => (hold = resolve)));
    const third = bulkhead.execute(async () => 'never');
    third.catch(() => {});
    await clock.advance(100);
    await assert.rejects(third, (e) => e instanceof BulkheadFullError && e.bulkheadName === 'dist');
    hold();
    await busy;
  },

  // A worker task in a real worker thread.
  PoolBulkhead: async ({ PoolBulkhead }) => {
    const filename = pathToFileURL(path.join(__dirname, 'fixtures', 'square.mjs'));
    const pool = PoolBulkhead.workers('dist', { filename, maxThreadPoolSize: 1, coreThreadPoolSize: 1, queueCapacity: 1 });
    try {
      const result = await pool.run({ value: 7 });
      assert.equal(result.square, 49);
      assert.ok(result.threadId > 0, 'ran in a worker thread');
    } finally {
      await pool.close();
    }
  },

  // A rate-limiter wait: the second call of the cycle waits for the next cycle on the clock.
  RateLimiter: async ({ RateLimiter, RequestNotPermittedError, VirtualClock }) => {
    const clock = new VirtualClock();
    const limiter = new RateLimiter('dist', { limitForPeriod: 1, limitRefreshPeriod: 100, timeoutDuration: 100, clock });
    assert.equal(await limiter.execute(async () => 1), 1);
    let ran = false;
    const second = limiter.execute(async () => (ran = true));
    await clock.advance(99);
    assert.equal(ran, false);
    await clock.advance(1);
    assert.equal(await second, true);
    const strict = new RateLimiter('strict', { limitForPeriod: 1, limitRefreshPeriod: 1000, timeoutDuration: 0, clock });
    await strict.execute(async () => 1);
    await assert.rejects(
      strict.execute(async () => 2),
      (e) => e instanceof RequestNotPermittedError,
    );
  },

  // An adaptive limit: a second call waits for the first one's slot, the sample moves the limit
  // (a scripted algorithm), and a call that waits too long is refused naming the limit.
  AdaptiveLimiter: async ({ AdaptiveLimiter, RequestNotPermittedError, VirtualClock }) => {
    const clock = new VirtualClock();
    const algorithm = { name: 'scripted', limit: 1, onSample: () => 2 };
    const limiter = new AdaptiveLimiter('dist', { algorithm, window: false, maxWaitDuration: 100, clock });
    const changes = [];
    limiter.on('limitChanged', (e) => changes.push([e.previous, e.limit]));
    let release;
    const first = limiter.execute(() => new Promise((resolve) => (release = resolve)));
    const second = limiter.execute(async () => 'second');
    assert.equal(limiter.metrics.waiting, 1);
    await clock.advance(10);
    release('first');
    assert.equal(await first, 'first');
    assert.equal(await second, 'second');
    assert.deepEqual(changes, [[1, 2]]);
    const tokens = [limiter.tryAcquire(), limiter.tryAcquire()];
    assert.equal(limiter.inFlight, 2);
    const third = limiter.execute(async () => 'never');
    third.catch(() => {});
    await clock.advance(100);
    await assert.rejects(third, (e) => e instanceof RequestNotPermittedError && e.rateLimiterName === 'dist' && /limit 2, 2 in flight/.test(e.message));
    for (const token of tokens) token.onIgnore();
    assert.equal(limiter.inFlight, 0);
  },

  // Client-side throttling: after a refused request, the next is rejected locally (the draw is 0).
  AdaptiveThrottle: async ({ AdaptiveThrottle, RequestNotPermittedError, VirtualClock }) => {
    const clock = new VirtualClock();
    const throttle = new AdaptiveThrottle('dist', { clock, random: () => 0 });
    await assert.rejects(
      throttle.execute(async () => {
        throw new Error('503');
      }),
      /503/,
    );
    await assert.rejects(
      throttle.execute(async () => 'never'),
      (e) => e instanceof RequestNotPermittedError && e.rateLimiterName === 'dist',
    );
    assert.deepEqual(throttle.metrics, { requests: 2, accepts: 0, rejected: 1, rejectRatio: 2 / 3 });
  },

  // A hedged call: the primary is slow, the hedge started after the delay wins, the primary is aborted.
  Hedge: async ({ Hedge, VirtualClock }) => {
    const clock = new VirtualClock();
    const hedge = new Hedge('dist', { delay: 100, clock });
    const aborted = [];
    const result = hedge.execute(
      (ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => aborted.push(ctx.attempt));
          clock.setTimeout(() => resolve(`attempt ${ctx.attempt}`), ctx.attempt === 1 ? 1000 : 50);
        }),
    );
    await clock.advance(150);
    assert.equal(await settled(result, clock), 'attempt 2');
    assert.deepEqual(aborted, [1]);
    assert.deepEqual(hedge.metrics.winsByAttempt, [0, 1]);
    assert.equal(hedge.metrics.numberOfHedgedAttempts, 1);
  },

  // Chaos: a fault injected on the draws below the rate, none when not enabled; a latency on the clock.
  FaultInjection: async ({ FaultInjection }) => {
    const draws = [0.1, 0.9];
    const faults = new FaultInjection('dist', { enabled: true, rate: 0.5, fault: new Error('injected'), random: () => draws.shift() });
    await assert.rejects(
      faults.execute(() => 'real'),
      { message: 'injected' },
    );
    assert.equal(await faults.execute(() => 'real'), 'real');
    assert.deepEqual(faults.metrics, { numberOfInjectedCalls: 1, numberOfCallsNotInjected: 1 });
    const off = new FaultInjection('off', { rate: 1, fault: new Error('never') });
    assert.equal(await off.execute(() => 'real'), 'real');
  },
  LatencyInjection: async ({ LatencyInjection, VirtualClock }) => {
    const clock = new VirtualClock();
    const latency = new LatencyInjection('dist', { enabled: true, rate: 1, latency: '2s', clock });
    let done = false;
    const result = latency.execute(() => 'late').then((v) => ((done = true), v));
    await clock.advance(1999);
    assert.equal(done, false);
    await clock.advance(1);
    assert.equal(await result, 'late');
  },

  // @breakwater/fetch: against a real node:http server on 127.0.0.1 — a 429 with Retry-After: 1, waited
  // on the retry's VirtualClock (retryAfterInterval), then a 200; a POST's 503 not sent again.
  resilientFetch: async ({ resilientFetch, FetchFailedError, decorate, Retry, retryAfterInterval, VirtualClock }) => {
    const { createServer } = require('node:http');
    const { once } = require('node:events');
    const hits = [];
    const server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      if (req.method === 'POST') res.writeHead(503).end();
      else if (hits.length === 1) res.writeHead(429, { 'retry-after': '1' }).end();
      else res.writeHead(200).end('served');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const clock = new VirtualClock();
      const retry = new Retry('dist', { maxAttempts: 3, intervalBiFunction: retryAfterInterval('5s'), clock });
      const waited = new Promise((resolve) => retry.on('retry', (e) => resolve(e.waitMs)));
      const fetchWithRetry = resilientFetch(decorate().withRetry(retry));
      const url = `http://127.0.0.1:${server.address().port}/item`;
      const call = fetchWithRetry(url);
      assert.equal(await waited, 1000);
      await clock.advance(1000);
      assert.equal(await (await call).text(), 'served');
      await assert.rejects(fetchWithRetry(url, { method: 'POST', body: 'x' }), (e) => e instanceof FetchFailedError && e.status === 503);
      assert.deepEqual(hits, ['GET /item', 'GET /item', 'POST /item']);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  },

  // The documents' pipeline: the first attempt times out, the breaker records it, the retry's second attempt succeeds.
  decorate: async ({ decorate, Retry, CircuitBreaker, TimeLimiter, VirtualClock }) => {
    const clock = new VirtualClock();
    const breaker = new CircuitBreaker('pg', { clock });
    const pipeline = decorate()
      .withRetry(new Retry('pg', { maxAttempts: 2, waitDuration: 500, clock }))
      .withCircuitBreaker(breaker)
      .withTimeLimiter(new TimeLimiter('pg', { timeoutDuration: 600, clock }));
    const result = pipeline.execute((ctx) => (ctx.attempt === 1 ? new Promise(() => {}) : Promise.resolve(`paid on attempt ${ctx.attempt}`)));
    assert.equal(await settled(result, clock), 'paid on attempt 2');
    assert.equal(breaker.metrics.numberOfFailedCalls, 1);
    assert.equal(breaker.metrics.numberOfSuccessfulCalls, 1);
  },

  // @breakwater/testing (breakwater/testing): a scripted backend and a replay on the clock (needs fast-check).
  scriptedBackend: async ({ scriptedBackend, replay, trafficArb, VirtualClock, CircuitBreaker }) => {
    const clock = new VirtualClock();
    const backend = scriptedBackend('E S200', { clock });
    const breaker = new CircuitBreaker('dist', { clock });
    await assert.rejects(breaker.execute(backend));
    const second = breaker.execute(backend);
    await clock.advance(200);
    await second;
    assert.equal(backend.calls, 2);
    const result = await replay(
      Array.from({ length: 10 }, (_, i) => ({ at: i * 10, outcome: 'error', latency: 1 })),
      { slidingWindowSize: 5, minimumNumberOfCalls: 5 },
    );
    assert.equal(result.finalState, 'OPEN');
    assert.equal(typeof trafficArb, 'function');
  },

  // The Prometheus exporter on a real prom-client Registry (prom-client as @breakwater/prometheus
  // finds it: its peer): a breaker opened by its failure rate, scraped with Resilience4j's names.
  PrometheusMetrics: async ({ PrometheusMetrics, CircuitBreaker, VirtualClock }) => {
    const here = path.dirname(require.resolve('@breakwater/prometheus/package.json'));
    const { Registry } = require(require.resolve('prom-client', { paths: [here] }));
    const registry = new Registry();
    const clock = new VirtualClock();
    const breaker = new CircuitBreaker('dist', { slidingWindowSize: 2, minimumNumberOfCalls: 2, clock });
    new PrometheusMetrics({ registry, prefix: 'resilience4j' }).add(breaker);
    breaker.onError(20, new Error('down'));
    breaker.onError(30, new Error('down'));
    const lines = (await registry.metrics()).split('\n');
    assert.ok(lines.includes('resilience4j_circuitbreaker_state{name="dist",state="open"} 1'), 'state');
    assert.ok(lines.includes('resilience4j_circuitbreaker_calls_seconds_count{name="dist",kind="failed"} 2'), 'calls');
    assert.ok(lines.includes('resilience4j_circuitbreaker_transitions_total{name="dist",from="closed",to="open",cause="failure_rate"} 1'), 'transitions');
  },

  // The OpenTelemetry exporter on a real MeterProvider (@opentelemetry/sdk-metrics and api as
  // @breakwater/opentelemetry finds them), collected by hand: the same breaker, Resilience4j's words.
  OpenTelemetryMetrics: async ({ OpenTelemetryMetrics, CircuitBreaker, VirtualClock }) => {
    const here = path.dirname(require.resolve('@breakwater/opentelemetry/package.json'));
    const { MeterProvider, MetricReader } = require(require.resolve('@opentelemetry/sdk-metrics', { paths: [here] }));
    class HandReader extends MetricReader {
      async onShutdown() {}
      async onForceFlush() {}
    }
    const reader = new HandReader();
    const provider = new MeterProvider({ readers: [reader] });
    const clock = new VirtualClock();
    const breaker = new CircuitBreaker('dist', { slidingWindowSize: 2, minimumNumberOfCalls: 2, clock });
    new OpenTelemetryMetrics({ meter: provider.getMeter('dist'), prefix: 'resilience4j' }).add(breaker);
    breaker.onError(20, new Error('down'));
    breaker.onError(30, new Error('down'));
    const { resourceMetrics } = await reader.collect();
    const points = (n) => resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === n).dataPoints;
    assert.equal(points('resilience4j.circuitbreaker.state').find((p) => p.attributes.state === 'open').value, 1, 'state');
    const failed = points('resilience4j.circuitbreaker.calls').find((p) => p.attributes.kind === 'failed').value;
    assert.deepEqual([failed.count, failed.sum], [2, 0.05], 'calls');
    assert.deepEqual(
      points('resilience4j.circuitbreaker.transitions').map((p) => [p.attributes, p.value]),
      [[{ name: 'dist', from: 'closed', to: 'open', cause: 'failure_rate' }, 1]],
      'transitions',
    );
    await provider.shutdown();
  },

  // @breakwater/redis on the real redis-server that dist.test.ts started (REDIS_URL), with the
  // `redis` client as the package finds it (its peer): the Lua script grants 2 per cycle and refuses
  // the third at once; a fleet-wide forceOpen reaches an attached breaker.
  RedisRateLimiter: async ({ RedisRateLimiter, RequestNotPermittedError }) => {
    const client = await redisClient();
    try {
      const limiter = new RedisRateLimiter(`dist-${how}-${process.pid}`, { client, limitForPeriod: 2, limitRefreshPeriod: '1h', timeoutDuration: 0 });
      assert.deepEqual([await limiter.reservePermission(), await limiter.reservePermission(), await limiter.reservePermission()], [0, 0, -1]);
      await assert.rejects(limiter.acquirePermission(), RequestNotPermittedError);
      assert.equal(limiter.metrics.store, 'redis');
    } finally {
      client.destroy();
    }
  },
  RedisBreakerSync: async ({ RedisBreakerSync, CircuitBreaker, VirtualClock }) => {
    const client = await redisClient();
    const subscriber = await redisClient();
    try {
      const sync = new RedisBreakerSync({ client, subscriber });
      const breaker = new CircuitBreaker(`dist-${how}-${process.pid}`, { clock: new VirtualClock() });
      const moved = new Promise((resolve) => breaker.on('stateTransition', resolve));
      await sync.attach(breaker);
      await sync.forceOpen(breaker.name);
      const event = await moved;
      assert.deepEqual([event.to, event.cause], ['FORCED_OPEN', 'fleet']);
      await sync.release(breaker.name);
      await sync.close();
    } finally {
      client.destroy();
      subscriber.destroy();
    }
  },

  // @breakwater/simulator: a scenario of two phases through a real breaker on the virtual clock,
  // and the HTML report with uPlot inlined (its files found from the built package).
  simulate: async ({ parseScenario, simulate, renderHtml }) => {
    const scenario = parseScenario(
      [
        'seed: 3',
        'pipelines:',
        '  pg:',
        '    - circuitBreaker: { slidingWindowSize: 10, minimumNumberOfCalls: 10, waitDurationInOpenState: 1h }',
        'traffic:',
        '  phases:',
        '    - { name: fine, duration: 10s, rate: 10, arrivals: constant }',
        '    - { name: down, duration: 10s, rate: 10, arrivals: constant, errorRatio: 1 }',
      ].join('\n'),
    );
    const [pg] = simulate(scenario).configurations;
    assert.equal(pg.totals.requests, 200);
    assert.equal(pg.phases[0].failed, 0);
    assert.deepEqual(
      pg.transitions.map((t) => [t.from, t.to, t.cause]),
      [['CLOSED', 'OPEN', 'failure_rate']],
    );
    const html = renderHtml(simulate(scenario));
    assert.match(html, /uPlot/);
    assert.doesNotMatch(html, /https?:\/\//);
  },

  // The Spring-settings loader: @breakwater/spring-config, and the umbrella's re-export of it.
  fromConfig: async ({ fromConfig, VirtualClock }) => {
    const clock = new VirtualClock();
    const r = fromConfig({ resilience4j: { retry: { instances: { pg: { 'max-attempts': 2, 'wait-duration': '1s' } } } } }, { clock });
    const retry = r.retry.find('pg');
    let calls = 0;
    const result = retry.execute(async () => {
      if (++calls === 1) throw new Error('once');
      return calls;
    });
    assert.equal(await settled(result, clock), 2);
  },

  // @breakwater/observe (and the umbrella's re-export): the health snapshot of a real breaker, read by its shape.
  health: async ({ health, CircuitBreaker, VirtualClock }) => {
    const breaker = new CircuitBreaker('dist', { clock: new VirtualClock() });
    assert.equal(health(breaker).status, 'UP');
    breaker.transitionToOpenState();
    const snapshot = health(breaker);
    assert.equal(snapshot.status, 'DEGRADED');
    assert.equal(snapshot.components.circuitBreakers.dist.status, 'CIRCUIT_OPEN');
  },
};

async function main() {
  const lib = await load(name);
  const own = new Set(Object.keys(lib));
  console.log(JSON.stringify({ exports: [...own].filter((key) => key !== 'default').sort() }));
  // What the package does not export comes from the package that owns it, loaded the same way.
  const api = {};
  if (name !== 'breakwater') for (const owner of owners) if (owner !== name) Object.assign(api, await load(owner));
  Object.assign(api, lib);
  const ran = [];
  for (const [key, check] of Object.entries(checks)) {
    if (!own.has(key)) continue;
    if (key.startsWith('Redis') && !process.env.REDIS_URL) continue; // no redis-server here (dist.test.ts said so)
    try {
      await check(api);
    } catch (error) {
      error.message = `${name} (${how}), ${key}: ${error.message}`;
      throw error;
    }
    ran.push(key);
  }
  console.log(JSON.stringify({ ran }));
}

main().catch((error) => {
  console.error(error && error.stack ? error.stack : error);
  process.exit(1);
});
