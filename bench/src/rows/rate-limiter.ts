import { RateLimiter } from '@breakwater/rate-limiter';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { bw, floor, peer, type Row } from '../harness.js';
import { work } from '../work.js';

/** A limit no run reaches: 10⁹ permits a second. */
const LIMIT = 1e9;
/** The largest limit a shared limiter holds (permissions are an int32): 2·10⁹ permits a second. */
const SHARED_LIMIT = 2 ** 31 - 1;

/** The case names row 12's target compares. */
export const SHARED_CASES = {
  shared: 'Breakwater RateLimiter.shared(…).acquirePermission()',
  inProcess: 'Breakwater RateLimiter.acquirePermission() (in-process)',
} as const;

/**
 * Row 8: taking a permit while permits are available (8a), and a call that takes one first (8b).
 * Row 12: the same acquire on a limiter whose state is in a SharedArrayBuffer (`RateLimiter.shared`,
 * one thread: the compare-and-swap path without contention), beside the in-process limiter.
 */
export function rateLimiterRows(): Row[] {
  const limiter = new RateLimiter('bench', { limitForPeriod: LIMIT, limitRefreshPeriod: 1000, timeoutDuration: 0 });
  const flexible = new RateLimiterMemory({ points: LIMIT, duration: 1 });
  const shared = RateLimiter.shared('bench-shared', { limitForPeriod: SHARED_LIMIT, limitRefreshPeriod: 1000, timeoutDuration: 0 });
  const noop = () => Promise.resolve();
  return [
    {
      id: '8a',
      title: 'Rate limiter, acquire one permit (permits available)',
      floor: floor('await Promise.resolve()', noop),
      cases: [
        bw('Breakwater RateLimiter.acquirePermission()', () => limiter.acquirePermission()),
        peer("rate-limiter-flexible RateLimiterMemory.consume('key')", () => flexible.consume('key')),
      ],
    },
    {
      id: '8b',
      title: 'Rate limiter, a call that takes one permit first',
      floor: floor('await fn()', () => work()),
      cases: [
        bw('Breakwater RateLimiter.execute(fn)', () => limiter.execute(work)),
        peer("rate-limiter-flexible consume('key').then(fn)", () => flexible.consume('key').then(work)),
      ],
    },
    {
      id: '12',
      title: 'Shared rate limiter (SharedArrayBuffer), acquire one permit, one thread',
      floor: floor('await Promise.resolve()', noop),
      cases: [
        bw(SHARED_CASES.shared, () => shared.acquirePermission()),
        bw(SHARED_CASES.inProcess, () => limiter.acquirePermission(), { informational: true }),
      ],
    },
  ];
}
