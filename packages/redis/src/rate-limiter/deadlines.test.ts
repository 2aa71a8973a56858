import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { type CommandTimeoutError, Deadlines } from './deadlines.js';

// On a VirtualClock: a real store bounds its round trips on systemClock, the same code.
describe('Deadlines', () => {
  it('passes outcomes through, and ends each round trip that takes too long, oldest first, with one timer', async () => {
    const clock = new VirtualClock();
    const deadlines = new Deadlines(40, clock);
    const never = new Promise<never>(() => {});
    await expect(deadlines.bound(Promise.resolve('ok'))).resolves.toBe('ok');
    await expect(deadlines.bound(Promise.reject(new Error('reply error')))).rejects.toThrow('reply error');
    expect(clock.pendingTimers).toBe(1); // armed by the first round trip, not cleared per call

    const ended: string[] = [];
    const first = deadlines.bound(never).catch((e: unknown) => ended.push(`first at ${clock.now()}: ${(e as Error).name}`));
    await clock.advance(20);
    const second = deadlines.bound(never).catch((e: unknown) => ended.push(`second at ${clock.now()}: ${(e as CommandTimeoutError).timeoutMs}`));
    await clock.runAll();
    await Promise.all([first, second]);
    expect(ended).toEqual(['first at 40: CommandTimeoutError', 'second at 60: 40']);
    expect(clock.pendingTimers).toBe(0);
  });
});
