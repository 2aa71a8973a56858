import type { Clock } from '@breakwater/core';
import { WaitQueue } from '@breakwater/core/internal';
import { guaranteedSlots } from './partitions.js';

/** What {@link Slots} needs from its limiter. */
export interface SlotsOptions {
  /** The limit to start with. */
  readonly limit: number;
  /** The partitions' shares, by lane (a lane past the last share is the lane of calls with no partition). */
  readonly shares: readonly number[];
  /** `true`: a freed slot goes to the newest waiter; `false`: to the oldest. */
  readonly lifo: boolean;
  readonly clock: Clock;
  /** A waiter's maxWaitDuration ran out: the error it rejects with (the limiter publishes `callRejected`). */
  readonly refused: (lane: number, waitedMs: number) => unknown;
}

/** What a waiter queues with: its lane, its arrival order across lanes (FIFO: the smallest goes first; LIFO: the largest), when it came. */
interface QueuedCall {
  readonly lane: number;
  readonly seq: number;
  readonly since: number;
}

/**
 * What a waiter gets with its slot: the calls in flight the moment it was handed over, itself
 * included, and how long it waited (ms on the limiter's clock).
 */
export interface Grant {
  readonly inFlight: number;
  readonly waitedMs: number;
}

/**
 * The slots of an adaptive limiter: how many calls are in flight (in all and by lane), the limit
 * in force, and the callers waiting for a slot (one core `WaitQueue` per lane: an aborted waiter
 * leaves at once, one `abort` listener per caller signal, a wait keeps the process alive). `inFlight` never exceeds the limit through this class: a slot is taken only
 * while `inFlight < limit`, and a smaller limit takes effect as calls end.
 *
 * A freed slot (or a larger limit) goes to a waiter, chosen so that partitions keep their share:
 * first among the lanes whose partition is below its guaranteed slots (`max(1, ⌈limit·share⌉)`),
 * else among all lanes; within that choice the oldest waiter (FIFO) or the newest (LIFO). A
 * newcomer never takes a slot while anyone waits.
 */
export class Slots {
  /** Each lane's waiters; a waiter resolves with its {@link Grant} once its slot was taken. */
  readonly #queues: WaitQueue<Grant, QueuedCall>[];
  readonly #busy: number[];
  readonly #shares: readonly number[];
  readonly #lifo: boolean;
  readonly #clock: Clock;
  #limit: number;
  #inFlight = 0;
  #waiting = 0;
  #seq = 0;

  constructor(options: SlotsOptions) {
    this.#limit = options.limit;
    this.#shares = options.shares;
    this.#lifo = options.lifo;
    this.#clock = options.clock;
    const refused = options.refused;
    const lanes = options.shares.length + 1;
    const queueOptions = {
      clock: options.clock,
      onTimeout: (call: QueuedCall, waitedMs: number) => {
        this.#waiting--;
        return { error: refused(call.lane, waitedMs) };
      },
      onAbort: () => void this.#waiting--,
    };
    this.#queues = Array.from({ length: lanes }, () => new WaitQueue<Grant, QueuedCall>(queueOptions));
    this.#busy = new Array<number>(lanes).fill(0);
  }

  /** The limit in force. */
  get limit(): number {
    return this.#limit;
  }

  /**
   * Sets the limit. A smaller one takes effect as calls end; the new slots of a larger one go to
   * waiters at the next {@link free} or {@link handOver}.
   */
  setLimit(limit: number): void {
    this.#limit = limit;
  }

  /** Calls holding a slot. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Calls of `lane` holding a slot. */
  busy(lane: number): number {
    return this.#busy[lane]!;
  }

  /** Callers of `lane` waiting. */
  waitingIn(lane: number): number {
    return this.#queues[lane]!.size;
  }

  /** Takes a slot for a call of `lane` if one is free now and nobody waits. */
  tryTake(lane: number): boolean {
    if (this.#inFlight >= this.#limit || this.#waiting !== 0) return false;
    this.#inFlight++;
    this.#busy[lane]!++;
    return true;
  }

  /**
   * Waits, in `lane`, for a slot: resolves holding it, with the calls in flight the moment it was
   * handed the slot, itself included (later hand-overs of the same moment do not count), and the
   * length of its wait. The limiter publishes `callPermitted` in the waiter's own continuation
   * (its async context, not that of the call that freed the slot). Rejects after
   * at most `maxWaitMs` (with `refused`'s error), or when `signal` aborts (with its reason).
   * `signal` must not have aborted yet.
   */
  wait(lane: number, signal: AbortSignal, maxWaitMs: number): Promise<Grant> {
    this.#waiting++;
    return this.#queues[lane]!.wait(signal, maxWaitMs, { lane, seq: this.#seq++, since: this.#clock.now() });
  }

  /** Gives back a slot of `lane` (there is one) and hands free slots to waiters. */
  free(lane: number): void {
    this.#inFlight--;
    this.#busy[lane]!--;
    this.handOver();
  }

  /** Hands free slots to waiters (after a larger limit). */
  handOver(): void {
    while (this.#waiting !== 0 && this.#inFlight < this.#limit) {
      const queue = this.#queues[this.#nextLane()]!;
      const waiter = (this.#lifo ? queue.pop() : queue.shift())!;
      const { lane, since } = waiter.item;
      this.#waiting--;
      this.#inFlight++;
      this.#busy[lane]!++;
      waiter.resolve({ inFlight: this.#inFlight, waitedMs: this.#clock.now() - since });
    }
  }

  /** The lane whose waiter a free slot goes to (someone waits): partitions below their share first, then FIFO or LIFO order. */
  #nextLane(): number {
    const queues = this.#queues;
    if (queues.length === 1) return 0;
    let best: QueuedCall | undefined;
    let bestOwed = false;
    for (let lane = 0; lane < queues.length; lane++) {
      const queue = queues[lane]!;
      const call = this.#lifo ? queue.newestItem : queue.oldestItem;
      if (call === undefined) continue;
      const owed = lane < this.#shares.length && this.#busy[lane]! < guaranteedSlots(this.#limit, this.#shares[lane]!);
      if (best === undefined || (owed && !bestOwed) || (owed === bestOwed && (this.#lifo ? call.seq > best.seq : call.seq < best.seq))) {
        best = call;
        bestOwed = owed;
      }
    }
    return best!.lane;
  }
}
