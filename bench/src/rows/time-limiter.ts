import { TimeLimiter } from '@breakwater/time-limiter';
import { timeout, TimeoutStrategy } from 'cockatiel';
import { bw, floor, peer, type Row } from '../harness.js';
import { work } from '../work.js';

/** Row 4: a time limiter of 1 s around a call that resolves at once. */
export function timeLimiterRows(): Row[] {
  const limiter = new TimeLimiter('bench', { timeoutDuration: 1000 });
  // Cooperative: cockatiel hands the work a signal it aborts on time-out, as Breakwater does (cancelRunningFuture).
  const ck = timeout(1000, TimeoutStrategy.Cooperative);
  return [
    {
      id: '4',
      title: 'Time limiter (1 s), success path',
      floor: floor('await fn()', () => work()),
      cases: [bw('Breakwater TimeLimiter', () => limiter.execute(work)), peer('cockatiel timeout (cooperative)', () => ck.execute(work))],
    },
  ];
}
