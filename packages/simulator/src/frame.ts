// The engine's unit of work: one layer of one attempt of one request (or the request itself,
// layer -1). A frame has at most one pending event at a time, so the event heap holds frames.
import type { AdaptiveThrottleToken, AdaptiveToken } from '@breakwater/adaptive';
import { CODE } from './outcome-codes.js';

/** What a frame waits for: nothing. */
export const NONE = 0;
/** A backend call answers. */
export const DONE = 1;
/** A closed-loop user sends its next request. */
export const ARRIVE = 2;
/** The wake-up a layer's driver asked for (`LayerHost.wakeAt`): a retry's wait, a time-out, a granted permit, a bulkhead wait run out. */
export const WAKE = 3;

export class Frame {
  /** Index of the layer (the backend is `layers.length`; the request itself is -1). */
  layer: number;
  parent: Frame | null;
  /** The request this frame works for (itself for a request). */
  root: Frame;
  /** The frame running below this one, if any. */
  child: Frame | null = null;
  /**
   * The frames below this one besides `child`. A layer that runs several calls below at once (a
   * hedge's attempts; `child` stays null): the frame of each, by slot (null: not started; `settled`:
   * ended). Any other layer: the frames below it that ended with their call still running below
   * them (a time limiter that gave up without cancelling), cancelled when this frame is. Null: none.
   */
  children: (Frame | null)[] | null = null;
  /** Its slot in its parent's `children` (-1: it is its parent's `child`). */
  slot = -1;
  /** Request: the phase it arrived in; its index; its closed-loop user (-1: open loop); its trace entry (-1: none). */
  phase = 0;
  index = 0;
  user = -1;
  traceIndex = -1;
  usedTrace = false;
  /**
   * Retry: the attempt running; the wait it took last. Hedge: attempts started; the delay of the
   * call's hedges. Breaker: the breaker's state (its state changes so far) that permitted the call.
   */
  attempt = 0;
  previousWaitMs = 0;
  /**
   * Breaker, adaptive limiter: when the call was permitted. Hedge: when the call started. Request:
   * when it arrived. Backend: the outcome it will answer with (`code`). Hedge: the primary attempt's outcome (`code`).
   */
  startedAt = 0;
  code: number = CODE.ok;
  /** Bulkhead: the frame waits in its bulkhead's queue for a slot. Backend: the call waits for a free server. */
  queued = false;
  /** Backend with a capacity: how long the call takes once served (Infinity: it hangs). */
  serviceMs = 0;
  /** Adaptive limiter: the slot the call holds (settled when the call below ends); it waits for one in the gate's queue while `queued`. */
  token: AdaptiveToken | null = null;
  /** Throttle: the token of the call let through. */
  throttleToken: AdaptiveThrottleToken | null = null;
  /** Rate limiter: the frame waits for its reserved permit (aborting this hands it back). */
  waiter: AbortController | null = null;
  /** A time limiter above cancelled this frame's call, or a hedge above took another attempt's answer: no more retries. */
  aborted = false;
  /** The frame has given its outcome to its parent (a time limiter that timed out, too). */
  settled = false;
  // The pending event: when, in which order among equal times, what, and where in the heap.
  due = 0;
  seq = 0;
  event = NONE;
  heapIndex = -1;

  constructor(layer: number, parent: Frame | null, root: Frame | null) {
    this.layer = layer;
    this.parent = parent;
    this.root = root ?? this;
    if (root !== null) this.phase = root.phase;
  }

  /** A request (layer -1) of `phase`, from closed-loop `user` (-1: open loop), answered by trace entry `traceIndex` (-1: none). */
  static request(phase: number, user: number, traceIndex: number): Frame {
    const root = new Frame(-1, null, null);
    root.phase = phase;
    root.user = user;
    root.traceIndex = traceIndex;
    return root;
  }
}

/** A binary min-heap of frames on (due, seq), with removal of any frame (a cancelled time-out). */
export class FrameHeap {
  readonly #heap: Frame[] = [];
  #seq = 0;

  get size(): number {
    return this.#heap.length;
  }

  peek(): Frame | undefined {
    return this.#heap[0];
  }

  push(frame: Frame, due: number, event: number): void {
    frame.due = due;
    frame.event = event;
    frame.seq = this.#seq++;
    frame.heapIndex = this.#heap.length;
    this.#heap.push(frame);
    this.#up(frame.heapIndex);
  }

  /** Takes the frame out of the heap (its event will not happen); a frame not in it is ignored. */
  remove(frame: Frame): void {
    const i = frame.heapIndex;
    frame.event = NONE;
    if (i < 0) return;
    const heap = this.#heap;
    const last = heap.pop()!;
    frame.heapIndex = -1;
    if (last !== frame) {
      heap[i] = last;
      last.heapIndex = i;
      this.#down(i);
      this.#up(last.heapIndex);
    }
  }

  /** Takes the first frame out; its `event` still says what it was waiting for. */
  pop(): Frame {
    const top = this.#heap[0]!;
    const event = top.event;
    this.remove(top);
    top.event = event;
    return top;
  }

  #less(a: Frame, b: Frame): boolean {
    return a.due < b.due || (a.due === b.due && a.seq < b.seq);
  }

  #up(i: number): void {
    const heap = this.#heap;
    const frame = heap[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = heap[p]!;
      if (!this.#less(frame, parent)) break;
      heap[i] = parent;
      parent.heapIndex = i;
      i = p;
    }
    heap[i] = frame;
    frame.heapIndex = i;
  }

  #down(i: number): void {
    const heap = this.#heap;
    const n = heap.length;
    const frame = heap[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.#less(heap[r]!, heap[l]!) ? r : l;
      const child = heap[c]!;
      if (!this.#less(child, frame)) break;
      heap[i] = child;
      child.heapIndex = i;
      i = c;
    }
    heap[i] = frame;
    frame.heapIndex = i;
  }
}
