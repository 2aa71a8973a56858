import type { RequestNotPermittedError } from '@breakwater/core';
import type { Batch, BatchTarget, Call } from './batch.js';
import type { Fallback } from './fallback.js';
import { REPLY_HEAD, replyOf, type ScriptReply } from './reply.js';
import type { StateView } from './state-view.js';
import type { Store } from './store.js';
import type { Waiters } from './waiters.js';

/** What {@link Answers} needs of its limiter. */
export interface AnswersOptions {
  readonly store: Store;
  readonly fallback: Fallback;
  /** A caller got its permits (events). */
  readonly granted: (permits: number, waitMs: number, cycle: number) => void;
  /** A caller was refused (events); `refusal` also builds the error an acquire rejects with. */
  readonly refused: (permits: number, waitMs: number) => void;
  readonly refusal: (permits: number, waitMs: number) => RequestNotPermittedError;
  readonly drained: (permits: number) => void;
  /** What this instance last saw of its key (sent with each batch). */
  readonly view: StateView;
  /** A reply says the key was lost mid-use (first report of that loss by this instance), noticed in `cycle`. */
  readonly lost: (cycle: number) => void;
  /** Waits on the clock for a reservation's permits (the limiter's `Waiters.wait`). */
  readonly wait: Waiters['wait'];
}

/**
 * Settles a RedisRateLimiter's calls from the replies of their batches, and keeps Redis's last
 * answer (what `metrics` shows: the last operation of a batch that was not a give-back).
 */
export class Answers implements BatchTarget {
  readonly #o: AnswersOptions;
  #lastRaw: readonly number[] | undefined = undefined;
  #lastIndex = 0;
  #lastBatch: Batch | undefined = undefined;

  constructor(options: AnswersOptions) {
    this.#o = options;
  }

  /** Redis's last answer to this limiter, or undefined before the first. */
  get last(): ScriptReply | undefined {
    const raw = this.#lastRaw;
    const batch = this.#lastBatch;
    return raw === undefined || batch === undefined ? undefined : replyOf(raw, this.#lastIndex, 'm', 0, batch.limit, batch.period);
  }

  replied(raw: readonly number[], last: number, batch: Batch): void {
    if (this.#o.view.observe(raw[3]!, raw[4]!, raw[5] === 1)) this.#o.lost(raw[0]!);
    if (last < 0) return;
    this.#lastRaw = raw;
    this.#lastIndex = last;
    this.#lastBatch = batch;
  }

  answered(call: Call, raw: readonly number[], i: number, seq: number, batch: Batch): void {
    const kind = call.kind;
    const w = raw[REPLY_HEAD + 2 * i]!;
    if (kind === 'acquire' || kind === 'reserve') {
      const permits = call.permits;
      if (w < 0) {
        if (kind === 'acquire') return call.reject(this.#o.refusal(permits, -w / 1000));
        this.#o.refused(permits, -w / 1000);
        return call.resolve(-1);
      }
      const waitMs = w / 1000;
      const cycle = raw[0]!;
      // The permits' cycle: the one the wait ends in (state.ts's waitForPermits: full cycles + 1).
      const grantCycle = waitMs > 0 ? cycle + Math.floor((-raw[REPLY_HEAD + 1 + 2 * i]! - 1) / batch.limit) + 1 : cycle;
      if (kind === 'reserve' || waitMs === 0) {
        this.#o.granted(permits, waitMs, grantCycle);
        return call.resolve(kind === 'reserve' ? waitMs : undefined);
      }
      // A caller that gave up during the round trip has its rejection already (raceAbort): its permits go back.
      return call.resolve(this.#o.wait(permits, seq, raw[3]!, raw[1]! / 1000 + waitMs, grantCycle, waitMs, call.signal));
    }
    if (kind === 'drain') this.#o.drained(Math.max(w, 0));
    call.resolve();
  }

  failed(call: Call): void {
    const kind = call.kind;
    const fallback = this.#o.fallback;
    if (kind === 'acquire') call.resolve(fallback.acquire(call.permits, call.signal, this.#o.store.lastError));
    else if (kind === 'reserve') call.resolve(fallback.reserve(call.permits));
    else if (kind === 'drain') call.resolve(fallback.drain());
    else call.resolve();
  }
}
