import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { scripted } from '../test/test-support.js';
import { behaviorInjection, faultInjection, latencyInjection, outcomeInjection } from './index.js';

describe('smoke', () => {
  it('each strategy injects on a draw under the rate', async () => {
    const clock = new VirtualClock();
    const fault = faultInjection({ enabled: true, rate: 0.5, random: scripted([0.1, 0.9]), fault: new Error('f') });
    await expect(fault.execute(() => 1)).rejects.toThrow('f');
    await expect(fault.execute(() => 1)).resolves.toBe(1);
    expect(fault.metrics).toEqual({ numberOfInjectedCalls: 1, numberOfCallsNotInjected: 1 });
    const outcome = outcomeInjection({ enabled: true, rate: 1, outcome: 7 });
    await expect(outcome.execute(() => 1)).resolves.toBe(7);
    const slow = latencyInjection({ enabled: true, rate: 1, latency: 100, clock });
    const p = slow.execute(() => clock.now());
    await clock.advance(100);
    await expect(p).resolves.toBe(100);
    const seen: string[] = [];
    const behavior = behaviorInjection({ enabled: true, rate: 1, behavior: () => void seen.push('b') });
    await expect(behavior.execute(() => seen.push('fn'))).resolves.toBe(2);
    expect(seen).toEqual(['b', 'fn']);
    expect(clock.pendingTimers).toBe(0);
  });
});
