import { getEventListeners } from 'node:events';
import { VirtualClock } from '@breakwater/core';
import { describe, expect, it } from 'vitest';
import { GatewayError, PaymentGateway } from './gateway.js';
import { seededRandom } from './random.js';

const req = { orderId: 'o-1', amount: 100 };

describe('PaymentGateway simulator', () => {
  it('normal mode: about 40% immediate errors, successes in 100–500 ms', async () => {
    const clock = new VirtualClock();
    const gateway = new PaymentGateway({ clock, random: seededRandom(7) });
    let errors = 0;
    const latencies: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const start = clock.now();
      const call = gateway.requestPayment(req).then(
        () => latencies.push(clock.now() - start),
        (e: unknown) => {
          expect(e).toBeInstanceOf(GatewayError);
          expect(clock.now()).toBe(start);
          errors++;
        },
      );
      await clock.advance(0);
      await clock.advance(500);
      await call;
    }
    expect(errors).toBeGreaterThan(350);
    expect(errors).toBeLessThan(450);
    expect(Math.min(...latencies)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...latencies)).toBeLessThanOrEqual(500);
  });

  it('slow mode: no errors, 150–300 ms plus the overhead', async () => {
    const clock = new VirtualClock();
    const gateway = new PaymentGateway({ clock, random: seededRandom(7), mode: 'slow', overhead: [10, 20] });
    for (let i = 0; i < 100; i++) {
      const start = clock.now();
      const call = gateway.requestPayment(req);
      await clock.advance(320);
      const receipt = await call;
      expect(receipt.approvedAt - start).toBeGreaterThanOrEqual(160);
      expect(receipt.approvedAt - start).toBeLessThanOrEqual(320);
    }
  });

  it('hang mode: never answers until the signal aborts, and leaves nothing behind', async () => {
    const clock = new VirtualClock();
    const gateway = new PaymentGateway({ clock, random: seededRandom(7), mode: 'hang' });
    const controller = new AbortController();
    const call = gateway.requestPayment(req, { signal: controller.signal });
    await clock.advance(60_000);
    controller.abort(new Error('gave up'));
    await expect(call).rejects.toThrow('gave up');
    expect(clock.pendingTimers).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('is the same gateway for the same seed', async () => {
    const run = async (seed: number) => {
      const clock = new VirtualClock();
      const gateway = new PaymentGateway({ clock, random: seededRandom(seed) });
      const out: string[] = [];
      for (let i = 0; i < 20; i++) {
        const call = gateway.requestPayment(req).then(
          (r) => `ok@${r.approvedAt}`,
          () => 'err',
        );
        await clock.advance(500);
        out.push(await call);
      }
      return out;
    };
    expect(await run(3)).toEqual(await run(3));
    expect(await run(3)).not.toEqual(await run(4));
  });
});
