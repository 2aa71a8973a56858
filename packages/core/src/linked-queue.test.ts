import { describe, expect, it } from 'vitest';
import { LinkedQueue, type Linked } from './linked-queue.js';

interface Node extends Linked<Node> {
  readonly id: number;
}
const node = (id: number): Node => ({ id, prev: null, next: null, linked: false });
const ids = (q: LinkedQueue<Node>): number[] => [...q].map((n) => n.id);

describe('LinkedQueue', () => {
  it('is FIFO: push at the end, shift from the front', () => {
    const q = new LinkedQueue<Node>();
    const [a, b, c] = [node(1), node(2), node(3)];
    q.push(a);
    q.push(b);
    q.push(c);
    expect(q.size).toBe(3);
    expect(q.first).toBe(a);
    expect(q.last).toBe(c);
    expect(q.shift()).toBe(a);
    expect(q.shift()).toBe(b);
    expect(q.shift()).toBe(c);
    expect(q.shift()).toBeNull();
    expect(q.size).toBe(0);
    expect(q.first).toBeNull();
    expect(q.last).toBeNull();
  });

  it('removes a node from the middle, the front or the back in place', () => {
    const q = new LinkedQueue<Node>();
    const nodes = [1, 2, 3, 4, 5].map(node);
    for (const n of nodes) q.push(n);
    expect(q.remove(nodes[2]!)).toBe(true);
    expect(ids(q)).toEqual([1, 2, 4, 5]);
    expect(q.remove(nodes[0]!)).toBe(true);
    expect(q.remove(nodes[4]!)).toBe(true);
    expect(ids(q)).toEqual([2, 4]);
    expect(q.first?.id).toBe(2);
    expect(q.last?.id).toBe(4);
    expect(q.size).toBe(2);
  });

  it('answers false to removing a node twice, and refuses to push a queued node', () => {
    const q = new LinkedQueue<Node>();
    const a = node(1);
    q.push(a);
    expect(() => q.push(a)).toThrow(/already in a queue/);
    expect(q.remove(a)).toBe(true);
    expect(q.remove(a)).toBe(false);
    expect(q.size).toBe(0);
    q.push(a);
    expect(q.pop()).toBe(a);
    expect(q.pop()).toBeNull();
  });

  it('keeps iterating when the node just yielded is removed', () => {
    const q = new LinkedQueue<Node>();
    for (const n of [1, 2, 3].map(node)) q.push(n);
    const seen: number[] = [];
    for (const n of q) {
      seen.push(n.id);
      q.remove(n);
    }
    expect(seen).toEqual([1, 2, 3]);
    expect(q.size).toBe(0);
  });
});
