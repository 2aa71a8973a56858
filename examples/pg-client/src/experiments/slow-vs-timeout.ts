import { CallNotPermittedError } from '@breakwater/circuit-breaker';
import { VirtualClock } from '@breakwater/core';
import { pgClient } from '../client.js';
import { Driver } from '../drive.js';
import { PaymentGateway } from '../gateway.js';
import { seededRandom } from '../random.js';

/** How the breaker opened with one time-out. */
export interface OpenedBy {
  readonly timeoutMs: number;
  /** The rate events published when it opened. */
  readonly openedBy: readonly ('failure rate' | 'slow-call rate')[];
  readonly failureRate: number;
  readonly slowCallRate: number;
  /** Time-outs among the calls in the window that opened it. */
  readonly timeouts: number;
  readonly payments: number;
}

/**
 * The gateway in slow mode (150–300 ms, no errors) behind a client under load: the documents' k6
 * runs added queueing on the client's side, modelled here as 400–650 ms of overhead, so calls
 * land at 550–950 ms.
 */
export const LOAD_OVERHEAD: readonly [number, number] = [400, 650];

/** Sequential payments until the breaker opens; which rate opened it. */
export async function openedBy(seed: number, timeoutMs: number): Promise<OpenedBy> {
  const clock = new VirtualClock();
  const gateway = new PaymentGateway({ clock, random: seededRandom(seed), mode: 'slow', overhead: LOAD_OVERHEAD });
  const { requestPayment, breaker, timeLimiter } = pgClient({ clock, gateway, timeout: timeoutMs });
  const rates: ('failure rate' | 'slow-call rate')[] = [];
  let atOpening = breaker.metrics;
  let timeouts = 0;
  breaker.on('failureRateExceeded', () => rates.push('failure rate'));
  breaker.on('slowCallRateExceeded', () => rates.push('slow-call rate'));
  breaker.on('stateTransition', (e) => {
    if (e.to === 'OPEN' && timeouts === 0) {
      atOpening = breaker.metrics;
      timeouts = timeLimiter.metrics.numberOfTimeouts;
    }
  });
  const driver = new Driver(clock);
  let payments = 0;
  while (breaker.state === 'CLOSED' && payments < 1000) {
    payments++;
    void driver.start(
      () => requestPayment({ orderId: `order-${payments}`, amount: 100 }),
      (e) => (e instanceof CallNotPermittedError ? 'rejected' : 'failed'),
    );
    await driver.settle();
  }
  return { timeoutMs, openedBy: rates, failureRate: atOpening.failureRate, slowCallRate: atOpening.slowCallRate, timeouts, payments };
}

/** Experiment 2 of the documents: a time-out is a failure, not a slow call. */
export async function slowVsTimeout(seed: number): Promise<readonly OpenedBy[]> {
  return [await openedBy(seed, 600), await openedBy(seed, 1000)];
}
