// A backend with a finite capacity: at most `capacity` calls served at once, the others waiting
// first come first served, up to `queueLimit` of them; beyond that a call fails at once (a 503).
// The engine asks it what to do with each call, and when a server frees up, whom to serve next.
import type { Frame } from './frame.js';
import { FrameQueue } from './frame-queue.js';
import type { Phase } from './scenario.js';

/** What {@link BackendQueue.enter} says of a call. */
export const SERVE = 1;
export const WAIT = 0;
export const OVERLOADED = -1;

/**
 * The servers and the queue of one run's backend. `capacity` and `queueLimit` are those of the
 * phase the run is in (`setPhase`): when the capacity falls, the calls in service finish and no
 * waiting call starts until fewer than the new capacity are in service; when it rises, waiting
 * calls start at once. A call that is cancelled (a time limiter above it) leaves the queue, or
 * frees its server for the oldest waiting call.
 */
export class BackendQueue {
  /** Calls in service now. */
  busy = 0;
  capacity = Infinity;
  queueLimit = Infinity;
  readonly #capacities: readonly number[];
  readonly #queueLimits: readonly number[];
  readonly #queue = new FrameQueue();

  constructor(phases: readonly Phase[]) {
    this.#capacities = phases.map((p) => p.backend.capacity ?? Infinity);
    this.#queueLimits = phases.map((p) => p.backend.queueLimit ?? Infinity);
    this.setPhase(0);
  }

  /** Calls waiting for a server now. */
  get waiting(): number {
    return this.#queue.size;
  }

  /** Whether any phase has a finite capacity (else the engine never asks). */
  static needed(phases: readonly Phase[]): boolean {
    return phases.some((p) => (p.backend.capacity ?? Infinity) !== Infinity);
  }

  /** The phase `p` starts: its capacity and queue limit hold from now on (call `next()` after it: a larger capacity serves waiting calls). */
  setPhase(p: number): void {
    this.capacity = this.#capacities[p] ?? Infinity;
    this.queueLimit = this.#queueLimits[p] ?? Infinity;
  }

  /** A call arrives: SERVE (it holds a server now), WAIT (queued), or OVERLOADED (it fails at once). */
  enter(frame: Frame): number {
    if (this.waiting === 0 && this.busy < this.capacity) {
      this.busy++;
      return SERVE;
    }
    if (this.waiting >= this.queueLimit) return OVERLOADED;
    this.#queue.add(frame);
    return WAIT;
  }

  /** A call in service ended (answered, or cancelled): its server is free. */
  release(): void {
    this.busy--;
  }

  /** A waiting call is cancelled: it leaves the queue. */
  leave(frame: Frame): void {
    this.#queue.remove(frame);
  }

  /** The oldest waiting call, now holding a server, if a server is free; else null. Call it until null. */
  next(): Frame | null {
    if (this.waiting === 0 || this.busy >= this.capacity) return null;
    this.busy++;
    return this.#queue.takeOldest();
  }
}
