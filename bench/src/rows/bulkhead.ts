import { Bulkhead, PoolBulkhead } from '@breakwater/bulkhead';
import { bulkhead } from 'cockatiel';
import pLimit from 'p-limit';
import { bw, floor, peer, type Row } from '../harness.js';
import { reference } from '../references.js';
import { work } from '../work.js';

const SLOTS = 10;
const BURST = 100;

/** `BURST` calls started at once and awaited together: the figure is per call. */
function burst(call: () => Promise<unknown>): () => Promise<unknown> {
  return () => {
    const calls = new Array<Promise<unknown>>(BURST);
    for (let i = 0; i < BURST; i++) calls[i] = call();
    return Promise.all(calls);
  };
}

/**
 * Row 7: a bulkhead of 10 slots with an unbounded wait — one call at a time (a slot is always
 * free, 7a), and bursts of 100 calls at once (90 of them wait for a slot, 7b).
 */
export function bulkheadRows(): Row[] {
  const make = () => ({
    // maxWaitDuration Infinity: a waiter waits as long as it takes, with no timer (as cockatiel's and p-limit's queues).
    semaphore: new Bulkhead('bench', { maxConcurrentCalls: SLOTS, maxWaitDuration: Infinity }),
    pool: new PoolBulkhead('bench', { coreThreadPoolSize: SLOTS, maxThreadPoolSize: SLOTS, queueCapacity: BURST }),
    ck: bulkhead(SLOTS, BURST),
    limit: pLimit(SLOTS),
  });
  const a = make();
  const b = make();
  return [
    {
      id: '7a',
      title: `Bulkhead (${SLOTS} slots), one call at a time`,
      floor: floor('await fn()', () => work()),
      cases: [
        bw('Breakwater Bulkhead (semaphore)', () => a.semaphore.execute(work)),
        bw('Breakwater PoolBulkhead', () => a.pool.execute(work)),
        peer('cockatiel bulkhead', () => a.ck.execute(work)),
        peer('p-limit', () => a.limit(work)),
        reference('seen'),
      ],
    },
    {
      id: '7b',
      title: `Bulkhead (${SLOTS} slots), ${BURST} calls at once (per call)`,
      floor: floor(`${BURST} × fn() at once`, burst(work), { opsPerRun: BURST }),
      cases: [
        bw(
          'Breakwater Bulkhead (semaphore)',
          burst(() => b.semaphore.execute(work)),
          { opsPerRun: BURST },
        ),
        bw(
          'Breakwater PoolBulkhead',
          burst(() => b.pool.execute(work)),
          { opsPerRun: BURST },
        ),
        peer(
          'cockatiel bulkhead',
          burst(() => b.ck.execute(work)),
          { opsPerRun: BURST },
        ),
        peer(
          'p-limit',
          burst(() => b.limit(work)),
          { opsPerRun: BURST },
        ),
      ],
    },
  ];
}
