import { FaultInjection, LatencyInjection } from '@breakwater/chaos';
import { Hedge, Retry } from '@breakwater/retry';
import { bw, floor, type Row } from '../harness.js';
import { reference } from '../references.js';
import { work } from '../work.js';

/** The case names rows 16a and 16b judge (no other JavaScript library has a hedge or chaos strategies). */
export const HEDGE_CHAOS_CASES = {
  hedge: 'Breakwater Hedge.execute(fn) (delay 2 s: it never fires)',
  retry: 'Breakwater Retry.execute(fn) (3 attempts: it never retries)',
  percentileHedge: 'Breakwater Hedge.execute(fn) (delay: p95 of recent calls; it never fires)',
  faultsOff: 'Breakwater FaultInjection.execute(fn), not enabled',
  latencyOff: 'Breakwater LatencyInjection.execute(fn), not enabled',
  faultsRateZero: 'Breakwater FaultInjection.execute(fn), enabled at rate 0 (one draw per call)',
} as const;

/**
 * Row 16a: one call at a time through a hedge whose delay never elapses (the call answers first),
 * beside a retry whose call never fails (its reference: the target is the hedge's overhead
 * at most the retry's + 100 ns), a hedge with a percentile delay (shown: it records each call's
 * duration, two clock readings), and one clock reading with no policy (references.ts): a hedge
 * must know when each call started to start its hedge on time on its one shared timer (a timer
 * per call would cost more: ~110 ns to set and clear an unref'd Node timer here).
 * Row 16b: one call at a time through a chaos strategy that is not enabled (the target: ≤ 20 ns
 * over the floor), and one enabled at rate 0 (shown: it reads its options and draws once per call).
 */
export function hedgeChaosRows(): Row[] {
  const hedge = new Hedge('bench');
  const percentileHedge = new Hedge('bench', { delay: { percentile: 0.95 } });
  const retry = new Retry('bench', { maxAttempts: 3, waitDuration: 0 });
  const faultsOff = new FaultInjection('bench', { fault: new Error('never') });
  const latencyOff = new LatencyInjection('bench', { latency: '1s' });
  const faultsRateZero = new FaultInjection('bench', { enabled: true, rate: 0, fault: new Error('never') });
  return [
    {
      id: '16a',
      title: 'Hedge, one call at a time (the call answers before the delay: no hedge)',
      floor: floor('await fn()', () => work()),
      cases: [
        bw(HEDGE_CHAOS_CASES.hedge, () => hedge.execute(work)),
        bw(HEDGE_CHAOS_CASES.retry, () => retry.execute(work), { informational: true }),
        bw(HEDGE_CHAOS_CASES.percentileHedge, () => percentileHedge.execute(work), { informational: true }),
        reference('read'),
      ],
    },
    {
      id: '16b',
      title: 'Chaos, one call at a time (not enabled: nothing injected)',
      floor: floor('await fn()', () => work()),
      cases: [
        bw(HEDGE_CHAOS_CASES.faultsOff, () => faultsOff.execute(work)),
        bw(HEDGE_CHAOS_CASES.latencyOff, () => latencyOff.execute(work)),
        bw(HEDGE_CHAOS_CASES.faultsRateZero, () => faultsRateZero.execute(work), { informational: true }),
      ],
    },
  ];
}
