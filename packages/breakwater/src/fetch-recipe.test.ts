// The `fetch` recipe of the root README.md, run against a real HTTP server on 127.0.0.1. The code
// of each recipe is the README's, with `clock` added: the breaker's and the time limiter's time is a
// VirtualClock, so nothing here waits on real time beyond the HTTP round trips.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CallNotPermittedError, CircuitBreaker, decorate, TimeLimiter, TimeoutError, VirtualClock } from './index.js';

/** Requests the server has received, by path. */
const hits = new Map<string, number>();
/** Requests to /hang, held open until the client goes away; each resolves `received` when it arrives. */
let received: () => void = () => {};
let closedByClient: Promise<void> = Promise.resolve();

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/unavailable') res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance');
    else if (path === '/missing') res.writeHead(404, { 'content-type': 'text/plain' }).end('no such item');
    else if (path === '/items/42') res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":42,"stock":7}');
    else if (path === '/hang') {
      closedByClient = once(res, 'close').then(() => undefined); // never answered: only the client can end it
      received();
    } else res.writeHead(500).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

beforeEach(() => hits.clear());

describe('README recipe: fetch, keeping the Response (recordResult)', () => {
  // As in the README, plus `clock`.
  function recipe(clock: VirtualClock) {
    const breaker = new CircuitBreaker('inventory', {
      slidingWindowSize: 20,
      minimumNumberOfCalls: 10,
      failureRateThreshold: 50,
      recordResult: (r) => r instanceof Response && r.status >= 500,
      clock,
    });
    const timeLimiter = new TimeLimiter('inventory', { timeoutDuration: '2s', clock });

    const inventory = decorate().withCircuitBreaker(breaker).withTimeLimiter(timeLimiter);
    const get = inventory.wrap((ctx, url: string) => fetch(url, { signal: ctx.signal }));
    return { breaker, get };
  }

  it('a 503 Response comes back to the caller and is recorded as a failure; ten of them open the breaker', async () => {
    const clock = new VirtualClock();
    const { breaker, get } = recipe(clock);
    const failures: unknown[] = [];
    breaker.on('error', (e) => failures.push(e));
    for (let i = 1; i <= 10; i++) {
      const res = await get(`${base}/unavailable`);
      expect(res.status).toBe(503); // the caller still gets the Response
      expect(await res.text()).toBe('down for maintenance');
    }
    expect(failures).toHaveLength(10);
    expect(breaker.metrics.numberOfFailedCalls).toBe(10);
    expect(breaker.state).toBe('OPEN');
    await expect(get(`${base}/unavailable`)).rejects.toBeInstanceOf(CallNotPermittedError);
    expect(hits.get('/unavailable')).toBe(10); // the refused call never reached the server
    expect(clock.pendingTimers).toBe(0);
  });

  it('a 200 is a success, and so is a 404 here (only 5xx are recorded)', async () => {
    const { breaker, get } = recipe(new VirtualClock());
    expect(await (await get(`${base}/items/42`)).json()).toEqual({ id: 42, stock: 7 });
    const missing = await get(`${base}/missing`);
    expect(missing.status).toBe(404);
    await missing.body?.cancel();
    expect(breaker.metrics).toMatchObject({ numberOfSuccessfulCalls: 2, numberOfFailedCalls: 0 });
  });

  it('the time limiter aborts the request through ctx.signal and the breaker records the TimeoutError', async () => {
    const clock = new VirtualClock();
    const { breaker, get } = recipe(clock);
    const arrived = new Promise<void>((resolve) => (received = resolve));
    const call = get(`${base}/hang`);
    const settled = call.catch((e: unknown) => e);
    await arrived; // the request is at the server, which will never answer
    await clock.advance(2000); // the time limiter's 2 s, on the VirtualClock
    expect(await settled).toBeInstanceOf(TimeoutError);
    await closedByClient; // fetch gave up the request: the signal reached it
    expect(breaker.metrics.numberOfFailedCalls).toBe(1);
  });
});

describe('README recipe: fetch, throwing an HttpError (4xx ignored)', () => {
  // As in the README, plus `clock`.
  class HttpError extends Error {
    override name = 'HttpError';
    constructor(
      readonly status: number,
      readonly url: string,
    ) {
      super(`${url} answered ${status}`);
    }
  }

  function recipe(clock: VirtualClock) {
    const breaker = new CircuitBreaker('inventory', {
      slidingWindowSize: 20,
      minimumNumberOfCalls: 10,
      failureRateThreshold: 50,
      ignoreException: (e) => e instanceof HttpError && e.status < 500 && e.status !== 429,
      clock,
    });
    const timeLimiter = new TimeLimiter('inventory', { timeoutDuration: '2s', clock });

    const getJson = decorate()
      .withCircuitBreaker(breaker)
      .withTimeLimiter(timeLimiter)
      .wrap(async (ctx, url: string) => {
        const res = await fetch(url, { signal: ctx.signal });
        if (!res.ok) {
          await res.body?.cancel(); // the body will not be read: free the connection
          throw new HttpError(res.status, url);
        }
        return res.json();
      });
    return { breaker, getJson };
  }

  it('a 404 is the caller’s HttpError and is ignored: neither a success nor a failure, the breaker stays CLOSED', async () => {
    const clock = new VirtualClock();
    const { breaker, getJson } = recipe(clock);
    const ignored: unknown[] = [];
    breaker.on('ignoredError', (e) => ignored.push(e));
    for (let i = 1; i <= 12; i++) {
      const error = await getJson(`${base}/missing`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HttpError);
      expect(error).toMatchObject({ status: 404, message: `${base}/missing answered 404` });
    }
    expect(ignored).toHaveLength(12);
    expect(breaker.metrics.numberOfBufferedCalls).toBe(0);
    expect(breaker.state).toBe('CLOSED');
    expect(await getJson(`${base}/items/42`)).toEqual({ id: 42, stock: 7 });
    expect(clock.pendingTimers).toBe(0);
  });

  it('a 503 is an HttpError recorded as a failure; ten of them open the breaker, which then refuses without calling', async () => {
    const { breaker, getJson } = recipe(new VirtualClock());
    for (let i = 1; i <= 10; i++) {
      await expect(getJson(`${base}/unavailable`)).rejects.toMatchObject({ name: 'HttpError', status: 503 });
    }
    expect(breaker.metrics).toMatchObject({ numberOfFailedCalls: 10, failureRate: 100 });
    expect(breaker.state).toBe('OPEN');
    await expect(getJson(`${base}/unavailable`)).rejects.toBeInstanceOf(CallNotPermittedError);
    expect(hits.get('/unavailable')).toBe(10);
  });
});
