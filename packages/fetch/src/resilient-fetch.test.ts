import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { decorate } from '@breakwater/decorators';
import { Retry } from '@breakwater/retry';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startServer, type TestServer } from '../test/http-server.js';
import { FetchFailedError, NotRetriedError, resilientFetch } from './index.js';

// resilientFetch against a real node:http server on 127.0.0.1: what fails an attempt, what is
// retried, what comes back (contract: docs/fetch.md). The retries here wait 0 ms: no timer.
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** A pipeline of a Retry (3 attempts, no wait) around a breaker, both observable. */
function pipeline() {
  const retry = new Retry('api', { maxAttempts: 3, waitDuration: 0 });
  const breaker = new CircuitBreaker('api', { minimumNumberOfCalls: 100 });
  return { retry, breaker, pipeline: decorate().withRetry(retry).withCircuitBreaker(breaker) };
}

describe('resilientFetch: failures and retries', () => {
  it('a 503 fails the attempt, the GET is sent again and the 200 comes back', async () => {
    server.handle((_, res, nth) => (nth === 1 ? res.writeHead(503).end('busy') : res.writeHead(200, { 'content-type': 'text/plain' }).end('fine')));
    const { retry, breaker, pipeline: p } = pipeline();
    const res = await resilientFetch(p)(`${server.origin}/items`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('fine');
    expect(server.hits('/items')).toBe(2);
    expect(retry.metrics.numberOfSuccessfulCallsWithRetryAttempt).toBe(1);
    expect(breaker.metrics).toMatchObject({ numberOfFailedCalls: 1, numberOfSuccessfulCalls: 1 });
  });

  it.each([429, 502, 503, 504])('%i fails every attempt: the caller gets a FetchFailedError with status, method and url', async (status) => {
    server.handle((_, res) => res.writeHead(status).end());
    const { retry, pipeline: p } = pipeline();
    const error = await resilientFetch(p)(`${server.origin}/always`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchFailedError);
    expect(error).toMatchObject({ name: 'FetchFailedError', status, method: 'GET', url: `${server.origin}/always`, retryAfterMs: undefined });
    expect((error as Error).message).toMatch(new RegExp(`^resilientFetch: GET ${server.origin}/always failed with ${status}`));
    expect(server.hits('/always')).toBe(3);
    expect(retry.metrics.numberOfFailedCallsWithRetryAttempt).toBe(1);
  });

  it('any other response is returned as it is, never retried: 200, 201, 301, 500', async () => {
    for (const status of [200, 201, 500]) {
      server.reset();
      server.handle((_, res) => res.writeHead(status).end(`status ${status}`));
      const res = await resilientFetch(pipeline().pipeline)(`${server.origin}/s`);
      expect(res.status).toBe(status);
      expect(await res.text()).toBe(`status ${status}`);
      expect(server.hits('/s')).toBe(1);
    }
    server.handle((_, res) => res.writeHead(301, { location: '/elsewhere' }).end());
    const res = await resilientFetch(pipeline().pipeline)(`${server.origin}/moved`, { redirect: 'manual' });
    expect(res.status).toBe(301);
  });

  it('a 404 comes back with its body, not retried; to a breaker of the pipeline it is a returned value (a success)', async () => {
    server.handle((_, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('no such item'));
    const { retry, breaker, pipeline: p } = pipeline();
    const res = await resilientFetch(p)(`${server.origin}/missing`);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('no such item');
    expect(server.hits('/missing')).toBe(1);
    expect(retry.metrics.numberOfSuccessfulCallsWithoutRetryAttempt).toBe(1);
    expect(breaker.metrics).toMatchObject({ numberOfFailedCalls: 0, numberOfSuccessfulCalls: 1 });
  });

  it('a network error (the server drops the connection) fails the attempt with status undefined and the cause; the GET is sent again', async () => {
    server.handle((req, res, nth) => (nth === 1 ? res.socket?.destroy() : res.end(req.method)));
    const { breaker, pipeline: p } = pipeline();
    const failures: unknown[] = [];
    breaker.on('error', (e) => failures.push(e.error));
    const res = await resilientFetch(p)(`${server.origin}/flaky`);
    expect(await res.text()).toBe('GET');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(FetchFailedError);
    expect(failures[0]).toMatchObject({ status: undefined, method: 'GET' });
    expect((failures[0] as Error).cause).toBeInstanceOf(TypeError);
    expect((failures[0] as Error).message).toMatch(/failed with a network error \(fetch failed/);
  });

  it('an origin nobody listens on: a network error on every attempt', async () => {
    const gone = await startServer();
    const origin = gone.origin;
    await gone.close();
    const error = await resilientFetch(pipeline().pipeline)(`${origin}/x`).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'FetchFailedError', status: undefined, url: `${origin}/x` });
  });
});

describe('resilientFetch: only what is safe to send again is retried', () => {
  beforeEach(() => server.handle((req, res, nth) => (nth === 1 ? res.writeHead(503).end() : res.writeHead(201).end(`created from ${req.body}`))));

  it('a POST that fails is not sent again: the caller gets the failure; the breaker records it; the retry sees NotRetriedError', async () => {
    const { retry, breaker, pipeline: p } = pipeline();
    const seen: unknown[] = [];
    retry.on('error', (e) => seen.push(e.error));
    const error = await resilientFetch(p)(`${server.origin}/orders`, { method: 'POST', body: 'order 1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchFailedError);
    expect(error).toMatchObject({ status: 503, method: 'POST' });
    expect(server.hits('/orders')).toBe(1);
    expect(breaker.metrics.numberOfFailedCalls).toBe(1);
    expect(retry.metrics).toMatchObject({ numberOfFailedCallsWithoutRetryAttempt: 1, numberOfFailedCallsWithRetryAttempt: 0 });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(NotRetriedError);
    expect((seen[0] as Error).cause).toBe(error);
  });

  it('a POST that succeeds at once is returned as any call', async () => {
    server.handle((req, res) => res.writeHead(201).end(`created from ${req.body}`));
    const res = await resilientFetch(pipeline().pipeline)(`${server.origin}/orders`, { method: 'POST', body: 'order 2' });
    expect(res.status).toBe(201);
    expect(await res.text()).toBe('created from order 2');
  });

  it('a POST with an Idempotency-Key is sent again, with the same body', async () => {
    const res = await resilientFetch(pipeline().pipeline)(`${server.origin}/orders`, {
      method: 'POST',
      body: 'order 3',
      headers: { 'Idempotency-Key': 'k-3' },
    });
    expect(res.status).toBe(201);
    expect(await res.text()).toBe('created from order 3');
    expect(server.received.map((r) => [r.method, r.body, r.headers['idempotency-key']])).toEqual([
      ['POST', 'order 3', 'k-3'],
      ['POST', 'order 3', 'k-3'],
    ]);
  });

  it('PUT and DELETE are idempotent; PATCH is not', async () => {
    for (const method of ['PUT', 'DELETE']) {
      server.reset();
      const res = await resilientFetch(pipeline().pipeline)(`${server.origin}/${method}`, { method, body: method === 'PUT' ? 'v' : null });
      expect(res.status).toBe(201);
      expect(server.hits(`/${method}`)).toBe(2);
    }
    server.reset();
    await expect(resilientFetch(pipeline().pipeline)(`${server.origin}/patch`, { method: 'PATCH', body: 'p' })).rejects.toMatchObject({ status: 503 });
    expect(server.hits('/patch')).toBe(1);
  });

  it('retryNonIdempotent: true sends a POST again', async () => {
    const res = await resilientFetch(pipeline().pipeline, { retryNonIdempotent: true })(`${server.origin}/orders`, { method: 'POST', body: 'order 4' });
    expect(await res.text()).toBe('created from order 4');
    expect(server.hits('/orders')).toBe(2);
  });

  it('retryOn decides instead of the method (given a Request); one that throws is reported once and the request is not retried', async () => {
    const asked: string[] = [];
    const f = resilientFetch(pipeline().pipeline, {
      retryOn: (req) => (asked.push(`${req.method} ${new URL(req.url).pathname}`), req.url.endsWith('/search')),
    });
    expect((await f(`${server.origin}/search`, { method: 'POST', body: 'q' })).status).toBe(201);
    await expect(f(`${server.origin}/orders`, { method: 'POST', body: 'o' })).rejects.toMatchObject({ status: 503 });
    expect(asked).toEqual(['POST /search', 'POST /orders']);
    expect([server.hits('/search'), server.hits('/orders')]).toEqual([2, 1]);

    server.reset();
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const throwing = resilientFetch(pipeline().pipeline, {
        retryOn: () => {
          throw new Error('boom');
        },
      });
      await expect(throwing(`${server.origin}/get`)).rejects.toMatchObject({ status: 503 });
      await expect(throwing(`${server.origin}/get-again`)).rejects.toMatchObject({ status: 503 });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(/^resilientFetch: retryOn threw; the request is sent once, not retried \(reported once\): .*boom/);
    } finally {
      warn.mockRestore();
    }
    expect([server.hits('/get'), server.hits('/get-again')]).toEqual([1, 1]);
  });

  it('a Request object keeps its method, headers and body; the caller gets the failure as thrown', async () => {
    const request = new Request(`${server.origin}/req`, { method: 'POST', body: 'as a Request', headers: { 'x-trace': 't1' } });
    await expect(resilientFetch(pipeline().pipeline)(request)).rejects.toMatchObject({ status: 503, method: 'POST' });
    expect(server.received.map((r) => [r.method, r.body, r.headers['x-trace']])).toEqual([['POST', 'as a Request', 't1']]);
  });
});
