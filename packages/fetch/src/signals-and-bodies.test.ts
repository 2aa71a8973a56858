import { getEventListeners, once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { TimeoutError, VirtualClock } from '@breakwater/core';
import { decorate } from '@breakwater/decorators';
import { Hedge, Retry } from '@breakwater/retry';
import { TimeLimiter } from '@breakwater/time-limiter';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../test/http-server.js';
import { FetchFailedError, resilientFetch } from './index.js';

// Signals reach the socket, and a body that is not returned is cancelled (contract: docs/fetch.md).
// Real sockets: the server sees the connection the client gives up on closed, and a connection
// reused when the body was let go. Time, where a policy keeps it, is a VirtualClock.
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** Hands over each response the server holds open, as it arrives. */
function holding(): { next: () => Promise<ServerResponse> } {
  const waiting: ((res: ServerResponse) => void)[] = [];
  const held: ServerResponse[] = [];
  server.handle((_, res) => {
    const w = waiting.shift();
    if (w) w(res);
    else held.push(res);
  });
  return { next: () => (held.length > 0 ? Promise.resolve(held.shift()!) : new Promise((resolve) => waiting.push(resolve))) };
}

describe('signals', () => {
  it("the request's own signal aborts the attempt in flight: the caller gets its reason, the server sees the connection closed", async () => {
    const { next } = holding();
    const controller = new AbortController();
    const call = resilientFetch(decorate().withRetry(new Retry('api', { maxAttempts: 3, waitDuration: 0 })))(`${server.origin}/slow`, {
      signal: controller.signal,
    });
    const res = await next();
    const closed = once(res, 'close');
    const reason = new Error('the user went away');
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await closed;
    expect(server.hits('/slow')).toBe(1);
  });

  it("a POST's own signal aborts it too; no listener is left on the caller's signal once a call ends", async () => {
    const { next } = holding();
    const controller = new AbortController();
    const f = resilientFetch(decorate().withRetry(new Retry('api', { maxAttempts: 3, waitDuration: 0 })));
    const call = f(`${server.origin}/post`, { method: 'POST', body: 'b', signal: controller.signal });
    const res = await next();
    const closed = once(res, 'close');
    const reason = new Error('cancelled');
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await closed;
    expect(server.hits('/post')).toBe(1);

    // The runtime's Request follows the signal with a listener of its own (dropped when the Request
    // is collected): a plain fetch leaves as many. resilientFetch adds none of its own to it.
    const kept = new AbortController();
    const listeners = () => getEventListeners(kept.signal, 'abort').length;
    server.handle((_, r) => r.end('ok'));
    for (const init of [{ method: 'POST', body: 'b' }, { method: 'GET' }]) {
      const before = listeners();
      await (await fetch(`${server.origin}/plain`, { ...init, signal: kept.signal })).text();
      const plain = listeners() - before;
      expect(await (await f(`${server.origin}/quick`, { ...init, signal: kept.signal })).text()).toBe('ok');
      expect(listeners() - before - plain).toBe(plain);
    }
  });

  it("a time limiter's ctx.signal reaches the fetch: the time-out closes the connection; the retry's next attempt is answered", async () => {
    const clock = new VirtualClock();
    const { next } = holding();
    const pipeline = decorate()
      .withRetry(new Retry('api', { maxAttempts: 2, waitDuration: 0, clock }))
      .withTimeLimiter(new TimeLimiter('api', { timeoutDuration: '1s', clock }));
    const call = resilientFetch(pipeline)(`${server.origin}/hangs-once`);
    const first = await next();
    const closed = once(first, 'close');
    await clock.advance(1000);
    await closed;
    (await next()).writeHead(200).end('second attempt');
    expect(await (await call).text()).toBe('second attempt');
    expect(clock.pendingTimers).toBe(0);
  });

  it('a POST that timed out is not sent again (it may have reached the server): the caller gets the TimeoutError', async () => {
    const clock = new VirtualClock();
    const { next } = holding();
    const pipeline = decorate()
      .withRetry(new Retry('api', { maxAttempts: 3, waitDuration: 0, clock }))
      .withTimeLimiter(new TimeLimiter('api', { timeoutDuration: '1s', clock }));
    const outcome = resilientFetch(pipeline)(`${server.origin}/pay`, { method: 'POST', body: 'once' }).catch((e: unknown) => e);
    const res = await next();
    const closed = once(res, 'close');
    await clock.advance(1000);
    expect(await outcome).toBeInstanceOf(TimeoutError);
    await closed;
    expect(server.hits('/pay')).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it("a time-out with no retry left is the time limiter's TimeoutError, as thrown", async () => {
    const clock = new VirtualClock();
    const { next } = holding();
    const call = resilientFetch(decorate().withTimeLimiter(new TimeLimiter('api', { timeoutDuration: 500, clock })))(`${server.origin}/never`);
    const outcome = call.catch((e: unknown) => e);
    const res = await next();
    const closed = once(res, 'close');
    await clock.advance(500);
    expect(await outcome).toBeInstanceOf(TimeoutError);
    await closed;
  });
});

describe('a hedge', () => {
  it('sends a GET again beside a slow one; a POST only once (its hedged attempt fails at once with NotRetriedError)', async () => {
    const clock = new VirtualClock();
    const { next } = holding();
    const hedged = resilientFetch(decorate().withHedge(new Hedge('api', { delay: 100, clock })));

    const get = hedged(`${server.origin}/get`);
    const slowGet = await next();
    await clock.advance(100);
    (await next()).writeHead(200).end('the hedge');
    expect(await (await get).text()).toBe('the hedge');
    await once(slowGet, 'close'); // the loser aborted: its connection closed
    expect(server.hits('/get')).toBe(2);

    const post = hedged(`${server.origin}/post`, { method: 'POST', body: 'once' });
    const slowPost = await next();
    await clock.advance(100);
    slowPost.writeHead(201).end('the only one');
    expect(await (await post).text()).toBe('the only one');
    expect(server.hits('/post')).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('bodies not returned are cancelled', () => {
  it("a failure's body still streaming is cancelled: the server sees its response closed before it ended", async () => {
    const { next } = holding();
    // A GET (a POST's failure aborts the call's signal, which would free the socket by itself), and
    // no retry: only the cancelled body can close this connection. Bounded by the test's time-out.
    const call = resilientFetch(decorate())(`${server.origin}/big`);
    const res = await next();
    const closed = once(res, 'close');
    res.writeHead(503, { 'content-type': 'application/octet-stream' });
    res.write(Buffer.alloc(64 * 1024)); // and never ends: only the client can free this connection
    await expect(call).rejects.toBeInstanceOf(FetchFailedError);
    await closed;
    expect(res.writableEnded).toBe(false);
  });

  it("a response that arrives after the caller's abort is not returned: its body is cancelled", async () => {
    const { next } = holding();
    // A fetch that does not listen to the signal, the Request's included (as some do): the response still arrives.
    const deaf = (input: string | URL | Request) => globalThis.fetch((input as Request).url);
    const controller = new AbortController();
    const call = resilientFetch(decorate(), { fetch: deaf })(`${server.origin}/late`, { signal: controller.signal });
    const outcome = call.catch((e: unknown) => e);
    const res = await next();
    const closed = once(res, 'close');
    const reason = new Error('gone');
    controller.abort(reason);
    expect(await outcome).toBe(reason);
    res.writeHead(200);
    res.write(Buffer.alloc(64 * 1024)); // the late response, never ended: only the cancel frees it
    await closed;
    expect(res.writableEnded).toBe(false);
  });
});
