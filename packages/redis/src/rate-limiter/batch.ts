import { checkReply, REPLY_HEAD } from './reply.js';
import type { StateView } from './state-view.js';
import type { ReplyCheck, Store } from './store.js';

/** What a {@link Call} asks of Redis: a reservation awaited by `acquirePermission` or returned by `reservePermission`, a look (`fetchMetrics`), a drain, a give-back. */
export type CallKind = 'acquire' | 'reserve' | 'look' | 'drain' | 'giveBack';

/**
 * One operation of a batch and the caller it answers: what is sent (`code`, and for a give-back
 * the reservation's sequence number and release time) and how the caller is settled.
 */
export class Call {
  resolve: (value?: unknown) => void = noop;
  reject: (error: unknown) => void = noop;
  constructor(
    readonly kind: CallKind,
    /** What the script reads: the permits of a reservation (`'1'`), `'m'`, `'d'` or `'g'`. */
    readonly code: string,
    readonly permits: number,
    readonly signal: AbortSignal,
    /** A give-back: the reservation's sequence number, the time its permits are there (ms since the epoch), and the key's generation then. */
    readonly seq = 0,
    readonly releaseAt = 0,
    readonly generation = 0,
  ) {}
}

function noop(): void {}

/** What a {@link Batcher} hands the answers to (its limiter). */
export interface BatchTarget {
  /** Redis answered `call`, operation `i` of the batch `raw` (the checked reply); `seq` is the key's sequence number after it. */
  answered(call: Call, raw: readonly number[], i: number, seq: number, batch: Batch): void;
  /** Redis did not answer the batch (the outage has been reported): the fallback decides `call`. */
  failed(call: Call): void;
  /** Redis answered the batch `raw` (before the answers are handed out); `last` is the index of its last operation that was not a give-back (-1: none). */
  replied(raw: readonly number[], last: number, batch: Batch): void;
}

/** The most operations one script run takes (bounds its run time on Redis: a few µs each). */
export const MAX_BATCH = 256;

/**
 * What the operations of a batch share: the limit, the period and the reservations' timeout in
 * force, and their strings as the script reads them (built once per change, not per call).
 */
export interface Header {
  readonly limit: number;
  readonly period: number;
  /** The reservations' timeout, ms (`Infinity`: none). */
  readonly timeout: number;
  readonly limitArg: string;
  readonly periodArg: string;
  readonly timeoutArg: string;
}

/** The operations sent together, with the header they share and the time (`''`: Redis `TIME`). */
export class Batch implements ReplyCheck {
  readonly calls: Call[] = [];
  constructor(
    readonly header: Header,
    readonly now: string,
    /** When its round trip began (`Store.roundTripStart()`): its first caller's call. */
    readonly startedAt: number,
  ) {}

  get limit(): number {
    return this.header.limit;
  }

  get period(): number {
    return this.header.period;
  }

  /** The script's reply to this batch, checked (`checkReply`): throws when it is not one the script gives. */
  check(raw: unknown): number[] {
    return checkReply(raw, this.calls, this.header.timeout, this.header.period);
  }

  /** The script's ARGV: the header (with the instance's `view` of the key), then each operation. */
  argv(minTtl: string, view: StateView): string[] {
    const h = this.header;
    const calls = this.calls;
    if (calls.length === 1 && calls[0]!.kind !== 'giveBack')
      return [h.limitArg, h.periodArg, minTtl, this.now, h.timeoutArg, view.generationArg, view.seenArg, view.untilArg, calls[0]!.code];
    const argv = [h.limitArg, h.periodArg, minTtl, this.now, h.timeoutArg, view.generationArg, view.seenArg, view.untilArg];
    for (const call of calls) {
      argv.push(call.code);
      if (call.kind === 'giveBack') argv.push(String(call.permits), String(call.seq), String(call.releaseAt), String(call.generation));
    }
    return argv;
  }
}

/**
 * What a batch's send is queued on: a reaction to a settled promise, a microtask like
 * `queueMicrotask`'s, run in the async context of the call that opened the batch, without the
 * `AsyncResource` and bound function Node's `queueMicrotask` builds for each one (row 11a of the
 * bench: ~2-3 % of a loopback round trip).
 */
const RESOLVED = Promise.resolve();

/**
 * Coalesces a limiter's calls of one tick into one round trip: the first call opens a batch (and
 * its round trip's deadline), the calls after it in the same tick join it in order, and a
 * microtask sends it as one `EVALSHA` whose script runs them in that order, atomically, with one
 * reading of the time — exactly as if they had been sent one after another with no other client
 * in between. A call whose header differs (the limit, timeout or given time changed) or that finds
 * the batch full ({@link MAX_BATCH}) sends the batch at once and opens the next; the connection
 * keeps their order.
 */
export class Batcher {
  readonly #store: Store;
  readonly #target: BatchTarget;
  readonly #minTtl: string;
  readonly #view: StateView;
  #pending: Batch | undefined = undefined;
  readonly #flush = (): void => {
    const batch = this.#pending;
    if (batch !== undefined) this.#send(batch);
  };

  constructor(store: Store, target: BatchTarget, minTtl: string, view: StateView) {
    this.#store = store;
    this.#target = target;
    this.#minTtl = minTtl;
    this.#view = view;
  }

  /**
   * Adds `call` to this tick's batch (opening one if needed); false when no round trip can be
   * made now (the caller's fallback decides; a give-back is then dropped).
   */
  add(call: Call, header: Header, now: string): boolean {
    let batch = this.#pending;
    if (batch !== undefined && (batch.header !== header || batch.now !== now || batch.calls.length >= MAX_BATCH)) {
      this.#send(batch);
      batch = undefined;
    }
    if (batch === undefined) {
      if (!this.#store.open(call.kind === 'giveBack')) return false;
      batch = this.#pending = new Batch(header, now, this.#store.roundTripStart());
      RESOLVED.then(this.#flush);
    }
    batch.calls.push(call);
    return true;
  }

  #send(batch: Batch): void {
    this.#pending = undefined;
    const calls = batch.calls;
    this.#store.send(batch.argv(this.#minTtl, this.#view), batch, batch.startedAt, (raw) => {
      const target = this.#target;
      if (raw === undefined) {
        for (const call of calls) {
          try {
            target.failed(call);
          } catch (error) {
            call.reject(error);
          }
        }
        return;
      }
      let last = -1;
      for (let i = 0; i < calls.length; i++) if (calls[i]!.kind !== 'giveBack') last = i;
      target.replied(raw, last, batch);
      let seq = raw[2]!;
      for (let i = 0; i < calls.length; i++) {
        const call = calls[i]!;
        const w = raw[REPLY_HEAD + 2 * i]!;
        const kind = call.kind;
        // A give-back that is done steps the number back (it undid the last reservation); a reservation or drain done bumps it.
        if (kind === 'giveBack') seq -= w;
        else if (kind === 'drain' ? w > 0 : kind !== 'look' && w >= 0) seq += 1;
        try {
          target.answered(call, raw, i, seq, batch);
        } catch (error) {
          call.reject(error);
        }
      }
    });
  }
}
