import { type Hedge, HedgeDelay } from '@breakwater/retry';
import type { Frame } from '../frame.js';
import { CODE } from '../outcome-codes.js';
import type { LayerDriver, LayerHost } from './driver.js';

/**
 * A hedge, as its resolved config says (contract: docs/hedging.md), without a promise per call:
 * each attempt is one of the frame's `children` (`host.spawnAt`), the delay a wake-up of the frame.
 * The primary starts at once; after the delay without an answer (read from a {@link HedgeDelay}
 * fed, as the real Hedge feeds its own, with each successful call's duration from its start to
 * the winning answer) the next one starts; a handled failure starts the next one at once; a delay
 * of 0 starts them all, a negative one only after a failure. The first outcome the hedge does not
 * handle (a success; every error is handled unless `shouldHandle` says otherwise) wins: the other
 * attempts are cancelled (`host.cancel`: a backend of finite capacity frees their servers and
 * queue places at once) and the call ends with it. When every attempt failed, the call ends with
 * the primary's failure. Cancelled from above (a time limiter), it cancels every attempt and ends
 * when the last has.
 */
export class HedgeDriver implements LayerDriver {
  readonly #host: LayerHost;
  /** Attempts a call may start: the primary and `maxHedgedAttempts` hedges. */
  readonly #attempts: number;
  readonly #delay: HedgeDelay;
  /** Whether the hedge goes past each outcome code to the next attempt (its `shouldHandle`). */
  readonly #handled: boolean[];

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
    frame.children = new Array<Frame | null>(this.#attempts).fill(null);
    host.tally(frame).hedgeCalls++;
    this.#next(frame);
  }

  /** Starts the next attempt, and with a delay of 0 every one left; arms the delay when more may follow. */
  #next(frame: Frame): void {
    const host = this.#host;
    for (;;) {
      const slot = frame.attempt++;
      if (slot > 0) host.tally(frame).hedgedAttempts++;
      const delay = frame.attempt < this.#attempts ? this.#delay.current(host.now()) : -1;
      if (delay > 0) host.wakeAt(frame, host.now() + delay);
      // The attempt may end at once (a breaker below refuses it): childEnded has run when this returns.
      host.spawnAt(frame, slot);
      if (delay !== 0 || frame.settled || frame.attempt >= this.#attempts) return;
    }
  }

  childEnded(frame: Frame, code: number, child: Frame): void {
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
    if (!this.#handled[code]) return this.#won(frame, code, slot);
    if (frame.attempt < this.#attempts) {
      host.cancelWake(frame);
      return this.#next(frame);
    }
    if (running(frame)) return;
    // Every attempt failed: the caller gets the primary's failure.
    host.tally(frame).hedgeWins[0]!++;
    host.complete(frame, frame.code);
  }

  #won(frame: Frame, code: number, slot: number): void {
    const host = this.#host;
    host.cancelWake(frame);
    host.tally(frame).hedgeWins[slot]!++;
    if (code === CODE.ok) this.#delay.record(host.now() - frame.startedAt, host.now());
    const children = frame.children!;
    for (const other of children) if (other !== null) host.cancel(other, CODE.cancelled);
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
  for (const child of frame.children!) if (child !== null) return true;
  return false;
}
