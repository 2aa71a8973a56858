// A hedge's calls share one timer, which fires in the async context of whichever call armed it; a
// hedge started by the delay must still run in its own call's context (its AsyncLocalStorage
// stores: the active span of a trace, a request's logger), as a per-call timer would.
import { AsyncLocalStorage } from 'node:async_hooks';
import { VirtualClock, type CallContext } from '@breakwater/core';
import { afterEach, describe, expect, it } from 'vitest';
import { Hedge } from './index.js';

const clock = new VirtualClock();
afterEach(() => expect(clock.pendingTimers).toBe(0));

describe('a hedge started by its delay', () => {
  it('runs in the async context of its own call, whichever call armed the shared timer', async () => {
    const request = new AsyncLocalStorage<string>();
    const hedge = new Hedge('search', { delay: 100, clock });
    const seen: string[] = [];
    const events: string[] = [];
    hedge.on('hedge', (e) => events.push(`${request.getStore()} hedged attempt ${e.attempt}`));
    const fn = (ctx: CallContext) =>
      new Promise<string>((resolve) => {
        const store = request.getStore();
        seen.push(`${store} attempt ${ctx.attempt}`);
        clock.setTimeout(() => resolve(`${store} answer ${ctx.attempt}`), ctx.attempt === 1 ? 1000 : 10);
      });
    // Call A arms the shared timer; call B, 40 ms later, is due after it, on the same timer.
    const a = request.run('A', () => hedge.execute(fn));
    await clock.advance(40);
    const b = request.run('B', () => hedge.execute(fn));
    await clock.advance(1000);
    await expect(Promise.all([a, b])).resolves.toEqual(['A answer 2', 'B answer 2']);
    expect(seen).toEqual(['A attempt 1', 'B attempt 1', 'A attempt 2', 'B attempt 2']);
    expect(events).toEqual(['A hedged attempt 2', 'B hedged attempt 2']);
  });
});
