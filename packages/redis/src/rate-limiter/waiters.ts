import type { Clock } from '@breakwater/core';
import { HandBackList, WaitQueue, type HandBackReservation } from '@breakwater/core/internal';

/** Permits a caller reserved on Redis and waits for on its own clock. */
export interface Reservation extends HandBackReservation<Reservation> {
  readonly permits: number;
  /** The key's sequence number the reservation got (a give-back must find it unchanged). */
  readonly seq: number;
  /** The key's generation then (a give-back to a key lost and created again since is refused). */
  readonly generation: number;
  /** When its permits are there, in the script's time (ms since the epoch). */
  readonly releaseAt: number;
  /** The cycle its permits belong to. */
  readonly grantCycle: number;
  /** Whether its caller gave up waiting (its permits wait to be handed back). */
  aborted: boolean;
}

/** What {@link Waiters} tells its limiter. */
export interface WaitersOptions {
  readonly clock: Clock;
  /** A waiter's wait ended: its permits are there, after `waitedMs`. */
  readonly granted: (reservation: Reservation, waitedMs: number) => void;
  /** An aborted reservation at the end of this instance's: hand its permits back if the script still allows it. */
  readonly giveBack: (reservation: Reservation) => void;
}

const GRANTED = Object.freeze({ result: undefined });

/**
 * The callers of one RedisRateLimiter waiting, each on the limiter's clock, for permits Redis
 * reserved for them — core's `WaitQueue`, as the in-process limiter uses it: a wait keeps the
 * process alive, an abort leaves at once (and asks for the give-back).
 *
 * Give-backs follow the in-process limiter's rule (its `Permits`): the waiters' reservations are
 * kept in reservation order, and permits come back only from the end of that list — an aborted
 * reservation's when it is the last one, an earlier one once every reservation after it has been
 * aborted too. They are sent newest first, and the script undoes each only while the key's
 * sequence number is still the one that reservation got (nothing else was taken after it), then
 * steps the number back, so the one before can come back next: 50 waiters aborted on one signal
 * give back all 50 permits.
 */
export class Waiters {
  readonly #queue: WaitQueue<void, Reservation>;
  readonly #giveBack: (reservation: Reservation) => void;
  /** The waiters' reservations an abort can still hand back, oldest first. */
  readonly #returnable = new HandBackList<Reservation>();

  constructor(options: WaitersOptions) {
    const granted = options.granted;
    this.#giveBack = options.giveBack;
    this.#queue = new WaitQueue<void, Reservation>({
      clock: options.clock,
      onTimeout: (reservation, waitedMs) => {
        this.#returnable.granted(reservation);
        granted(reservation, waitedMs);
        return GRANTED;
      },
      onAbort: (reservation) => this.#handBack(reservation),
    });
  }

  /** Callers waiting. */
  get size(): number {
    return this.#queue.size;
  }

  /**
   * Waits `waitMs` for `permits` reserved with sequence number `seq` on the key's `generation`, there at `releaseAt` (script
   * time) in `grantCycle`; a caller that already gave up (during the round trip) does not wait, and
   * its permits are handed back at once when they can be.
   */
  wait(
    permits: number,
    seq: number,
    generation: number,
    releaseAt: number,
    grantCycle: number,
    waitMs: number,
    signal: AbortSignal,
  ): Promise<void> | undefined {
    const reservation: Reservation = { prev: null, next: null, linked: false, permits, seq, generation, releaseAt, grantCycle, aborted: false };
    this.#returnable.push(reservation);
    if (signal.aborted) return void this.#handBack(reservation);
    return this.#queue.wait(signal, waitMs, reservation);
  }

  /** A waiter aborted: every aborted reservation at the end of the list goes back, newest first. */
  #handBack(reservation: Reservation): void {
    this.#returnable.handBack(reservation, this.#giveBack);
  }
}
