import { WaitQueue, type Clock } from '@breakwater/core';

/** Permits a caller reserved on Redis and waits for on its own clock. */
export interface Reservation {
  readonly permits: number;
  /** The key's sequence number the reservation got (a give-back must find it unchanged). */
  readonly seq: number;
  /** When its permits are there, in the script's time (ms since the epoch). */
  readonly releaseAt: number;
  /** The cycle its permits belong to. */
  readonly grantCycle: number;
}

/** What {@link Waiters} tells its limiter. */
export interface WaitersOptions {
  readonly clock: Clock;
  /** A waiter's wait ended: its permits are there, after `waitedMs`. */
  readonly granted: (reservation: Reservation, waitedMs: number) => void;
  /** A waiter aborted: hand its permits back if the script still allows it. */
  readonly giveBack: (reservation: Reservation) => void;
}

const GRANTED = Object.freeze({ result: undefined });

/**
 * The callers of one RedisRateLimiter waiting, each on the limiter's clock, for permits Redis
 * reserved for them — core's `WaitQueue`, as the in-process limiter uses it: a wait keeps the
 * process alive, an abort leaves at once (and asks for the give-back).
 */
export class Waiters {
  readonly #queue: WaitQueue<void, Reservation>;
  readonly #giveBack: (reservation: Reservation) => void;

  constructor(options: WaitersOptions) {
    const granted = options.granted;
    this.#giveBack = options.giveBack;
    this.#queue = new WaitQueue<void, Reservation>({
      clock: options.clock,
      onTimeout: (reservation, waitedMs) => {
        granted(reservation, waitedMs);
        return GRANTED;
      },
      onAbort: options.giveBack,
    });
  }

  /** Callers waiting. */
  get size(): number {
    return this.#queue.size;
  }

  /**
   * Waits `waitMs` for the permits of `reservation`; a caller that already gave up (during the
   * round trip) does not wait, and its permits are handed back at once.
   */
  wait(reservation: Reservation, waitMs: number, signal: AbortSignal): Promise<void> | undefined {
    if (signal.aborted) return void this.#giveBack(reservation);
    return this.#queue.wait(signal, waitMs, reservation);
  }
}
