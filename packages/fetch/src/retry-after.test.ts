import { VirtualClock } from '@breakwater/core';
import { decorate } from '@breakwater/decorators';
import { Retry, retryAfterInterval, type RetryEvents } from '@breakwater/retry';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nextEvent, startServer, type TestServer } from '../test/http-server.js';
import { type FetchFailedError, resilientFetch } from './index.js';
import { retryAfterMs } from './retry-after.js';

// Retry-After honoured as the next wait, capped by the retry's maximum (contract: docs/fetch.md).
// The retry waits on a VirtualClock while real sockets answer: the wait is read exactly (the retry's
// timer is due at the instant the header asked for), and nothing here waits on real time but the
// round trips. An HTTP date is taken against the response's own Date header, so the server sets both.

describe('retryAfterMs (the header, read)', () => {
  const now = () => Date.UTC(2026, 11, 2, 12, 0, 0);
  it('delay-seconds: a non-negative integer of seconds', () => {
    expect(retryAfterMs('2', null, now)).toBe(2000);
    expect(retryAfterMs(' 120 ', null, now)).toBe(120_000);
    expect(retryAfterMs('0', null, now)).toBe(0);
    for (const bad of ['-1', '1.5', '2s', '', 'soon', '1e3', '2026-12-02']) expect(retryAfterMs(bad, null, now), bad).toBeUndefined();
    expect(retryAfterMs(null, null, now)).toBeUndefined();
  });

  it("an HTTP date: less the response's Date header when valid, else less now(); a past date is 0", () => {
    const date = 'Wed, 02 Dec 2026 12:00:00 GMT';
    expect(retryAfterMs('Wed, 02 Dec 2026 12:00:07 GMT', date, () => 0)).toBe(7000);
    expect(retryAfterMs('Wed, 02 Dec 2026 12:00:07 GMT', null, now)).toBe(7000);
    expect(retryAfterMs('Wed, 02 Dec 2026 12:00:07 GMT', 'not a date', now)).toBe(7000);
    expect(retryAfterMs('Wed, 02 Dec 2026 11:59:00 GMT', date, now)).toBe(0);
    // RFC 9110's obsolete forms, which a recipient must accept: RFC 850 and asctime.
    expect(retryAfterMs('Wednesday, 02-Dec-26 12:00:30 GMT', date, now)).toBe(30_000);
    expect(retryAfterMs('Wed Dec  2 12:01:00 2026', date, now)).toBe(60_000); // GMT, whatever the local zone
  });
});

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** A retry on a VirtualClock, waiting what the server asked, at most 5 s (100 ms when it asked nothing). */
function retrying(clock: VirtualClock) {
  const retry = new Retry('api', { maxAttempts: 3, intervalBiFunction: retryAfterInterval('5s', 100), clock });
  return { retry, pipeline: decorate().withRetry(retry) };
}

/** Calls `path` (the server answers `first`, then 200), waits for the retry's wait, and returns it with the timer it set. */
async function firstWait(path: string, first: (res: import('node:http').ServerResponse) => void, options?: { respectRetryAfter?: boolean }) {
  server.handle((_, res, nth) => (nth === 1 ? first(res) : res.writeHead(200).end('after the wait')));
  const clock = new VirtualClock();
  const { retry, pipeline } = retrying(clock);
  const retried = nextEvent<RetryEvents['retry']>((l) => retry.on('retry', l));
  const call = resilientFetch(pipeline, options)(`${server.origin}${path}`);
  const event = await retried;
  return { clock, call, event, dueIn: clock.nextTimerAt! - clock.now() };
}

describe('Retry-After, honoured by the retry', () => {
  it('429 with Retry-After: 2 — the next attempt starts 2000 ms later, not 1 ms sooner', async () => {
    const { clock, call, event, dueIn } = await firstWait('/throttled', (res) => res.writeHead(429, { 'retry-after': '2' }).end());
    expect(event.waitMs).toBe(2000);
    expect((event as { error: unknown }).error).toMatchObject({ name: 'FetchFailedError', status: 429, retryAfterMs: 2000 });
    expect(dueIn).toBe(2000);
    await clock.advance(1999);
    expect(server.hits('/throttled')).toBe(1);
    await clock.advance(1);
    const res = await call;
    expect(await res.text()).toBe('after the wait');
    expect(server.hits('/throttled')).toBe(2);
    expect(clock.pendingTimers).toBe(0);
  });

  it("503 with Retry-After: <HTTP date> — the wait is the date less the response's Date", async () => {
    const sent = Math.floor(Date.now() / 1000) * 1000;
    const { clock, call, event, dueIn } = await firstWait('/maintenance', (res) => {
      res.sendDate = false;
      res.writeHead(503, { date: new Date(sent).toUTCString(), 'retry-after': new Date(sent + 3000).toUTCString() }).end();
    });
    expect(event.waitMs).toBe(3000);
    expect(dueIn).toBe(3000);
    await clock.advance(3000);
    expect((await call).status).toBe(200);
    expect(server.hits('/maintenance')).toBe(2);
  });

  it("capped by the retry's maximum: Retry-After: 120 waits 5 s", async () => {
    const { clock, call, event } = await firstWait('/long', (res) => res.writeHead(503, { 'retry-after': '120' }).end());
    expect((event as { error: FetchFailedError }).error.retryAfterMs).toBe(120_000);
    expect(event.waitMs).toBe(5000);
    await clock.advance(5000);
    expect((await call).status).toBe(200);
  });

  it('no Retry-After, or a bad one: the retry waits its own interval', async () => {
    for (const header of [undefined, 'later']) {
      server.reset();
      const { clock, call, event } = await firstWait('/plain', (res) => res.writeHead(503, header === undefined ? {} : { 'retry-after': header }).end());
      expect((event as { error: FetchFailedError }).error.retryAfterMs).toBeUndefined();
      expect(event.waitMs).toBe(100);
      await clock.advance(100);
      expect((await call).status).toBe(200);
    }
  });

  it('respectRetryAfter: false — the error carries no retryAfterMs, and the retry waits its own interval', async () => {
    const { clock, call, event } = await firstWait('/ignored', (res) => res.writeHead(429, { 'retry-after': '2' }).end(), { respectRetryAfter: false });
    expect((event as { error: FetchFailedError }).error.retryAfterMs).toBeUndefined();
    expect(event.waitMs).toBe(100);
    await clock.advance(100);
    expect((await call).status).toBe(200);
    expect(clock.pendingTimers).toBe(0);
  });
});
