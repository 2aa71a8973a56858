// What the engine and a layer kind's driver say to each other. The engine knows frames, the heap
// and the backend; a driver knows one layer of a pipeline (its real Breakwater component) and
// decides, for a frame of that layer, when the call below starts and what its outcome means.
import type { Tally } from '../counts.js';
import type { Frame } from '../frame.js';
import type { IntervalState } from '../retry-wait.js';

/** The engine as a driver sees it (one per run). Nothing here allocates. */
export interface LayerHost {
  /** The run's simulated time, ms. */
  now(): number;
  /** The error each outcome code stands for (indexed by code, see outcome-codes.ts). */
  readonly errors: readonly unknown[];
  /** The state a retry's interval functions get (one object per run). */
  readonly intervalState: IntervalState;
  /** Attempts ended by a time limiter so far (a time limiter's driver counts them). */
  timeouts: number;
  /** The counts of the phase `frame`'s request arrived in. */
  tally(frame: Frame): Tally;
  /** Starts the layer below `frame` (the next layer, or the backend): `frame.child` until it ends. */
  spawn(frame: Frame): void;
  /**
   * Starts one more call below `frame` beside those already running there (a hedge's attempts):
   * `frame.children[slot]` (the driver made `frame.children`; it stays there, `settled` once it
   * ended); `childEnded` gets it as its `child`.
   */
  spawnAt(frame: Frame, slot: number): void;
  /** `frame` is done with `code`: the layer above it reacts. */
  complete(frame: Frame, code: number): void;
  /** Calls the driver's `wake(frame)` at `atMs` (a frame waits for one thing at a time). */
  wakeAt(frame: Frame, atMs: number): void;
  /** The wake-up `frame` waits for will not happen (nothing if it waits for none). */
  cancelWake(frame: Frame): void;
  /**
   * Cancels what runs below `frame` (as a time limiter's `cancelRunningFuture`): every frame below
   * is aborted, the deepest ones end with `code` and the layers above them react, up to `frame`'s.
   * Below a settled frame (a time limiter that gave up without cancelling), what it left running.
   */
  cancelBelow(frame: Frame, code: number): void;
  /** Cancels `frame` (one of its parent's `children`, a hedge's losing attempt) and what runs below it, as `cancelBelow` does. */
  cancel(frame: Frame, code: number): void;
}

/**
 * One layer of a pipeline as the engine drives it. Every method gets a frame of this layer;
 * each must end in exactly one of: `host.spawn(frame)` (the call goes on below), `host.complete(frame, code)`,
 * `host.wakeAt(frame, …)` (it waits), or nothing (it already completed). A layer that runs several
 * calls below at once (a hedge) starts each with `host.spawnAt` and completes its frame once.
 */
export interface LayerDriver {
  /** A call enters this layer. */
  enter(frame: Frame): void;
  /** The call below `frame` (`child`: its `child`, or one of its `children`) ended with `code`. */
  childEnded(frame: Frame, code: number, child: Frame): void;
  /** The wake-up this driver asked for with `host.wakeAt` is due. */
  wake(frame: Frame): void;
  /** `frame` waits in this layer (nothing runs below it) and is cancelled from above, with `reason`: it leaves any queue and hands back any reservation. */
  cancel(frame: Frame, reason: unknown): void;
}
