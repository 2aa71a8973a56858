import { type Hedge, HedgeDelay } from '@breakwater/retry';
import type { Frame } from '../frame.js';
import { CODE } from '../outcome-codes.js';
import type { LayerDriver, LayerHost } from './driver.js';

/**
 * A hedge, as its resolved config says (contract: docs/hedging.md), without a promise per call:
 * each attempt is one of the frame's `children` (`host.spawnAt`), the delay a wake-up of the frame.
 * The primary starts at once. The delay is read at the call's start from a {@link HedgeDelay} fed
 * as the real Hedge feeds its own (each successful call's duration, from its start to the winning
 * answer); when it passes without an answer the next attempt starts, and the delay runs again from
 * there. A handled failure starts the next attempt at once; a delay of 0 starts them all, a
 * negative one waits for a failure. The first outcome the hedge does not handle (a success; every
 * error is handled unless `shouldHandle` says otherwise) wins: every other attempt is cancelled
 * (`host.cancel`: a backend of finite capacity frees their servers and queue places at once, a
 * breaker gets their permits back), with what an attempt that ended left running below, and the
 * call ends with the winner's outcome. When every attempt failed, it ends with the primary's.
 * Cancelled from above (a time limiter), it cancels every attempt and ends when the last has.
 */
export class HedgeDriver implements LayerDriver {
  readonly #host: LayerHost;
  /** Attempts a call may start: the primary and `maxHedgedAttempts` hedges. */
  readonly #attempts: number;
  readonly #delay: HedgeDelay;
  /** Whether the hedge goes past each outcome code to the next attempt (its `shouldHandle`). */
  readonly #handled: boolean[];
  /** Attempts being started (`#next`, nested when a slot freed below starts another call's); the attempts that ended meanwhile, not heard yet. */
  #starting = 0;
  readonly #unheard: Frame[] = [];

  constructor(hedge: Hedge, host: LayerHost) {
    const { maxHedgedAttempts, delay, shouldHandle } = hedge.config;
    this.#host = host;
    this.#attempts = maxHedgedAttempts + 1;
    this.#delay = new HedgeDelay(delay);
    this.#handled = host.errors.map((error, code) =>
      code === CODE.ok ? shouldHandle?.({ result: undefined }) === true : shouldHandle === undefined || shouldHandle({ error }) === true,
    );
  }

  enter(frame: Frame): void {
    const host = this.#host;
    frame.startedAt = host.now();
    frame.attempt = 0;
    frame.previousWaitMs = this.#delay.current(frame.startedAt); // read once, at the call's start, as the real Hedge does
    frame.children = new Array<Frame | null>(this.#attempts).fill(null);
    host.tally(frame).hedgeCalls++;
    this.#next(frame);
  }

  /**
   * Starts the next attempt (with a delay of 0 every one left), then arms the delay when more may
   * follow. An attempt that ends while they start (a layer below refused it at once) is heard once
   * they all have, in the order they started: the real Hedge hears an outcome only after it started
   * its attempts.
   */
  #next(frame: Frame): void {
    const host = this.#host;
    const delay = frame.previousWaitMs;
    const heard = this.#unheard.length;
    do {
      const slot = frame.attempt++;
      if (slot > 0) host.tally(frame).hedgedAttempts++;
      this.#starting++;
      host.spawnAt(frame, slot);
      this.#starting--;
    } while (delay === 0 && frame.attempt < this.#attempts);
    if (delay > 0 && frame.attempt < this.#attempts) host.wakeAt(frame, host.now() + delay);
    // Heard in the order they ended (another call's too, when a slot freed below started its attempt and it ended at once).
    for (const child of this.#unheard.splice(heard)) {
      const parent = child.parent!;
      if (!parent.settled) this.#ended(parent, child.code, child);
    }
  }

  childEnded(frame: Frame, code: number, child: Frame): void {
    if (this.#starting > 0 && !child.aborted) {
      child.code = code; // it has ended: its code is free
      this.#unheard.push(child);
      return;
    }
    this.#ended(frame, code, child);
  }

  #ended(frame: Frame, code: number, child: Frame): void {
    const host = this.#host;
    if (child.aborted) {
      // A loser this hedge cancelled (it ends the call itself), or an attempt cancelled with the whole call from above.
      if (frame.aborted && !running(frame)) {
        host.cancelWake(frame);
        host.complete(frame, code);
      }
      return;
    }
    const slot = child.slot;
    if (slot === 0) frame.code = code;
    if (!this.#handled[code]) return this.#decide(frame, code, slot, code === CODE.ok);
    if (frame.attempt < this.#attempts) {
      host.cancelWake(frame);
      return this.#next(frame);
    }
    // Every attempt failed: the caller gets the primary's failure.
    if (!running(frame)) this.#decide(frame, frame.code, 0, false);
  }

  /**
   * The caller gets attempt `winner`'s outcome: every other attempt is cancelled, and what an
   * attempt that ended left running below (a time limiter that does not cancel), as the real Hedge
   * aborts every other attempt's signal.
   */
  #decide(frame: Frame, code: number, winner: number, successful: boolean): void {
    const host = this.#host;
    host.cancelWake(frame);
    host.tally(frame).hedgeWins[winner]!++;
    if (successful) this.#delay.record(host.now() - frame.startedAt, host.now());
    for (const other of frame.children!) {
      if (other === null || other.slot === winner) continue;
      if (other.settled) host.cancelBelow(other, CODE.cancelled);
      else host.cancel(other, CODE.cancelled);
    }
    host.complete(frame, code);
  }

  /** The delay is over with no answer: the next attempt. */
  wake(frame: Frame): void {
    this.#next(frame);
  }

  /** A hedge never waits with no attempt running: nothing to leave. */
  cancel(): void {}
}

/** Whether any attempt of the call is still running. */
function running(frame: Frame): boolean {
  for (const child of frame.children!) if (child !== null && !child.settled) return true;
  return false;
}
