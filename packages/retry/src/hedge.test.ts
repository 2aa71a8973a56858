import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { Hedge } from './index.js';

describe('Hedge (contract: docs/hedging.md)', () => {
  it('starts a second attempt after the delay; the first answer wins and the loser is aborted', async () => {
    const clock = new VirtualClock();
    const hedge = new Hedge('search', { delay: 100, clock });
    const signals: AbortSignal[] = [];
    const p = hedge.execute(
      (ctx) =>
        new Promise<string>((resolve, reject) => {
          signals.push(ctx.signal);
          if (ctx.attempt === 2) clock.setTimeout(() => resolve('hedge'), 10);
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
        }),
    );
    await clock.advance(100);
    expect(signals).toHaveLength(2);
    await clock.advance(10);
    await expect(p).resolves.toBe('hedge');
    expect(signals[0]!.aborted).toBe(true);
    expect(signals[1]!.aborted).toBe(false);
    expect(hedge.metrics).toEqual({
      numberOfSuccessfulCalls: 1,
      numberOfFailedCalls: 0,
      numberOfHedgedAttempts: 1,
      numberOfHedgesRefusedByBudget: 0,
      winsByAttempt: [0, 1],
    });
    expect(clock.pendingTimers).toBe(0);
  });
});
