import { Retry } from '@breakwater/retry';
import { ConstantBackoff, handleAll, retry } from 'cockatiel';
import pRetry from 'p-retry';
import { bw, floor, peer, type Row } from '../harness.js';
import { failsThenSucceeds, work } from '../work.js';

/**
 * Row 5: 3 attempts at most, no wait between them — on a call that succeeds at once (5a), and on
 * one that fails twice and then succeeds (5b).
 */
export function retryRows(): Row[] {
  const config = { maxAttempts: 3, waitDuration: 0 };
  const bwRetry = new Retry('bench', config);
  const bwRetry2 = new Retry('bench', config);
  const ck = retry(handleAll, { maxAttempts: 2, backoff: new ConstantBackoff(0) });
  const ck2 = retry(handleAll, { maxAttempts: 2, backoff: new ConstantBackoff(0) });
  // p-retry: 2 retries; minTimeout 0 makes every delay 0, which p-retry 7 skips without a timer.
  // Two ways to say it: what its readme shows, and every option it reads given (the same
  // behaviour; p-retry copies its options and fills in the missing ones on each call, which is
  // far cheaper when there are none to add).
  const pOptions = { retries: 2, minTimeout: 0 };
  const pFull = {
    retries: 2,
    factor: 2,
    minTimeout: 0,
    maxTimeout: Infinity,
    maxRetryTime: Infinity,
    randomize: false,
    onFailedAttempt: () => {},
    shouldConsumeRetry: () => true,
    shouldRetry: () => true,
  };
  const bwFn = failsThenSucceeds(2);
  const ckFn = failsThenSucceeds(2);
  const pFn = failsThenSucceeds(2);
  const pFullFn = failsThenSucceeds(2);
  const floorFn = failsThenSucceeds(2);
  /** The floor of 5b: the three attempts by hand. */
  const byHand = async () => {
    for (;;) {
      try {
        return await floorFn();
      } catch {
        // next attempt
      }
    }
  };
  return [
    {
      id: '5a',
      title: 'Retry (3 attempts, no wait), success at the first attempt',
      floor: floor('await fn()', () => work()),
      cases: [
        bw('Breakwater Retry', () => bwRetry.execute(work)),
        peer('p-retry { retries: 2, minTimeout: 0 }', () => pRetry(work, pOptions)),
        peer('p-retry (every option given)', () => pRetry(work, pFull)),
        peer('cockatiel retry', () => ck.execute(work)),
      ],
    },
    {
      id: '5b',
      title: 'Retry (3 attempts, no wait), 2 failures then success',
      floor: floor('3 attempts by hand', byHand),
      cases: [
        bw('Breakwater Retry', () => bwRetry2.execute(bwFn)),
        peer('p-retry { retries: 2, minTimeout: 0 }', () => pRetry(pFn, pOptions)),
        peer('p-retry (every option given)', () => pRetry(pFullFn, pFull)),
        peer('cockatiel retry (ConstantBackoff(0): a 0 ms timer per retry)', () => ck2.execute(ckFn)),
      ],
    },
  ];
}
