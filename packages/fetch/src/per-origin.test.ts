import { CallNotPermittedError, TimeoutError, VirtualClock } from '@breakwater/core';
import { CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import { decorate } from '@breakwater/decorators';
import { Retry } from '@breakwater/retry';
import { TimeLimiter } from '@breakwater/time-limiter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../test/http-server.js';
import { FetchFailedError, resilientFetch, type OriginBreakers } from './index.js';

// perOrigin: a breaker per origin from a CircuitBreakerRegistry, named by the origin, driven through
// its permission API; a 4xx is ignored by it (contract: docs/fetch.md). Two real servers: one down
// (503 on every request), one up. The breakers' clock is a VirtualClock (durations only).
let down: TestServer;
let up: TestServer;
beforeAll(async () => {
  down = await startServer((_, res) => res.writeHead(503).end('down'));
  up = await startServer((req, res) => (req.path === '/missing' ? res.writeHead(404).end('no such item') : res.writeHead(200).end('up')));
});
afterAll(async () => {
  await down.close();
  await up.close();
});

function setUp(config: ConstructorParameters<typeof CircuitBreakerRegistry>[0] = {}) {
  const clock = new VirtualClock();
  const breakers = new CircuitBreakerRegistry({ defaultConfig: { slidingWindowSize: 4, minimumNumberOfCalls: 2, failureRateThreshold: 50, clock }, ...config });
  const retry = new Retry('api', { maxAttempts: 2, waitDuration: 0 });
  return { clock, breakers, fetch: resilientFetch(decorate().withRetry(retry), { perOrigin: breakers }) };
}

describe('perOrigin', () => {
  it('one origin down opens its own breaker; the other stays CLOSED', async () => {
    const { breakers, fetch } = setUp();
    await expect(fetch(`${down.origin}/a`)).rejects.toBeInstanceOf(FetchFailedError);
    expect((await fetch(`${up.origin}/a`)).status).toBe(200);
    expect((await fetch(`${up.origin}/b`)).status).toBe(200);
    const downBreaker = breakers.find(down.origin)!;
    const upBreaker = breakers.find(up.origin)!;
    expect(downBreaker.name).toBe(down.origin);
    expect(downBreaker.state).toBe('OPEN');
    expect(downBreaker.metrics.numberOfFailedCalls).toBe(2);
    expect(upBreaker.state).toBe('CLOSED');
    expect(upBreaker.metrics).toMatchObject({ numberOfSuccessfulCalls: 2, numberOfFailedCalls: 0 });
    // The open breaker refuses before anything is sent; the retry does not retry a refusal.
    const refused = await fetch(`${down.origin}/c`).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CallNotPermittedError);
    expect(refused).toMatchObject({ circuitBreakerName: down.origin, state: 'OPEN' });
    expect(down.hits('/c')).toBe(0);
    expect((await fetch(`${up.origin}/c`)).status).toBe(200);
  });

  it("a POST's failure is recorded once by its origin's breaker, and not sent again (a network error neither)", async () => {
    const { breakers, fetch } = setUp({ defaultConfig: { minimumNumberOfCalls: 10 } });
    await expect(fetch(`${down.origin}/orders`, { method: 'POST', body: 'o' })).rejects.toMatchObject({ status: 503, method: 'POST' });
    expect(down.hits('/orders')).toBe(1);
    expect(breakers.find(down.origin)!.metrics).toMatchObject({ numberOfFailedCalls: 1, numberOfBufferedCalls: 1 });

    const dropping = await startServer((_, res) => res.socket?.destroy());
    try {
      await expect(fetch(`${dropping.origin}/orders`, { method: 'POST', body: 'o' })).rejects.toMatchObject({ status: undefined, method: 'POST' });
      expect(dropping.hits('/orders')).toBe(1);
      expect(breakers.find(dropping.origin)!.metrics.numberOfFailedCalls).toBe(1);
    } finally {
      await dropping.close();
    }
  });

  it('a POST refused by an open breaker was never sent: a retry that retries refusals (retryCallNotPermitted) may try it again', async () => {
    const { breakers } = setUp();
    const breaker = breakers.get(up.origin);
    breaker.transitionToOpenState();
    let attempts = 0;
    const retry = new Retry('api', { maxAttempts: 2, waitDuration: 0, retryCallNotPermitted: true });
    retry.on('retry', () => {
      if (++attempts === 1) breaker.transitionToClosedState();
    });
    const fetch = resilientFetch(decorate().withRetry(retry), { perOrigin: breakers });
    expect((await fetch(`${up.origin}/after-refusal`, { method: 'POST', body: 'p' })).status).toBe(200);
    expect(up.hits('/after-refusal')).toBe(1);
  });

  it('a 404 is ignored by the breaker: neither a success nor a failure, and comes back with its body', async () => {
    const { breakers, fetch } = setUp();
    const res = await fetch(`${up.origin}/missing`);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('no such item');
    expect(breakers.find(up.origin)!.metrics).toMatchObject({ numberOfBufferedCalls: 0, numberOfSuccessfulCalls: 0, numberOfFailedCalls: 0 });
  });

  it('a 404 in HALF_OPEN gives its trial permit back', async () => {
    const { breakers, fetch } = setUp({ defaultConfig: { permittedNumberOfCallsInHalfOpenState: 1 } });
    const breaker = breakers.get(up.origin);
    breaker.transitionToOpenState();
    breaker.transitionToHalfOpenState();
    expect((await fetch(`${up.origin}/missing`)).status).toBe(404);
    expect((await fetch(`${up.origin}/missing`)).status).toBe(404); // the one permit, given back and taken again
    expect(breaker.state).toBe('HALF_OPEN');
    expect((await fetch(`${up.origin}/ok`)).status).toBe(200);
    expect(breaker.state).toBe('CLOSED');
  });

  it("the registry's options apply: recordResult counts a 500 as a failure, ignoreExceptions leaves a failure out", async () => {
    const { breakers, fetch } = setUp({
      defaultConfig: { minimumNumberOfCalls: 10, recordResult: (r) => r instanceof Response && r.status >= 500 },
      configs: { lenient: { ignoreExceptions: [FetchFailedError] } },
    });
    const five = await startServer((_, res) => res.writeHead(500).end());
    try {
      expect((await fetch(`${five.origin}/x`)).status).toBe(500);
      expect(breakers.find(five.origin)!.metrics.numberOfFailedCalls).toBe(1);
      breakers.get(down.origin, 'lenient');
      await expect(fetch(`${down.origin}/x`)).rejects.toMatchObject({ status: 503 });
      expect(breakers.find(down.origin)!.metrics).toMatchObject({ numberOfFailedCalls: 0, numberOfBufferedCalls: 0 });
    } finally {
      await five.close();
    }
  });

  it("a time limiter's time-out is a failure of the origin (as with the time limiter inside a breaker)", async () => {
    const hang = await startServer(() => {});
    try {
      const clock = new VirtualClock();
      const breakers = new CircuitBreakerRegistry({ defaultConfig: { minimumNumberOfCalls: 10, clock } });
      const timed = resilientFetch(decorate().withTimeLimiter(new TimeLimiter('api', { timeoutDuration: 500, clock })), { perOrigin: breakers });
      const outcome = timed(`${hang.origin}/slow`).catch((e: unknown) => e);
      await new Promise<void>((resolve) => hang.handle(() => resolve()));
      await clock.advance(500);
      expect(await outcome).toBeInstanceOf(TimeoutError);
      expect(breakers.find(hang.origin)!.metrics).toMatchObject({ numberOfFailedCalls: 1, numberOfBufferedCalls: 1 });
    } finally {
      await hang.close();
    }
  });

  it('a caller who aborts is not recorded against the origin', async () => {
    const hang = await startServer(() => {});
    try {
      const { breakers, fetch } = setUp();
      const controller = new AbortController();
      const call = fetch(`${hang.origin}/slow`, { signal: controller.signal });
      await new Promise<void>((resolve) => hang.handle(() => resolve()));
      controller.abort(new Error('the user left'));
      await expect(call).rejects.toThrow('the user left');
      expect(breakers.find(hang.origin)!.metrics).toMatchObject({ numberOfBufferedCalls: 0 });
    } finally {
      await hang.close();
    }
  });

  it('takes any registry-like object; its breakers are named by origin (scheme, host, port)', async () => {
    const names: string[] = [];
    const { breakers } = setUp();
    const perOrigin: OriginBreakers = { get: (name) => (names.push(name), breakers.get(name)) };
    const fetch = resilientFetch(decorate(), { perOrigin });
    await (await fetch(`${up.origin}/path?q=1#frag`)).text();
    expect(names).toEqual([up.origin]);
  });
});
