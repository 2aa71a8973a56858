import { CallNotPermittedError } from '@breakwater/circuit-breaker';
import { systemClock } from '@breakwater/core';
import { pgClient } from './client.js';
import { PaymentGateway } from './gateway.js';
import { seededRandom } from './random.js';

/** Experiment 1 on the real clock, retry=3 then retry=1, with a progress line. */
export async function realTimeRetryVsBreaker(seed: number): Promise<void> {
  for (const maxAttempts of [3, 1]) {
    const gateway = new PaymentGateway({ clock: systemClock, random: seededRandom(seed) });
    const { requestPayment, breaker } = pgClient({ clock: systemClock, gateway, maxAttempts });
    const started = systemClock.now();
    for (let payment = 1; ; payment++) {
      const outcome = await requestPayment({ orderId: `order-${payment}`, amount: 100 }).then(
        () => 'ok',
        (e: unknown) => (e instanceof CallNotPermittedError ? 'refused' : 'failed'),
      );
      const m = breaker.metrics;
      const line = `retry=${maxAttempts}  payment ${String(payment).padStart(2)}: ${outcome.padEnd(7)}  gateway calls ${String(gateway.calls).padStart(3)}  window ${String(m.numberOfBufferedCalls).padStart(2)}/20  ${breaker.state}  ${((systemClock.now() - started) / 1000).toFixed(1)} s`;
      process.stdout.write(process.stdout.isTTY ? `\r${line}` : `${line}\n`);
      if (outcome === 'refused') {
        process.stdout.write(`\nretry=${maxAttempts}: the breaker first refused payment ${payment} (documents: ${maxAttempts === 3 ? 14 : 21})\n\n`);
        break;
      }
    }
  }
}
