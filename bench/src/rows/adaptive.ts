import { AdaptiveLimiter, AdaptiveThrottle } from '@breakwater/adaptive';
import { Bulkhead } from '@breakwater/bulkhead';
import { PrometheusMetrics } from '@breakwater/prometheus';
import { RateLimiter } from '@breakwater/rate-limiter';
import { Registry } from 'prom-client';
import { bw, floor, type Row } from '../harness.js';
import { reference } from '../references.js';
import { work } from '../work.js';

/** The case names rows 14a and 14b judge against each other (no other library has these policies). */
export const ADAPTIVE_CASES = {
  limiter: 'Breakwater AdaptiveLimiter.execute(fn) (vegas, windowed: the defaults)',
  observed: 'Breakwater AdaptiveLimiter.execute(fn) + PrometheusMetrics (its round-trip histogram)',
  bulkhead: 'Breakwater Bulkhead (semaphore), 20 slots',
  throttle: 'Breakwater AdaptiveThrottle.execute(fn) (k 2, 2 min window)',
  rateLimiter: 'Breakwater RateLimiter.execute(fn)',
} as const;

/**
 * Row 14a: one call at a time through an adaptive limiter with its defaults (Vegas through
 * Netflix's window, an initial limit of 20), beside the semaphore bulkhead of 20 slots (its
 * reference: the limiter does a bulkhead's work and also times every call and feeds the sample),
 * and the same limiter exported to Prometheus (shown: what its round-trip histogram adds per call,
 * through the limiter's `observeCalls` hook), and the no-policy references (references.ts): the
 * call timed by two clock readings, and the call seen by a `then` — their difference is what
 * timing a call costs on this machine, which the target takes out (targets.ts).
 * Row 14b: one call at a time through an adaptive throttle (it counts the request and its
 * accept in its window, and draws only when the reject ratio is above 0, which it never is
 * here), beside the rate limiter taking one permit (its reference), and the call seen by a `then`
 * with no policy (the throttle must see the outcome to count its accept; the rate limiter need not).
 */
export function adaptiveRows(): Row[] {
  const limiter = new AdaptiveLimiter('bench');
  const observed = new AdaptiveLimiter('bench');
  new PrometheusMetrics({ registry: new Registry() }).add(observed);
  const bulkhead = new Bulkhead('bench', { maxConcurrentCalls: 20, maxWaitDuration: Infinity });
  const throttle = new AdaptiveThrottle('bench');
  const rateLimiter = new RateLimiter('bench', { limitForPeriod: 1e9, limitRefreshPeriod: 1000, timeoutDuration: 0 });
  return [
    {
      id: '14a',
      title: 'Adaptive limiter, one call at a time (the limit never reached)',
      floor: floor('await fn()', () => work()),
      cases: [
        bw(ADAPTIVE_CASES.limiter, () => limiter.execute(work)),
        bw(ADAPTIVE_CASES.bulkhead, () => bulkhead.execute(work), { informational: true }),
        bw(ADAPTIVE_CASES.observed, () => observed.execute(work), { informational: true }),
        reference('timed'),
        reference('seen'),
      ],
    },
    {
      id: '14b',
      title: 'Adaptive throttle, one call at a time (the backend accepts every request)',
      floor: floor('await fn()', () => work()),
      cases: [
        bw(ADAPTIVE_CASES.throttle, () => throttle.execute(work)),
        bw(ADAPTIVE_CASES.rateLimiter, () => rateLimiter.execute(work), { informational: true }),
        reference('seen'),
      ],
    },
  ];
}
