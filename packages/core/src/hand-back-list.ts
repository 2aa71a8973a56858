import { LinkedQueue, type Linked } from './linked-queue.js';

/**
 * A reservation a {@link HandBackList} keeps: linked into it, and marked once its caller gave up waiting.
 *
 * @example
 * ```ts
 * interface Reservation extends HandBackReservation<Reservation> { readonly permits: number }
 * const r: Reservation = { prev: null, next: null, linked: false, aborted: false, permits: 2 };
 * ```
 */
export interface HandBackReservation<R> extends Linked<R> {
  aborted: boolean;
}

/**
 * The reservations of waiting callers that an abort can still hand back, in reservation order —
 * the rule both rate limiters follow (in-process and on Redis): permits come back only from the
 * end, an aborted reservation's when it is the last one, an earlier one once every reservation
 * after it has been aborted too (so 50 waiters aborted on one signal give back all 50, newest
 * first). A reservation granted (its wait ended) takes every one before it out of the list.
 *
 * @example
 * ```ts
 * const list = new HandBackList<Reservation>();
 * list.push(reservation);                     // a caller starts waiting
 * list.handBack(reservation, (last) => store.giveBack(last.permits)); // it aborted
 * ```
 */
export class HandBackList<R extends HandBackReservation<R>> {
  readonly #list = new LinkedQueue<R>();

  /** Reservations still in the list. */
  get size(): number {
    return this.#list.size;
  }

  /** A caller starts waiting on `reservation`. */
  push(reservation: R): void {
    this.#list.push(reservation);
  }

  /** Nothing reserved so far can be handed back any more (permits were taken another way). */
  clear(): void {
    if (this.#list.size === 0) return;
    while (this.#list.shift() !== null);
  }

  /** `reservation`'s wait ended (its permits are there): it, and every one before it, leave the list. */
  granted(reservation: R): void {
    if (!reservation.linked) return;
    for (let first = this.#list.shift(); first !== null && first !== reservation; first = this.#list.shift());
  }

  /**
   * `reservation`'s caller gave up: it is marked aborted, then every aborted reservation at the end
   * of the list leaves it, newest first, and goes to `giveBack` — while `due(last)` says its permits
   * are still to come (default: always). `giveBack` returns `false` when nothing before it can come
   * back either: the list is then cleared.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a giveBack that returns nothing (void) is as good as one that returns true
  handBack(reservation: R, giveBack: (last: R) => boolean | void, due: (last: R) => boolean = always): void {
    if (!reservation.linked) return;
    reservation.aborted = true;
    for (let last = this.#list.last; last !== null && last.aborted && due(last); last = this.#list.last) {
      this.#list.pop();
      if (giveBack(last) === false) return this.clear();
    }
  }
}

const always = (): boolean => true;
