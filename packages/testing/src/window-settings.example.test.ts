// An example for users: property-test your own breaker settings against traffic you expect,
// before production does it for you. Copy this file and put your own settings in SETTINGS.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replay, trafficArb } from './index.js';

const SETTINGS = {
  slidingWindowType: 'TIME_BASED',
  slidingWindowSize: 10, // seconds
  minimumNumberOfCalls: 10,
  failureRateThreshold: 60,
  waitDurationInOpenState: 10_000,
} as const;

describe('our breaker settings, held against generated traffic', () => {
  it('open during a full outage once ten calls fall within ten seconds', async () => {
    await fc.assert(
      fc.asyncProperty(trafficArb({ failureRate: 1, minCalls: 10, maxCalls: 60, maxGap: 900, maxLatency: 50 }), async (traffic) => {
        const result = await replay(traffic, SETTINGS);
        // Calls at most 900 ms apart: the first ten land within 9 s, so the tenth failure opens it.
        expect(result.transitions[0]).toMatchObject({ from: 'CLOSED', to: 'OPEN' });
        expect(result.failed).toBeGreaterThanOrEqual(10);
      }),
      { numRuns: 50 },
    );
  });

  it('never open on healthy traffic', async () => {
    await fc.assert(
      fc.asyncProperty(trafficArb({ failureRate: 0, maxCalls: 100 }), async (traffic) => {
        const result = await replay(traffic, SETTINGS);
        expect(result.transitions).toEqual([]);
        expect(result.rejected).toBe(0);
      }),
      { numRuns: 50 },
    );
  });

  it('stay CLOSED at night: traffic too sparse to reach the minimum never opens them, even when every call fails', async () => {
    // The trap this property makes visible: with a 10 s window and a minimum of 10 calls,
    // a call every 1.2 s or more can never put 10 calls in the window.
    await fc.assert(
      fc.asyncProperty(trafficArb({ failureRate: 1, maxCalls: 80, minGap: 1200, maxGap: 3000 }), async (traffic) => {
        const result = await replay(traffic, SETTINGS);
        expect(result.finalState).toBe('CLOSED');
        expect(result.breaker.metrics.failureRate).toBe(-1);
      }),
      { numRuns: 30 },
    );
  });
});
