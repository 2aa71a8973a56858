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

  /**
   * Runs the clock until nothing is in flight (or nothing is left to fire): timer after timer,
   * one promise turn after each (`runAll`), which is a third of the turns of stepping with
   * `advanceTo` — the demo's experiments spend most of their time in these turns.
   */
  async settle(): Promise<void> {
    while (this.#inFlight > 0) {
      await this.clock.runAll(Number.MAX_SAFE_INTEGER);
      const next = this.clock.nextTimerAt;
      if (this.#inFlight > 0 && (next === undefined || next === Infinity)) return;
    }
  }

  /** Runs the clock to `time`, firing everything due on the way. */
  async until(time: number): Promise<void> {
    if (time > this.clock.now()) await this.clock.advanceTo(time);
  }
}
