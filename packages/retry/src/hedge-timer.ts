import { systemClock, type Clock, type TimerHandle } from '@breakwater/core';
import { holdProcess, releaseProcess } from '@breakwater/core/internal';

/** A call waiting for its delay, linked into its hedge's {@link HedgeTimer} (the call itself: no node per wait). */
export interface DueCall {
  /** When its delay elapses, on the clock. */
  due: number;
  prev: DueCall | undefined;
  next: DueCall | undefined;
  /** Whether it is in the list now. */
  queued: boolean;
  /** Its delay elapsed: start the next attempt. */
  onDue(): void;
}

/**
 * The delays of one Hedge's calls, on one clock timer (contract: docs/hedging.md). Calls waiting
 * for their delay are kept in a list ordered by due time — in the order they arrive for a fixed
 * delay (a monotonic clock), a short walk back from the end for a percentile one — and one timer
 * is armed for the earliest. A call answered before its delay leaves the list in O(1), with no
 * timer of its own to set and clear: a call whose delay never elapses costs a clock reading and
 * a place beside the list (the call added last waits there until the next comes), not a timer.
 *
 * When the list empties, the timer is cleared — except on `systemClock`, where it is left to
 * fire (unref'd: it never keeps the process alive) and finds nothing, so that calls one after
 * another arm one timer per `delay`, not one each. Any other clock (a `VirtualClock` in tests)
 * sees no timer pending once no call waits.
 *
 * While a call waits for its delay, its caller awaits it: the process is kept alive (core's
 * `holdProcess`, one hold while calls wait; core lets the process go at the end of the turn if
 * no wait is left then), as a retry's back-off is (contract: docs/conventions.md); the timer
 * itself stays unref'd.
 */
export class HedgeTimer {
  readonly #clock: Clock;
  readonly #lazy: boolean;
  #head: DueCall | undefined;
  #tail: DueCall | undefined;
  /**
   * The call added last, kept beside the list until the next call comes (or the timer fires):
   * a call that ends before then — one at a time, each answered in time — never touches the list.
   */
  #newest: DueCall | undefined;
  #handle: TimerHandle | undefined;
  /** The due time the timer is armed for (Infinity: none). */
  #armedFor = Number.POSITIVE_INFINITY;
  /** Whether the process is held for the calls waiting. */
  #holding = false;

  constructor(clock: Clock) {
    this.#clock = clock;
    this.#lazy = clock === systemClock;
  }

  /** Adds `call`, due at `due` (`now` is the clock's reading), and arms the timer if it must now fire sooner. */
  add(call: DueCall, due: number, now: number): void {
    if (this.#newest !== undefined) this.#link(this.#newest);
    call.due = due;
    call.queued = true;
    this.#newest = call;
    // The timer is armed for the earliest due time (or one before it): sooner only if this is sooner.
    if (due < this.#armedFor) this.#arm(due, now);
    if (!this.#holding && this.#handle !== undefined) this.#holding = holdProcess(this.#handle);
  }

  /** Links the newest call into the list, in due order (a short walk back from the end). */
  #link(call: DueCall): void {
    this.#newest = undefined;
    const due = call.due;
    let after = this.#tail;
    while (after !== undefined && after.due > due) after = after.prev;
    const before = after === undefined ? this.#head : after.next;
    call.prev = after;
    call.next = before;
    if (after === undefined) this.#head = call;
    else after.next = call;
    if (before === undefined) this.#tail = call;
    else before.prev = call;
  }

  /** Takes `call` out (nothing if it is not in); the timer goes with the last call, but on `systemClock`. */
  remove(call: DueCall): void {
    if (!call.queued) return;
    call.queued = false;
    if (call === this.#newest) this.#newest = undefined;
    else {
      const { prev, next } = call;
      if (prev === undefined) this.#head = next;
      else prev.next = next;
      if (next === undefined) this.#tail = prev;
      else next.prev = prev;
      call.prev = undefined;
      call.next = undefined;
    }
    if (this.#head !== undefined || this.#newest !== undefined) return;
    if (this.#holding) {
      this.#holding = false;
      releaseProcess();
    }
    if (!this.#lazy && this.#handle !== undefined) {
      this.#clock.clearTimeout(this.#handle);
      this.#handle = undefined;
      this.#armedFor = Number.POSITIVE_INFINITY;
    }
  }

  #arm(due: number, now: number): void {
    if (this.#handle !== undefined) this.#clock.clearTimeout(this.#handle);
    this.#armedFor = due;
    this.#handle = this.#clock.setTimeout(this.#fire, Math.max(0, due - now));
  }

  /** The timer fired: every call now due starts its next attempt; the timer is armed for the next one. */
  readonly #fire = (): void => {
    this.#handle = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    const now = this.#clock.now();
    if (this.#newest !== undefined) this.#link(this.#newest);
    let call = this.#head;
    while (call !== undefined && call.due <= now) {
      this.remove(call);
      call.onDue(); // may link the call again, due later (its next delay)
      call = this.#head;
    }
    if (call !== undefined && call.due < this.#armedFor) this.#arm(call.due, now);
  };
}
