import { AsyncLocalStorage } from 'node:async_hooks';
import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { faultInjection, latencyInjection } from './index.js';

// The README's recipe "turn chaos on for one request" (contract: docs/chaos.md): the request's
// handler stores a flag in an AsyncLocalStorage when a trusted header asks for chaos; `enabled`
// reads it for each call, wherever in the request's async work the call is made.

interface RequestChaos {
  readonly chaos: boolean;
}

const requestContext = new AsyncLocalStorage<RequestChaos>();
const SECRET = 'let-me-break-it';

/** What the service's middleware does: chaos only when the header carries the secret (never from an untrusted caller). */
function handle<T>(headers: Record<string, string | undefined>, handler: () => Promise<T>): Promise<T> {
  return requestContext.run({ chaos: headers['x-chaos'] === SECRET }, handler);
}

describe('chaos on for one request (AsyncLocalStorage)', () => {
  it('only the request that asked (with the secret) is injected; others, concurrent ones included, are not', async () => {
    const clock = new VirtualClock();
    const faults = faultInjection({
      name: 'pg',
      rate: 1,
      enabled: () => requestContext.getStore()?.chaos === true,
      fault: () => new Error('chaos for this request'),
      clock,
    });
    const query = () => faults.execute(async () => 'rows');
    const service = async () => {
      await Promise.resolve();
      return query();
    };
    const results = await Promise.allSettled([
      handle({ 'x-chaos': SECRET }, service),
      handle({}, service),
      handle({ 'x-chaos': 'guess' }, service),
      service(), // outside any request
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(faults.metrics).toEqual({ numberOfInjectedCalls: 1, numberOfCallsNotInjected: 3 });
  });

  it('the flag follows the request across awaits and timers (a latency for that request alone)', async () => {
    const clock = new VirtualClock();
    const slow = latencyInjection({ rate: 1, latency: 200, enabled: () => requestContext.getStore()?.chaos === true, clock });
    const chaotic = handle({ 'x-chaos': SECRET }, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return slow.execute(() => clock.now());
    });
    const calm = handle({}, () => slow.execute(() => clock.now()));
    expect(await calm).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    await clock.advance(200);
    expect(await chaotic).toBe(200);
    expect(clock.pendingTimers).toBe(0);
  });
});
