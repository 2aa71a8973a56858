// Frames that wait — in a bulkhead's or an adaptive limiter's gate, or at a backend whose servers
// are all busy — in arrival order, taken oldest or newest first. A frame that leaves (its wait ran
// out, a time limiter above aborted it) is only marked (`frame.queued = false`) and dropped when it
// reaches an end, so leaving costs nothing; the array is compacted when its dead head grows large.
import type { Frame } from './frame.js';

/** A queue of waiting frames with O(1) leaving (see the file's head). */
export class FrameQueue {
  /** Frames still waiting (not those that left and are still in the array). */
  size = 0;
  #frames: Frame[] = [];
  #head = 0;

  /** `frame` starts waiting, at the tail. */
  add(frame: Frame): void {
    frame.queued = true;
    this.#frames.push(frame);
    this.size++;
  }

  /** `frame` leaves the queue (nothing if it is not in it). */
  remove(frame: Frame): void {
    if (!frame.queued) return;
    frame.queued = false;
    if (--this.size === 0) this.#clear();
  }

  /** Takes the oldest waiting frame out (the queue must not be empty). */
  takeOldest(): Frame {
    const frames = this.#frames;
    let frame = frames[this.#head++]!;
    while (!frame.queued) frame = frames[this.#head++]!;
    this.#taken(frame);
    if (this.size > 0 && this.#head > 1024 && this.#head * 2 > frames.length) {
      this.#frames = frames.slice(this.#head);
      this.#head = 0;
    }
    return frame;
  }

  /** Takes the newest waiting frame out (the queue must not be empty). */
  takeNewest(): Frame {
    const frames = this.#frames;
    let frame = frames.pop()!;
    while (!frame.queued) frame = frames.pop()!;
    this.#taken(frame);
    return frame;
  }

  #taken(frame: Frame): void {
    frame.queued = false;
    if (--this.size === 0) this.#clear();
  }

  #clear(): void {
    this.#frames.length = 0;
    this.#head = 0;
  }
}
