import { CallNotPermittedError } from '@breakwater/circuit-breaker';
import { VirtualClock } from '@breakwater/core';
import { pgClient } from '../client.js';
import { Driver, type PaymentOutcome } from '../drive.js';
import { PaymentGateway } from '../gateway.js';
import { seededRandom } from '../random.js';

/** When the breaker first opened for one retry setting. */
export interface FirstOpening {
  readonly maxAttempts: number;
  /** The payment during which the breaker opened. */
  readonly openedDuringPayment: number;
  /** The first payment refused with CallNotPermittedError (the documents' "opened at payment N"). */
  readonly firstRefusedPayment: number;
  /** Gateway calls made when it opened. */
  readonly gatewayCalls: number;
}

export interface RetryVsBreakerResult {
  readonly seed: number;
  readonly openings: readonly FirstOpening[];
  /** How many seeds the mean is taken over (`seed`, `seed + 1`, …). */
  readonly seeds: number;
  /** Mean over `seeds` seeds of the first refused payment, by maxAttempts. */
  readonly meanFirstRefused: Readonly<Record<number, number>>;
  /** How many payments the breaker calls per payment are measured over. */
  readonly callsPerPaymentSample: number;
  /** Breaker calls per payment, by maxAttempts, over many payments (breaker in METRICS_ONLY). */
  readonly breakerCallsPerPayment: Readonly<Record<number, number>>;
}

const classify = (e: unknown): PaymentOutcome => (e instanceof CallNotPermittedError ? 'rejected' : 'failed');

/** Sequential payments through a fresh client until the first one is refused. */
export async function firstOpening(seed: number, maxAttempts: number): Promise<FirstOpening> {
  const clock = new VirtualClock();
  const gateway = new PaymentGateway({ clock, random: seededRandom(seed) });
  const { requestPayment, breaker } = pgClient({ clock, gateway, maxAttempts });
  const driver = new Driver(clock);
  let payment = 0;
  let opened: { payment: number; calls: number } | undefined;
  breaker.on('stateTransition', (e) => {
    if (e.to === 'OPEN' && opened === undefined) opened = { payment, calls: gateway.calls };
  });
  for (payment = 1; payment <= 1000; payment++) {
    const outcome = driver.start(() => requestPayment({ orderId: `order-${payment}`, amount: 100 }), classify);
    await driver.settle();
    if ((await outcome) === 'rejected') break;
  }
  return { maxAttempts, openedDuringPayment: opened?.payment ?? -1, firstRefusedPayment: payment, gatewayCalls: opened?.calls ?? -1 };
}

/** Breaker calls per payment, measured with the breaker recording but never opening. */
export async function breakerCallsPerPayment(seed: number, maxAttempts: number, payments = 2000): Promise<number> {
  const clock = new VirtualClock();
  const gateway = new PaymentGateway({ clock, random: seededRandom(seed) });
  const { requestPayment, breaker } = pgClient({ clock, gateway, maxAttempts });
  breaker.transitionToMetricsOnlyState();
  let recorded = 0;
  breaker.on('success', () => recorded++);
  breaker.on('error', () => recorded++);
  const driver = new Driver(clock);
  for (let i = 0; i < payments; i++) void driver.start(() => requestPayment({ orderId: `order-${i}`, amount: 100 }), classify);
  await driver.settle();
  return recorded / payments;
}

/**
 * Experiment 1 of the documents: each retry attempt is its own breaker call, so with retry=3
 * the 20-call window fills after about 13 payments and the breaker opens sooner than with retry=1.
 */
export async function retryVsBreaker(seed: number, seeds = 100, payments = 2000): Promise<RetryVsBreakerResult> {
  const openings = [await firstOpening(seed, 3), await firstOpening(seed, 1)];
  const meanFirstRefused: Record<number, number> = {};
  const breakerCalls: Record<number, number> = {};
  for (const attempts of [3, 1]) {
    let sum = 0;
    for (let s = 0; s < seeds; s++) sum += (await firstOpening(seed + s, attempts)).firstRefusedPayment;
    meanFirstRefused[attempts] = sum / seeds;
    breakerCalls[attempts] = await breakerCallsPerPayment(seed, attempts, payments);
  }
  return { seed, openings, seeds, meanFirstRefused, callsPerPaymentSample: payments, breakerCallsPerPayment: breakerCalls };
}
