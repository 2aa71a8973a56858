/**
 * What a node of a {@link LinkedQueue} carries: its neighbours and whether it is in a queue.
 *
 * @example
 * ```ts
 * interface Waiter extends Linked<Waiter> { readonly resolve: () => void }
 * const waiter: Waiter = { prev: null, next: null, linked: false, resolve };
 * ```
 */
export interface Linked<N> {
  prev: N | null;
  next: N | null;
  /** True while the node is in a queue (a node is in at most one). */
  linked: boolean;
}

/**
 * An intrusive doubly linked FIFO: the nodes carry their own links, so pushing allocates
 * nothing and removing any node (an aborted waiter in the middle of a queue) is O(1).
 * No `Array.shift` on a long queue, no tombstones left behind.
 *
 * @example
 * ```ts
 * interface Waiter extends Linked<Waiter> { resolve(): void }
 * const queue = new LinkedQueue<Waiter>();
 * const w: Waiter = { prev: null, next: null, linked: false, resolve: () => {} };
 * queue.push(w);
 * queue.remove(w); // O(1), wherever w is
 * queue.shift();   // null: empty
 * ```
 */
export class LinkedQueue<N extends Linked<N>> {
  #head: N | null = null;
  #tail: N | null = null;
  #size = 0;

  /** How many nodes are queued. */
  get size(): number {
    return this.#size;
  }

  /** The oldest node, or `null`. */
  get first(): N | null {
    return this.#head;
  }

  /** The newest node, or `null`. */
  get last(): N | null {
    return this.#tail;
  }

  /** Appends `node` (which must not be in a queue). */
  push(node: N): void {
    if (node.linked) throw new Error('LinkedQueue: the node is already in a queue');
    node.linked = true;
    node.next = null;
    node.prev = this.#tail;
    if (this.#tail === null) this.#head = node;
    else this.#tail.next = node;
    this.#tail = node;
    this.#size++;
  }

  /** Removes and returns the oldest node, or `null` when empty. */
  shift(): N | null {
    const node = this.#head;
    if (node !== null) this.remove(node);
    return node;
  }

  /** Removes and returns the newest node, or `null` when empty. */
  pop(): N | null {
    const node = this.#tail;
    if (node !== null) this.remove(node);
    return node;
  }

  /** Takes `node` out of the queue in O(1); `false` when it was not in it. */
  remove(node: N): boolean {
    if (!node.linked) return false;
    const { prev, next } = node;
    if (prev === null) this.#head = next;
    else prev.next = next;
    if (next === null) this.#tail = prev;
    else next.prev = prev;
    node.prev = null;
    node.next = null;
    node.linked = false;
    this.#size--;
    return true;
  }

  /** Iterates oldest first (a node removed during the iteration is skipped safely). */
  *[Symbol.iterator](): IterableIterator<N> {
    for (let node = this.#head; node !== null; ) {
      const next: N | null = node.next;
      yield node;
      node = next;
    }
  }
}
