import { RateLimiter } from '@breakwater/rate-limiter';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { bw, floor, peer, type Row } from '../harness.js';
import { work } from '../work.js';

/** A limit no run reaches: 10⁹ permits a second. */
const LIMIT = 1e9;

/** Row 8: taking a permit while permits are available (8a), and a call that takes one first (8b). */
export function rateLimiterRows(): Row[] {
  const limiter = new RateLimiter('bench', { limitForPeriod: LIMIT, limitRefreshPeriod: 1000, timeoutDuration: 0 });
  const flexible = new RateLimiterMemory({ points: LIMIT, duration: 1 });
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
  ];
}
