import { describe, expect, it } from 'vitest';
import { HandBackList, type HandBackReservation } from './hand-back-list.js';

interface R extends HandBackReservation<R> {
  readonly id: number;
}
const reservation = (id: number): R => ({ id, prev: null, next: null, linked: false, aborted: false });

function listOf(n: number): { list: HandBackList<R>; rs: R[]; given: number[] } {
  const list = new HandBackList<R>();
  const rs = Array.from({ length: n }, (_, i) => reservation(i + 1));
  for (const r of rs) list.push(r);
  return { list, rs, given: [] };
}

describe('HandBackList: permits come back only from the end', () => {
  it('all aborted at once (one signal): every one comes back, newest first', () => {
    const { list, rs, given } = listOf(5);
    for (const r of rs) list.handBack(r, (last) => void given.push(last.id));
    expect(given).toEqual([5, 4, 3, 2, 1]);
    expect(list.size).toBe(0);
  });

  it('an earlier reservation waits until every one after it has been aborted too', () => {
    const { list, rs, given } = listOf(3);
    const giveBack = (last: R) => void given.push(last.id);
    list.handBack(rs[0]!, giveBack);
    list.handBack(rs[1]!, giveBack);
    expect(given).toEqual([]);
    list.handBack(rs[2]!, giveBack);
    expect(given).toEqual([3, 2, 1]);
  });

  it('granted takes the reservation and every one before it out; a later abort of those gives nothing back', () => {
    const { list, rs, given } = listOf(4);
    list.granted(rs[1]!);
    expect(list.size).toBe(2);
    list.handBack(rs[0]!, (last) => void given.push(last.id));
    list.handBack(rs[3]!, (last) => void given.push(last.id));
    list.handBack(rs[2]!, (last) => void given.push(last.id));
    expect(given).toEqual([4, 3]);
  });

  it('a give-back refused clears the list; due() false stops without taking it out', () => {
    const { list, rs, given } = listOf(3);
    list.handBack(rs[2]!, () => false);
    expect(list.size).toBe(0);
    const again = listOf(2);
    again.list.handBack(
      again.rs[1]!,
      (last) => void again.given.push(last.id),
      () => false,
    );
    expect(again.given).toEqual([]);
    expect(again.list.size).toBe(2);
    expect(given).toEqual([]);
  });

  it('clear() leaves nothing to hand back', () => {
    const { list, rs, given } = listOf(2);
    list.clear();
    list.handBack(rs[1]!, (last) => void given.push(last.id));
    expect(given).toEqual([]);
  });
});
