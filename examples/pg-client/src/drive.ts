import type { VirtualClock } from '@breakwater/core';

/** What happened to one payment. */
export type PaymentOutcome = 'ok' | 'failed' | 'rejected';

/**
 * Tracks calls in flight on a VirtualClock and moves the clock from timer to timer until every
 * one of them has settled — minutes of traffic in milliseconds.
 */
export class Driver {
  #inFlight = 0;

  constructor(readonly clock: VirtualClock) {}

  /** Starts `call` now; resolves to how it ended (a rejection is classified, never thrown). */
  start<T>(call: () => Promise<T>, classify: (error: unknown) => PaymentOutcome): Promise<PaymentOutcome> {
    this.#inFlight++;
    return call().then(
      () => 'ok' as const,
      (error: unknown) => classify(error),
    ).finally(() => this.#inFlight--);
  }

  /** Runs the clock until nothing is in flight (or nothing is left to fire). */
  async settle(): Promise<void> {
    while (this.#inFlight > 0) {
      const next = this.clock.nextTimerAt;
      if (next === undefined) {
        await this.clock.advance(0);
        if (this.#inFlight > 0 && this.clock.nextTimerAt === undefined) return;
        continue;
      }
      await this.clock.advanceTo(Math.max(next, this.clock.now()));
    }
  }

  /** Runs the clock to `time`, firing everything due on the way. */
  async until(time: number): Promise<void> {
    if (time > this.clock.now()) await this.clock.advanceTo(time);
  }
}
